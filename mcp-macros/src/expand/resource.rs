//! A `#[resource]`: a static resource (`resources/list`) or a template
//! (`resources/templates/list`) whose variables are parsed with `FromStr`.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Ident, Type};

use super::{arguments, handler_type, invoke, opt_str, opt_string, output_span};
use crate::model::{ParamKind, ResourceDef, ValueParam};

pub(crate) fn expand(self_ty: &Type, r: &ResourceDef) -> (TokenStream, TokenStream) {
    let (handler, mut items) = handler_type("Resource", &r.method, self_ty);
    let mime = opt_str(r.mime_type.as_ref());
    items.extend(spec(r, &handler, &mime));
    items.extend(handler_impl(self_ty, r, &handler, &mime));
    (items, register(r, &handler))
}

/// `impl Handler { const SPEC }`: the resource or template as it is listed.
fn spec(r: &ResourceDef, handler: &Ident, mime: &TokenStream) -> TokenStream {
    let uri = &r.uri;
    let name = &r.name.value;
    let title = opt_str(r.title.as_ref());
    let description = opt_string(r.description.as_ref());
    quote! {
        impl #handler {
            const SPEC: ::ferromcp::__private::ResourceSpec = ::ferromcp::__private::ResourceSpec {
                uri: #uri,
                name: #name,
                title: #title,
                description: #description,
                mime_type: #mime,
            };
        }
    }
}

/// The `ResourceHandler` impl: the template variables read, then the call in the future.
fn handler_impl(
    self_ty: &Type,
    r: &ResourceDef,
    handler: &Ident,
    mime: &TokenStream,
) -> TokenStream {
    let m = &r.method;
    // Template variables are read before the future starts (`vars` is borrowed) and their
    // errors are raised inside it, in parameter order.
    let mut reads = TokenStream::new();
    let on_error = quote!(return ::ferromcp::__private::Result::Err(e));
    let (lets, call_args) = arguments(m, &on_error, |i, p| {
        let ParamKind::Value(v) = &p.kind else {
            return TokenStream::new();
        };
        let var = format_ident!("__v{}", i);
        let read = read(&p.ty, v);
        reads.extend(quote!(let #var = #read;));
        quote!(#var?)
    });
    let call = invoke(self_ty, m, &call_args);
    let convert = quote_spanned!(output_span(m)=>
        ::ferromcp::__private::read_result(__out, &uri, #mime));
    quote! {
        #[automatically_derived]
        impl ::ferromcp::__private::ResourceHandler for #handler {
            fn read(
                &self,
                uri: &str,
                vars: &::ferromcp::__private::Match,
                ctx: ::ferromcp::__private::Context,
            ) -> ::ferromcp::__private::BoxFuture<
                ::ferromcp::__private::Result<
                    ::ferromcp::__private::ReadResourceResult,
                    ::ferromcp::__private::HandlerError,
                >,
            > {
                let this = ::ferromcp::__private::Arc::clone(&self.0);
                let uri = ::ferromcp::__private::String::from(uri);
                #reads
                ::ferromcp::__private::Box::pin(async move {
                    #lets
                    let __out = #call;
                    #convert
                })
            }
        }
    }
}

/// The variable read from the template match as `FromStr` (an `Option` or a defaulted one
/// may be absent).
fn read(ty: &Type, v: &ValueParam) -> TokenStream {
    let name = &v.name.value;
    match (&v.optional, &v.default) {
        (Some(inner), None) => quote_spanned!(inner.span()=>
                ::ferromcp::__private::uri_var_opt::<#inner>(vars, #name)),
        (Some(inner), Some(default)) => quote_spanned!(inner.span()=>
                ::ferromcp::__private::uri_var_opt::<#inner>(vars, #name)
                    .map(|v| v.or_else(|| #default))),
        (None, Some(default)) => {
            quote_spanned!(ty.span()=>
                    ::ferromcp::__private::uri_var_opt::<#ty>(vars, #name)
                        .map(|v| v.unwrap_or_else(|| #default)))
        }
        (None, None) => {
            quote_spanned!(ty.span()=> ::ferromcp::__private::uri_var::<#ty>(vars, #name))
        }
    }
}

/// The registration in `McpServer::register`: a static resource, a template, or a template
/// with variables exempt from the path check; with the scopes.
fn register(r: &ResourceDef, handler: &Ident) -> TokenStream {
    let kind = if r.is_template {
        "ResourceTemplate"
    } else {
        "Resource"
    };
    let key = r.uri.value();
    let scopes = super::require_scopes(kind, &key, &r.scopes);
    let descriptor = |f: TokenStream| {
        super::with_meta(
            quote!(::ferromcp::__private::#f(&#handler::SPEC)),
            &key,
            r.meta.as_ref(),
        )
    };
    let (template, resource) = (
        descriptor(quote!(resource_template)),
        descriptor(quote!(resource)),
    );
    let unchecked: Vec<&str> = r
        .method
        .values()
        .filter(|v| v.unchecked_path)
        .map(|v| v.name.value.as_str())
        .collect();
    if r.is_template && !unchecked.is_empty() {
        quote! {
            registry.add_resource_template_unchecked(
                #template,
                #handler(::ferromcp::__private::Arc::clone(&this)),
                &[#(#unchecked),*],
            )?;
            #scopes
        }
    } else if r.is_template {
        quote! {
            registry.add_resource_template(
                #template,
                #handler(::ferromcp::__private::Arc::clone(&this)),
            )?;
            #scopes
        }
    } else {
        quote! {
            registry.add_resource(
                #resource,
                #handler(::ferromcp::__private::Arc::clone(&this)),
            )?;
            #scopes
        }
    }
}
