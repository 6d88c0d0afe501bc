//! A `#[prompt]`: its arguments (`FromStr` values, required unless `Option` or defaulted),
//! its extractors (told apart by their types' traits) and the `PromptHandler` impl.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Ident, Type};

use super::{arguments, handler_type, invoke, opt_str, opt_string, output_span};
use crate::model::{ParamKind, PromptDef, ValueParam};

pub(crate) fn expand(self_ty: &Type, p: &PromptDef) -> (TokenStream, TokenStream) {
    let m = &p.method;
    let (handler, mut items) = handler_type("Prompt", m, self_ty);

    let mut args = Arguments::default();
    let on_error = quote!(return ::ferromcp::__private::Result::Err(e));
    let (lets, call_args) = arguments(m, &on_error, |i, param| {
        let ParamKind::Value(v) = &param.kind else {
            return TokenStream::new();
        };
        args.add(&handler, i, &param.ty, v)
    });
    let call = invoke(self_ty, m, &call_args);
    let convert = quote_spanned!(output_span(m)=> ::ferromcp::__private::prompt_result(__out));
    let body = quote! {
        #lets
        let __out = #call;
        #convert
    };
    items.extend(spec(p, &handler, &args));
    items.extend(handler_impl(&handler, &args.reads, &body));
    (items, register(p, &handler))
}

/// What is generated for the prompt's arguments, one by one.
#[derive(Default)]
struct Arguments {
    /// `let __a{i} = …;`: each argument read from the request.
    reads: TokenStream,
    /// Each argument's `ArgumentSpec`, in order.
    specs: Vec<TokenStream>,
    /// `__pops{i}()` and `__parg{i}()` for the arguments their types' traits decide.
    probes: TokenStream,
}

impl Arguments {
    /// The argument `i` (of type `ty`); returns what the call passes for it.
    fn add(&mut self, handler: &Ident, i: usize, ty: &Type, v: &ValueParam) -> TokenStream {
        let var = format_ident!("__a{}", i);
        let name = &v.name.value;
        // Neither `Option`, defaulted nor marked #[arg]: an extractor or an argument as its
        // type's traits say, asked once in `__pops{i}` (spanned at the type, so a type that
        // is neither is one error there).
        let probed = v.optional.is_none() && v.default.is_none() && !v.explicit;
        let (pops, parg) = (format_ident!("__pops{}", i), format_ident!("__parg{}", i));
        if probed {
            let probe = quote_spanned! {ty.span()=>
                {
                    use ::ferromcp::__private::{
                        PromptArgParam as _, PromptExtractParam as _, UnusablePromptParam as _,
                    };
                    (&&&::ferromcp::__private::PromptParam::<#ty>::new()).ops()
                }
            };
            self.probes.extend(quote! {
                fn #pops() -> ::ferromcp::__private::PromptOps<#ty> {
                    #probe
                }
                fn #parg() -> bool {
                    #handler::#pops().argument
                }
            });
        }
        let read = read(handler, &pops, probed, ty, v);
        self.reads.extend(quote!(let #var = #read;));
        let description = opt_string(v.description.as_ref());
        let required = v.optional.is_none() && v.default.is_none();
        let argument = if probed {
            quote!(#handler::#parg)
        } else {
            quote!(|| true)
        };
        self.specs.push(quote! {
            ::ferromcp::__private::ArgumentSpec {
                name: #name,
                description: #description,
                required: #required,
                argument: #argument,
            }
        });
        quote!(#var?)
    }
}

/// How the argument is read from the request: through its probe, or as `FromStr` (an
/// `Option` or a defaulted one may be absent).
fn read(handler: &Ident, pops: &Ident, probed: bool, ty: &Type, v: &ValueParam) -> TokenStream {
    let name = &v.name.value;
    match (&v.optional, &v.default) {
        _ if probed => quote!((#handler::#pops().take)(arguments, &ctx, #name)),
        (Some(inner), None) => quote_spanned!(inner.span()=>
                ::ferromcp::__private::prompt_arg_opt::<#inner>(arguments, #name)),
        (Some(inner), Some(default)) => quote_spanned!(inner.span()=>
                ::ferromcp::__private::prompt_arg_opt::<#inner>(arguments, #name)
                    .map(|v| v.or_else(|| #default))),
        (None, Some(default)) => {
            quote_spanned!(ty.span()=>
                    ::ferromcp::__private::prompt_arg_opt::<#ty>(arguments, #name)
                        .map(|v| v.unwrap_or_else(|| #default)))
        }
        (None, None) => {
            quote_spanned!(ty.span()=>
                    ::ferromcp::__private::prompt_arg::<#ty>(arguments, #name))
        }
    }
}

/// `impl Handler { const SPEC }`: the prompt as `prompts/list` shows it.
fn spec(p: &PromptDef, handler: &Ident, args: &Arguments) -> TokenStream {
    let name = &p.name.value;
    let title = opt_str(p.title.as_ref());
    let description = &p.description;
    let Arguments { probes, specs, .. } = args;
    quote! {
        impl #handler {
            #probes
            const SPEC: ::ferromcp::__private::PromptSpec = ::ferromcp::__private::PromptSpec {
                name: #name,
                title: #title,
                description: #description,
                arguments: &[#(#specs),*],
            };
        }
    }
}

/// The `PromptHandler` impl: the arguments read from the request, then `body` (the
/// extractors and the call) in the future.
fn handler_impl(handler: &Ident, reads: &TokenStream, body: &TokenStream) -> TokenStream {
    quote! {
        #[automatically_derived]
        impl ::ferromcp::__private::PromptHandler for #handler {
            fn get(
                &self,
                arguments: &::ferromcp::__private::BTreeMap<
                    ::ferromcp::__private::String,
                    ::ferromcp::__private::String,
                >,
                ctx: ::ferromcp::__private::Context,
            ) -> ::ferromcp::__private::BoxFuture<
                ::ferromcp::__private::Result<
                    ::ferromcp::__private::GetPromptResult,
                    ::ferromcp::__private::HandlerError,
                >,
            > {
                let this = ::ferromcp::__private::Arc::clone(&self.0);
                #reads
                ::ferromcp::__private::Box::pin(async move {
                    #body
                })
            }
        }
    }
}

/// The registration in `McpServer::register`, with the scopes.
fn register(p: &PromptDef, handler: &Ident) -> TokenStream {
    let scopes = super::require_scopes("Prompt", &p.name.value, &p.scopes);
    let descriptor = super::with_meta(
        quote!(::ferromcp::__private::prompt(&#handler::SPEC)),
        &p.name.value,
        p.meta.as_ref(),
    );
    quote! {
        registry.add_prompt(
            #descriptor,
            #handler(::ferromcp::__private::Arc::clone(&this)),
        )?;
        #scopes
    }
}
