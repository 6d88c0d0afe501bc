//! A `#[prompt]`: its arguments (`FromStr` values, required unless `Option` or defaulted),
//! its extractors (told apart by their types' traits) and the `PromptHandler` impl.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::Type;
use syn::spanned::Spanned;

use super::{arguments, handler_type, invoke, opt_str, opt_string, output_span};
use crate::model::{ParamKind, PromptDef};

pub(crate) fn expand(self_ty: &Type, p: &PromptDef) -> (TokenStream, TokenStream) {
    let m = &p.method;
    let (handler, mut items) = handler_type("Prompt", m, self_ty);

    let mut reads = TokenStream::new();
    let mut specs = Vec::new();
    let mut probes = TokenStream::new();
    let on_error = quote!(return ::ferromcp::__private::Result::Err(e));
    let (lets, call_args) = arguments(m, &on_error, |i, param| {
        let ParamKind::Value(v) = &param.kind else {
            return TokenStream::new();
        };
        let var = format_ident!("__a{}", i);
        let name = &v.name.value;
        // Neither `Option`, defaulted nor marked #[arg]: an extractor or an argument as its
        // type's traits say, asked once in `__pops{i}` (spanned at the type, so a type that
        // is neither is one error there).
        let probed = v.optional.is_none() && v.default.is_none() && !v.explicit;
        let (pops, parg) = (format_ident!("__pops{}", i), format_ident!("__parg{}", i));
        if probed {
            let ty = &param.ty;
            let probe = quote_spanned! {ty.span()=>
                {
                    use ::ferromcp::__private::{
                        PromptArgParam as _, PromptExtractParam as _, UnusablePromptParam as _,
                    };
                    (&&&::ferromcp::__private::PromptParam::<#ty>::new()).ops()
                }
            };
            probes.extend(quote! {
                fn #pops() -> ::ferromcp::__private::PromptOps<#ty> {
                    #probe
                }
                fn #parg() -> bool {
                    #handler::#pops().argument
                }
            });
        }
        let read = match (&v.optional, &v.default) {
            _ if probed => quote!((#handler::#pops().take)(arguments, &ctx, #name)),
            (Some(inner), None) => quote_spanned!(inner.span()=>
                ::ferromcp::__private::prompt_arg_opt::<#inner>(arguments, #name)),
            (Some(inner), Some(default)) => quote_spanned!(inner.span()=>
                ::ferromcp::__private::prompt_arg_opt::<#inner>(arguments, #name)
                    .map(|v| v.or_else(|| #default))),
            (None, Some(default)) => {
                let ty = &param.ty;
                quote_spanned!(ty.span()=>
                    ::ferromcp::__private::prompt_arg_opt::<#ty>(arguments, #name)
                        .map(|v| v.unwrap_or_else(|| #default)))
            }
            (None, None) => {
                let ty = &param.ty;
                quote_spanned!(ty.span()=>
                    ::ferromcp::__private::prompt_arg::<#ty>(arguments, #name))
            }
        };
        reads.extend(quote!(let #var = #read;));
        let description = opt_string(v.description.as_ref());
        let required = v.optional.is_none() && v.default.is_none();
        let argument = if probed {
            quote!(#handler::#parg)
        } else {
            quote!(|| true)
        };
        specs.push(quote! {
            ::ferromcp::__private::ArgumentSpec {
                name: #name,
                description: #description,
                required: #required,
                argument: #argument,
            }
        });
        quote!(#var?)
    });
    let call = invoke(self_ty, m, &call_args);
    let convert = quote_spanned!(output_span(m)=> ::ferromcp::__private::prompt_result(__out));

    let name = &p.name.value;
    let title = opt_str(p.title.as_ref());
    let description = &p.description;
    items.extend(quote! {
        impl #handler {
            #probes
            const SPEC: ::ferromcp::__private::PromptSpec = ::ferromcp::__private::PromptSpec {
                name: #name,
                title: #title,
                description: #description,
                arguments: &[#(#specs),*],
            };
        }

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
                    #lets
                    let __out = #call;
                    #convert
                })
            }
        }
    });

    let scopes = super::require_scopes("Prompt", &p.name.value, &p.scopes);
    let register = quote! {
        registry.add_prompt(
            ::ferromcp::__private::prompt(&#handler::SPEC),
            #handler(::ferromcp::__private::Arc::clone(&this)),
        )?;
        #scopes
    };
    (items, register)
}
