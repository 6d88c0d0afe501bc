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
    let on_error = quote!(return ::mcp_server::__private::Vec::new());
    let (lets, call_args) = arguments(m, &on_error, |_, _| quote!(value));
    let call = invoke(self_ty, m, &call_args);
    let convert = quote_spanned!(output_span(m)=> ::mcp_server::__private::completion(__out));
    items.extend(quote! {
        #[automatically_derived]
        impl ::mcp_server::__private::CompletionHandler for #handler {
            fn complete(
                &self,
                value: &str,
                context: &::mcp_server::__private::BTreeMap<
                    ::mcp_server::__private::String,
                    ::mcp_server::__private::String,
                >,
                ctx: ::mcp_server::__private::Context,
            ) -> ::mcp_server::__private::BoxFuture<
                ::mcp_server::__private::Vec<::mcp_server::__private::String>,
            > {
                let this = ::mcp_server::__private::Arc::clone(&self.0);
                let value = ::mcp_server::__private::String::from(value);
                ::mcp_server::__private::Box::pin(async move {
                    #lets
                    let __out = #call;
                    #convert
                })
            }
        }
    });
    let target = match &c.target {
        CompletionTarget::Prompt(name) => quote!(::mcp_server::__private::prompt_target(#name)),
        CompletionTarget::Resource(uri) => {
            quote!(::mcp_server::__private::template_target(#uri))
        }
    };
    let argument = &c.argument;
    let register = quote! {
        registry.add_completion(
            #target,
            #argument,
            #handler(::mcp_server::__private::Arc::clone(&this)),
        );
    };
    (items, register)
}
