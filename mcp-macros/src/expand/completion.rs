//! A `#[completion]`: suggestions for one prompt argument or template variable. Completion
//! is a hint, so an extractor failure answers with no values rather than an error.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::Type;

use super::{arguments, handler_type, invoke, output_span};
use crate::model::{CompletionDef, CompletionTarget};

pub(crate) fn expand(self_ty: &Type, c: &CompletionDef) -> (TokenStream, TokenStream) {
    let m = &c.method;
    let (handler, mut items) = handler_type("Completion", m, self_ty);
    let on_error = quote!(return ::ferromcp::__private::Vec::new());
    let (lets, call_args) = arguments(m, &on_error, |_, _| quote!(value));
    let call = invoke(self_ty, m, &call_args);
    let convert = quote_spanned!(output_span(m)=> ::ferromcp::__private::completion(__out));
    items.extend(quote! {
        #[automatically_derived]
        impl ::ferromcp::__private::CompletionHandler for #handler {
            fn complete(
                &self,
                value: &str,
                context: &::ferromcp::__private::BTreeMap<
                    ::ferromcp::__private::String,
                    ::ferromcp::__private::String,
                >,
                ctx: ::ferromcp::__private::Context,
            ) -> ::ferromcp::__private::BoxFuture<
                ::ferromcp::__private::Vec<::ferromcp::__private::String>,
            > {
                let this = ::ferromcp::__private::Arc::clone(&self.0);
                let value = ::ferromcp::__private::String::from(value);
                ::ferromcp::__private::Box::pin(async move {
                    #lets
                    let __out = #call;
                    #convert
                })
            }
        }
    });
    let target = match &c.target {
        CompletionTarget::Prompt(name) => quote!(::ferromcp::__private::prompt_target(#name)),
        CompletionTarget::Resource(uri) => {
            quote!(::ferromcp::__private::template_target(#uri))
        }
    };
    let argument = &c.argument;
    let register = quote! {
        registry.add_completion(
            #target,
            #argument,
            #handler(::ferromcp::__private::Arc::clone(&this)),
        );
    };
    (items, register)
}
