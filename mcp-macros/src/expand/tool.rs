//! A `#[tool]`: the hidden arguments struct, the descriptor (built once per process) and the
//! `ToolHandler` impl.

use proc_macro2::{Group, TokenStream, TokenTree};
use quote::{ToTokens, format_ident, quote, quote_spanned};
use syn::Type;
use syn::ext::IdentExt as _;

use super::{arguments, handler_type, invoke, opt_str, output_span};
use crate::attrs::Flag;
use crate::model::{ParamKind, ToolDef};

pub(crate) fn expand(self_ty: &Type, t: &ToolDef) -> (TokenStream, TokenStream) {
    let m = &t.method;
    let (handler, handler_def) = handler_type("Tool", m, self_ty);
    let mut items = handler_def;

    // The input type: the user's #[args] struct, or a hidden struct of the arguments.
    let args_struct = m.params.iter().find(|p| matches!(p.kind, ParamKind::Args));
    let args_ty = match args_struct {
        Some(p) => {
            let ty = &p.ty;
            quote!(#ty)
        }
        None => {
            let name = format_ident!("__McpArgs_{}", m.ident.unraw());
            items.extend(args_struct_def(&name, t));
            quote!(#name)
        }
    };

    let on_error = quote!(return ::mcp_server::__private::Result::Err(e));
    let (lets, call_args) = arguments(m, &on_error, |_, p| match &p.kind {
        ParamKind::Value(v) => {
            let id = &v.ident;
            quote!(__args.#id)
        }
        _ => quote!(__args),
    });
    let call = invoke(self_ty, m, &call_args);
    let convert = quote_spanned!(output_span(m)=> ::mcp_server::__private::tool_result(__out));

    let name = &t.name.value;
    let title = opt_str(t.title.as_ref());
    let description = &t.description;
    let flag = |f: &Option<Flag>| match f {
        Some(Flag { value }) => quote!(::mcp_server::__private::Option::Some(#value)),
        None => quote!(::mcp_server::__private::Option::None),
    };
    let (read_only, destructive, idempotent, open_world) = (
        flag(&t.read_only),
        flag(&t.destructive),
        flag(&t.idempotent),
        flag(&t.open_world),
    );
    let input = match &t.input_schema {
        Some(expr) => quote! {
            ::mcp_server::__private::raw_schema(#name, "input_schema", #expr)?
        },
        None => quote!(::mcp_server::__private::input_schema_for::<#args_ty>()),
    };
    let output = match (
        &t.output_schema,
        m.output.as_ref().and_then(|ty| nameable(ty, self_ty)),
    ) {
        (Some(expr), _) => quote! {
            tool.output_schema = ::mcp_server::__private::Option::Some(
                ::mcp_server::__private::raw_schema(#name, "output_schema", #expr)?
            );
        },
        // Asked of the return type's `IntoToolResult` impl; a type without one is reported
        // once, by the conversion of the result.
        (None, Some(ty)) => quote! {
            tool.output_schema = {
                use ::mcp_server::__private::{ConvertibleOutput as _, UnconvertibleOutput as _};
                (&&::mcp_server::__private::OutputProbe::<#ty>::new()).output_schema()
            };
        },
        (None, None) => TokenStream::new(),
    };
    let meta = t.meta.as_ref().map(|expr| {
        quote! {
            tool.meta = ::mcp_server::__private::Option::Some(
                ::mcp_server::__private::meta(#name, #expr)?
            );
        }
    });
    let icons = t.icons.as_ref().map(|expr| {
        quote! {
            tool.icons = ::mcp_server::__private::Option::Some(#expr);
        }
    });

    items.extend(quote! {
        impl #handler {
            fn descriptor() -> ::mcp_server::__private::Result<
                ::mcp_server::__private::Tool,
                ::mcp_server::__private::RegistryError,
            > {
                const SPEC: ::mcp_server::__private::ToolSpec = ::mcp_server::__private::ToolSpec {
                    name: #name,
                    title: #title,
                    description: #description,
                    read_only: #read_only,
                    destructive: #destructive,
                    idempotent: #idempotent,
                    open_world: #open_world,
                };
                static DESCRIPTOR: ::mcp_server::__private::OnceLock<
                    ::mcp_server::__private::Result<
                        ::mcp_server::__private::Tool,
                        ::mcp_server::__private::RegistryError,
                    >,
                > = ::mcp_server::__private::OnceLock::new();
                ::mcp_server::__private::cached(&DESCRIPTOR, || {
                    let mut tool = ::mcp_server::__private::tool(&SPEC, #input);
                    #output
                    #meta
                    #icons
                    ::mcp_server::__private::Result::Ok(tool)
                })
            }
        }

        #[automatically_derived]
        impl ::mcp_server::__private::ToolHandler for #handler {
            fn call(
                &self,
                arguments: ::mcp_server::__private::Option<&::mcp_server::__private::RawValue>,
                ctx: ::mcp_server::__private::Context,
            ) -> ::mcp_server::__private::BoxFuture<
                ::mcp_server::__private::Result<
                    ::mcp_server::__private::CallToolResult,
                    ::mcp_server::__private::HandlerError,
                >,
            > {
                let this = ::mcp_server::__private::Arc::clone(&self.0);
                let __parsed = ::mcp_server::__private::tool_arguments::<#args_ty>(arguments);
                ::mcp_server::__private::Box::pin(async move {
                    let __args = match __parsed {
                        ::mcp_server::__private::Result::Ok(args) => args,
                        ::mcp_server::__private::Result::Err(message) => {
                            return ::mcp_server::__private::Result::Ok(
                                ::mcp_server::__private::CallToolResult::error(message),
                            );
                        }
                    };
                    #lets
                    let __out = #call;
                    #convert
                })
            }
        }
    });

    let timeout = match &t.timeout_ms {
        Some(ms) => quote!(::mcp_server::__private::timeout(#ms)),
        None => quote!(::mcp_server::__private::Option::None),
    };
    let register = quote! {
        registry.add_tool(
            #handler::descriptor()?,
            #handler(::mcp_server::__private::Arc::clone(&this)),
            #timeout,
        )?;
    };
    (items, register)
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

/// `struct __McpArgs_x { ... }`: one field per argument, deserialized straight from the raw
/// JSON, unknown fields refused, descriptions and defaults in the schema.
fn args_struct_def(name: &syn::Ident, t: &ToolDef) -> TokenStream {
    let mut fields = Vec::new();
    let mut defaults = Vec::new();
    for p in &t.method.params {
        let ParamKind::Value(v) = &p.kind else {
            continue;
        };
        let id = &v.ident;
        let ty = &p.ty;
        let rename = v.rename.as_ref().map(|r| quote!(#[serde(rename = #r)]));
        let description = v
            .description
            .as_ref()
            .map(|d| quote!(#[schemars(description = #d)]));
        let default = v.default.as_ref().map(|expr| {
            let f = format_ident!("__default_{}", id.unraw());
            defaults.push(quote! {
                fn #f() -> #ty {
                    #expr
                }
            });
            let path = format!("{name}::{f}");
            quote!(#[serde(default = #path)])
        });
        fields.push(quote! {
            #rename
            #description
            #default
            #id: #ty
        });
    }
    let impl_defaults = (!defaults.is_empty()).then(|| {
        quote! {
            impl #name {
                #(#defaults)*
            }
        }
    });
    quote! {
        #[derive(
            ::mcp_server::__private::serde::Deserialize,
            ::mcp_server::__private::schemars::JsonSchema
        )]
        #[serde(
            crate = "::mcp_server::__private::serde",
            deny_unknown_fields,
            expecting = "an object of arguments"
        )]
        #[schemars(crate = "::mcp_server::__private::schemars")]
        struct #name {
            #(#fields,)*
        }
        #impl_defaults
    }
}
