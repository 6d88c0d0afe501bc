//! A `#[tool]`: per parameter, a probe deciding by its type's traits whether it is an
//! argument or an extractor (`ferromcp::__private::Param`); the descriptor (built once per
//! process) and the `ToolHandler` impl.

use proc_macro2::{Group, TokenStream, TokenTree};
use quote::{ToTokens, format_ident, quote, quote_spanned};
use syn::Type;
use syn::spanned::Spanned;

use super::{arguments, handler_type, invoke, opt_str, opt_string, output_span};
use crate::attrs::Flag;
use crate::model::{Method, Param, ParamKind, ToolDef, ValueParam};

pub(crate) fn expand(self_ty: &Type, t: &ToolDef) -> (TokenStream, TokenStream) {
    let m = &t.method;
    let (handler, mut items) = handler_type("Tool", m, self_ty);
    let params = Params::of(&handler, t);
    items.extend(params.items);
    let args = m.params.iter().find(|p| matches!(p.kind, ParamKind::Args));
    let (input_default, arguments_in) = input(args, &params.describe);
    items.extend(descriptor(self_ty, t, &handler, input_default));
    items.extend(call(self_ty, m, &handler, &arguments_in, &params.takes));
    (items, register(t, &handler))
}

/// The default input schema and the statement parsing `arguments` into `__parsed`: with
/// `#[args]` (`args`) the user's struct is the whole input, otherwise each argument
/// describes its own property (`describe`).
fn input(args: Option<&Param>, describe: &TokenStream) -> (TokenStream, TokenStream) {
    match args {
        // `#[args]`: the user's struct is the whole input.
        Some(p) => {
            let ty = &p.ty;
            (
                quote!(::ferromcp::__private::input_schema_for::<#ty>()),
                quote! {
                    let __parsed = ::ferromcp::__private::tool_arguments::<#ty>(arguments);
                },
            )
        }
        None => (
            quote! {{
                let mut __schema = ::ferromcp::__private::ArgumentsSchema::new();
                #describe
                __schema.finish()
            }},
            quote! {
                let __parsed = ::ferromcp::__private::ToolArguments::parse(arguments);
            },
        ),
    }
}

/// `Some(value)` or `None` for an annotation hint.
fn flag(f: Option<&Flag>) -> TokenStream {
    match f {
        Some(Flag { value }) => quote!(::ferromcp::__private::Option::Some(#value)),
        None => quote!(::ferromcp::__private::Option::None),
    }
}

/// `impl Handler { fn descriptor() }`: the tool as `tools/list` shows it, built once per
/// process.
fn descriptor(
    self_ty: &Type,
    t: &ToolDef,
    handler: &syn::Ident,
    input_default: TokenStream,
) -> TokenStream {
    let name = &t.name.value;
    let title = opt_str(t.title.as_ref());
    let description = &t.description;
    let (read_only, destructive, idempotent, open_world) = (
        flag(t.read_only.as_ref()),
        flag(t.destructive.as_ref()),
        flag(t.idempotent.as_ref()),
        flag(t.open_world.as_ref()),
    );
    let input = match &t.input_schema {
        Some(expr) => quote! {
            ::ferromcp::__private::raw_schema(#name, "input_schema", #expr)?
        },
        None => input_default,
    };
    let optional = optional_fields(self_ty, t);
    quote! {
        impl #handler {
            fn descriptor() -> ::ferromcp::__private::Result<
                ::ferromcp::__private::Arc<::ferromcp::__private::Tool>,
                ::ferromcp::__private::RegistryError,
            > {
                const SPEC: ::ferromcp::__private::ToolSpec = ::ferromcp::__private::ToolSpec {
                    name: #name,
                    title: #title,
                    description: #description,
                    read_only: #read_only,
                    destructive: #destructive,
                    idempotent: #idempotent,
                    open_world: #open_world,
                };
                static DESCRIPTOR: ::ferromcp::__private::OnceLock<
                    ::ferromcp::__private::Result<
                        ::ferromcp::__private::Arc<::ferromcp::__private::Tool>,
                        ::ferromcp::__private::RegistryError,
                    >,
                > = ::ferromcp::__private::OnceLock::new();
                ::ferromcp::__private::cached(&DESCRIPTOR, || {
                    let mut tool = ::ferromcp::__private::tool(&SPEC, #input);
                    #optional
                    ::ferromcp::__private::Result::Ok(::ferromcp::__private::Arc::new(tool))
                })
            }
        }
    }
}

/// The statements setting the descriptor's optional fields: the output schema, `_meta`,
/// the icons and the task support.
fn optional_fields(self_ty: &Type, t: &ToolDef) -> TokenStream {
    let name = &t.name.value;
    let m = &t.method;
    let output = match (
        &t.output_schema,
        m.output.as_ref().and_then(|ty| nameable(ty, self_ty)),
    ) {
        (Some(expr), _) => quote! {
            tool.output_schema = ::ferromcp::__private::Option::Some(
                ::ferromcp::__private::raw_schema(#name, "output_schema", #expr)?
            );
        },
        // Asked of the return type's `IntoToolResult` impl; a type without one is reported
        // once, by the conversion of the result.
        (None, Some(ty)) => quote! {
            tool.output_schema = {
                use ::ferromcp::__private::{ConvertibleOutput as _, UnconvertibleOutput as _};
                (&&::ferromcp::__private::OutputProbe::<#ty>::new()).output_schema()
            };
        },
        (None, None) => TokenStream::new(),
    };
    let meta = t
        .meta
        .as_ref()
        .map(|expr| super::set_meta(&format_ident!("tool"), name, expr));
    let icons = t.icons.as_ref().map(|expr| {
        quote! {
            tool.icons = ::ferromcp::__private::Option::Some(#expr);
        }
    });

    let task_support = t.task_support.as_ref().map(|support| {
        quote! {
            tool.execution = ::ferromcp::__private::Option::Some(
                ::ferromcp::__private::task_support(#support),
            );
        }
    });
    let ui = ui_meta(t);
    quote!(#output #meta #icons #task_support #ui)
}

/// The statement setting the tool's `_meta.ui` (MCP Apps), after its `meta = …`.
fn ui_meta(t: &ToolDef) -> Option<TokenStream> {
    if t.ui.is_none() && t.visibility.is_none() {
        return None;
    }
    let uri = match &t.ui {
        Some(uri) => quote!(::ferromcp::__private::Option::Some(#uri)),
        None => quote!(::ferromcp::__private::Option::None),
    };
    let visibility = match &t.visibility {
        Some(values) => quote!(::ferromcp::__private::Option::Some(&[#(#values),*])),
        None => quote!(::ferromcp::__private::Option::None),
    };
    Some(quote! {
        ::ferromcp::__private::tool_ui(&mut tool, #uri, #visibility);
    })
}

/// The `ToolHandler` impl: the arguments taken from the request, then the call in the
/// future.
fn call(
    self_ty: &Type,
    m: &Method,
    handler: &syn::Ident,
    arguments_in: &TokenStream,
    takes: &TokenStream,
) -> TokenStream {
    let on_error = quote!(return ::ferromcp::__private::Result::Err(e));
    let (lets, call_args) = arguments(m, &on_error, |i, p| match &p.kind {
        ParamKind::Value(_) => format_ident!("__v{}", i).into_token_stream(),
        _ => quote!(__args),
    });
    let call = invoke(self_ty, m, &call_args);
    // What the arguments give the call: each argument's value, or the `#[args]` struct.
    let taken: Vec<TokenStream> = m
        .params
        .iter()
        .enumerate()
        .filter_map(|(i, p)| match &p.kind {
            ParamKind::Value(_) => Some(format_ident!("__v{}", i).into_token_stream()),
            ParamKind::Args => Some(quote!(__args)),
            _ => None,
        })
        .collect();
    let convert = quote_spanned!(output_span(m)=> ::ferromcp::__private::tool_result(__out));
    quote! {
        #[automatically_derived]
        impl ::ferromcp::__private::ToolHandler for #handler {
            fn call(
                &self,
                arguments: ::ferromcp::__private::Option<&::ferromcp::__private::RawValue>,
                ctx: ::ferromcp::__private::Context,
            ) -> ::ferromcp::__private::BoxFuture<
                ::ferromcp::__private::Result<
                    ::ferromcp::__private::CallToolResult,
                    ::ferromcp::__private::HandlerError,
                >,
            > {
                let this = ::ferromcp::__private::Arc::clone(&self.0);
                #arguments_in
                // The arguments are taken here, borrowed from the request, before the
                // future (which must own what it holds) is made.
                let __taken = (|| {
                    let mut __args = match __parsed {
                        ::ferromcp::__private::Result::Ok(args) => args,
                        ::ferromcp::__private::Result::Err(message) => {
                            return ::ferromcp::__private::Result::Err(
                                ::ferromcp::__private::Result::Ok(
                                    ::ferromcp::__private::CallToolResult::error(message),
                                ),
                            );
                        }
                    };
                    #takes
                    ::ferromcp::__private::Result::Ok((#(#taken,)*))
                })();
                ::ferromcp::__private::Box::pin(async move {
                    let (#(#taken,)*) = match __taken {
                        ::ferromcp::__private::Result::Ok(taken) => taken,
                        ::ferromcp::__private::Result::Err(early) => return early,
                    };
                    #lets
                    let __out = #call;
                    #convert
                })
            }
        }
    }
}

/// The registration in `McpServer::register`, with the timeout and the scopes.
fn register(t: &ToolDef, handler: &syn::Ident) -> TokenStream {
    let timeout = match &t.timeout_ms {
        Some(ms) => quote!(::ferromcp::__private::timeout(#ms)),
        None => quote!(::ferromcp::__private::Option::None),
    };
    let scopes = super::require_scopes("Tool", &t.name.value, &t.scopes);
    quote! {
        ::ferromcp::__private::add_tool(
            registry,
            #handler::descriptor()?,
            #handler(::ferromcp::__private::Arc::clone(&this)),
            #timeout,
        )?;
        #scopes
    }
}

/// The return type as it can be named inside the handler's impl: `Self` replaced by the
/// server type; `None` for an `impl Trait` return type, which has no name (its results are
/// still converted, without an output schema).
fn nameable(ty: &Type, self_ty: &Type) -> Option<TokenStream> {
    fn walk(tokens: TokenStream, self_ty: &Type) -> Option<TokenStream> {
        let mut out = TokenStream::new();
        for tt in tokens {
            match tt {
                TokenTree::Ident(i) if i == "impl" => return None,
                TokenTree::Ident(i) if i == "Self" => out.extend(quote!(#self_ty)),
                TokenTree::Group(g) => {
                    let mut group = Group::new(g.delimiter(), walk(g.stream(), self_ty)?);
                    group.set_span(g.span());
                    out.extend([TokenTree::Group(group)]);
                }
                other => out.extend([other]),
            }
        }
        Some(out)
    }
    walk(ty.to_token_stream(), self_ty)
}

/// What is generated for the parameters that are not `#[args]` nor `#[extract]`.
struct Params {
    /// In `impl Handler`: per parameter `__ops{i}()` (the probe, spanned at the type, so
    /// a type that is neither an argument nor an extractor is one error there), `__SPEC{i}`
    /// and, with a default, `__default{i}()`.
    items: TokenStream,
    /// In the descriptor: each argument's property of the input schema.
    describe: TokenStream,
    /// In the call: `let __v{i} = …;` for each, then the check for unknown arguments.
    takes: TokenStream,
}

/// [`Params`] as it is being built, parameter by parameter.
#[derive(Default)]
struct Parts {
    fns: TokenStream,
    describe: TokenStream,
    known: TokenStream,
    takes: TokenStream,
}

impl Params {
    fn of(handler: &syn::Ident, t: &ToolDef) -> Params {
        let mut parts = Parts::default();
        for (i, p) in t.method.params.iter().enumerate() {
            let ParamKind::Value(v) = &p.kind else {
                continue;
            };
            parts.add(handler, i, &p.ty, v);
        }
        let Parts {
            fns,
            describe,
            known,
            takes,
        } = parts;
        let takes = if describe.is_empty()
            && t.method
                .params
                .iter()
                .any(|p| matches!(p.kind, ParamKind::Args))
        {
            TokenStream::new()
        } else {
            quote! {
                let mut __known: ::ferromcp::__private::Vec<&'static str> =
                    ::ferromcp::__private::Vec::new();
                #known
                if let ::ferromcp::__private::Result::Err(message) =
                    __args.refuse_unknown(&__known)
                {
                    return ::ferromcp::__private::Result::Err(
                        ::ferromcp::__private::Result::Ok(
                            ::ferromcp::__private::CallToolResult::error(message),
                        ),
                    );
                }
                #takes
            }
        };
        Params {
            items: quote! {
                impl #handler {
                    #fns
                }
            },
            describe,
            takes,
        }
    }
}

impl Parts {
    /// The items, schema property, known name and `let` of the value parameter `i`.
    fn add(&mut self, handler: &syn::Ident, i: usize, ty: &Type, v: &ValueParam) {
        let (ops, spec, var) = (
            format_ident!("__ops{}", i),
            format_ident!("__SPEC{}", i),
            format_ident!("__v{}", i),
        );
        let probe = probe(ty, v.explicit);
        let (default_fn, default_json) = match &v.default {
            Some(expr) => {
                let d = format_ident!("__default{}", i);
                self.fns.extend(quote! {
                    fn #d() -> #ty {
                        #expr
                    }
                });
                (
                    quote!(::ferromcp::__private::Option::Some(#handler::#d as fn() -> #ty)),
                    quote!(::ferromcp::__private::Option::Some(
                        || ::ferromcp::__private::default_json(&#handler::#d())
                    )),
                )
            }
            None => (
                quote!(::ferromcp::__private::Option::None),
                quote!(::ferromcp::__private::Option::None),
            ),
        };
        let name = &v.name.value;
        let description = opt_string(v.description.as_ref());
        let header = opt_str(v.header.as_ref());
        self.fns.extend(quote! {
            fn #ops() -> ::ferromcp::__private::ParamOps<#ty> {
                #probe
            }
            const #spec: ::ferromcp::__private::ArgSpec = ::ferromcp::__private::ArgSpec {
                name: #name,
                description: #description,
                default: #default_json,
                header: #header,
            };
        });
        self.describe.extend(quote! {
            (#handler::#ops().describe)(&mut __schema, &#handler::#spec);
        });
        self.known.extend(quote! {
            if #handler::#ops().argument {
                __known.push(#handler::#spec.name);
            }
        });
        self.takes.extend(quote! {
                let #var = match (#handler::#ops().take)(&mut __args, &ctx, &#handler::#spec, #default_fn) {
                    ::ferromcp::__private::Result::Ok(v) => v,
                    ::ferromcp::__private::Result::Err(e) => {
                        return ::ferromcp::__private::Result::Err(
                            ::ferromcp::__private::param_error(e),
                        );
                    }
                };
            });
    }
}

/// The probe asking the parameter type's traits whether it is an argument or an extractor,
/// spanned at the type.
fn probe(ty: &Type, explicit: bool) -> TokenStream {
    // Marked #[arg]: an argument for certain, so the probe starts one reference
    // lower, past the extractor impl, and a type that is no argument is an error
    // saying #[arg] marks arguments.
    if explicit {
        quote_spanned! {ty.span()=>
            {
                use ::ferromcp::__private::{ArgumentParam as _, MarkedParam as _};
                (&&::ferromcp::__private::Param::<#ty>::new()).ops()
            }
        }
    } else {
        quote_spanned! {ty.span()=>
            {
                use ::ferromcp::__private::{
                    ArgumentParam as _, ExtractorParam as _, UnusableParam as _,
                };
                (&&&::ferromcp::__private::Param::<#ty>::new()).ops()
            }
        }
    }
}
