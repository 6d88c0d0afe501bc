//! From the validated model to Rust: the `McpServer` impl and one hidden handler type per
//! primitive, inside `const _: () = { ... }`, reaching the runtime only through
//! `::ferromcp::__private` paths.

mod completion;
mod prompt;
mod resource;
mod tool;

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::ext::IdentExt as _;
use syn::spanned::Spanned;
use syn::{Attribute, Expr, Ident, LitStr, Type};

use crate::model::{Method, ParamKind, Receiver, ServerDef};

/// The lints generated code never triggers in users' builds.
fn allow_lints() -> TokenStream {
    quote! {
        #[allow(
            non_camel_case_types,
            non_snake_case,
            non_upper_case_globals,
            unused,
            unused_qualifications,
            missing_docs,
            clippy::all,
            clippy::pedantic,
            clippy::nursery
        )]
    }
}

/// The impl block (already stripped of the macros' attributes) and everything generated.
pub(crate) fn server(def: &ServerDef, item: TokenStream) -> TokenStream {
    let self_ty = &def.self_ty;
    let mut items = TokenStream::new();
    let mut register = TokenStream::new();
    let mut add = |method: &Method, (i, r): (TokenStream, TokenStream)| {
        items.extend(with_cfg(&method.cfg, i));
        let cfg = &method.cfg;
        register.extend(quote!(#(#cfg)* { #r }));
    };
    for t in &def.tools {
        add(&t.method, tool::expand(self_ty, t));
    }
    for r in &def.resources {
        add(&r.method, resource::expand(self_ty, r));
    }
    for p in &def.prompts {
        add(&p.method, prompt::expand(self_ty, p));
    }
    for c in &def.completions {
        add(&c.method, completion::expand(self_ty, c));
    }
    let info = server_info(def);
    let instructions = match &def.args.instructions {
        Some(text) => quote! {
            fn instructions() -> ::ferromcp::__private::Option<&'static str> {
                ::ferromcp::__private::Option::Some(#text)
            }
        },
        None => TokenStream::new(),
    };
    let default_scopes = (!def.args.scopes.is_empty()).then(|| {
        let scopes = &def.args.scopes;
        quote!(registry.set_default_scopes([#(#scopes),*]);)
    });
    let parts = def.args.parts.iter().map(|p| {
        let f = part_fn(p);
        quote_spanned!(p.span()=> Self::#f(::ferromcp::__private::Arc::clone(&this), registry)?;)
    });
    let register = quote! {
        #default_scopes
        #register
        #(#parts)*
    };
    let server = match &def.args.part {
        Some(part) => part_impl(self_ty, part, &register),
        None => quote! {
            #[automatically_derived]
            impl ::ferromcp::__private::McpServer for #self_ty {
                #info
                #instructions

                fn register(
                    this: ::ferromcp::__private::Arc<Self>,
                    registry: &::ferromcp::__private::Registry,
                ) -> ::ferromcp::__private::Result<(), ::ferromcp::__private::RegistryError> {
                    #register
                    ::ferromcp::__private::Result::Ok(())
                }
            }
        },
    };
    let lints = allow_lints();
    quote! {
        #item

        #[doc(hidden)]
        #lints
        const _: () = {
            #items
            #server
        };
    }
}

/// The hidden function that registers the part `part` of a type (`#[server(part = …)]`).
fn part_fn(part: &Ident) -> Ident {
    format_ident!("__ferromcp_part_{}", part.unraw())
}

/// What a `part` block emits in place of the `McpServer` impl: its registration, for the
/// main block that names it in `parts(...)`.
fn part_impl(self_ty: &Type, part: &Ident, register: &TokenStream) -> TokenStream {
    let f = part_fn(part);
    quote! {
        #[automatically_derived]
        impl #self_ty {
            #[doc(hidden)]
            pub(crate) fn #f(
                this: ::ferromcp::__private::Arc<Self>,
                registry: &::ferromcp::__private::Registry,
            ) -> ::ferromcp::__private::Result<(), ::ferromcp::__private::RegistryError> {
                ::ferromcp::__private::register_part(registry, |registry| {
                    #register
                    ::ferromcp::__private::Result::Ok(())
                })
            }
        }
    }
}

/// Registers the scopes an item needs (`kind` names a `ScopedItem` variant); nothing when
/// there are none.
pub(crate) fn require_scopes(kind: &str, key: &str, scopes: &[LitStr]) -> Option<TokenStream> {
    if scopes.is_empty() {
        return None;
    }
    let kind = Ident::new(kind, Span::call_site());
    Some(quote! {
        registry.require_scopes(
            ::ferromcp::__private::ScopedItem::#kind(#key),
            [#(#scopes),*],
        );
    })
}

/// `target.meta = Some(…);`: the `_meta` given as `meta = …`, checked to be a JSON object
/// when the item is registered (`key` names the item in the error).
pub(crate) fn set_meta(target: &Ident, key: &str, meta: &Expr) -> TokenStream {
    quote! {
        #target.meta = ::ferromcp::__private::Option::Some(
            ::ferromcp::__private::meta(#key, #meta)?
        );
    }
}

/// The `descriptor` expression, with its `_meta` set when the attribute gives one.
pub(crate) fn with_meta(descriptor: TokenStream, key: &str, meta: Option<&Expr>) -> TokenStream {
    let Some(meta) = meta else {
        return descriptor;
    };
    let target = Ident::new("__descriptor", Span::call_site());
    let set = set_meta(&target, key, meta);
    quote!({
        let mut #target = #descriptor;
        #set
        #target
    })
}

fn server_info(def: &ServerDef) -> TokenStream {
    let name = match &def.args.name {
        Some(n) => quote!(#n),
        None => quote!(::core::env!("CARGO_PKG_NAME")),
    };
    let version = match &def.args.version {
        Some(v) => quote!(#v),
        None => quote!(::core::env!("CARGO_PKG_VERSION")),
    };
    let title = opt_str(def.args.title.as_ref());
    quote! {
        fn server_info() -> ::ferromcp::__private::Implementation {
            ::ferromcp::__private::implementation(#name, #version, #title)
        }
    }
}

/// What is emitted when the macro found mistakes: the errors, the user's impl block
/// (stripped of the macros' attributes, so it compiles as written) and a stub `McpServer`
/// impl, so that code using the type as a server reports nothing more.
pub(crate) fn fallback(
    error: syn::Error,
    item: TokenStream,
    self_ty: Option<&Type>,
    part: Option<&Ident>,
) -> TokenStream {
    let errors = error.to_compile_error();
    let stub = self_ty.map(|ty| {
        let lints = allow_lints();
        if let Some(part) = part {
            let stub = part_impl(ty, part, &TokenStream::new());
            return quote!(#[doc(hidden)] #lints const _: () = { #stub };);
        }
        quote! {
            #[doc(hidden)]
            #lints
            const _: () = {
                impl ::ferromcp::__private::McpServer for #ty {
                    fn server_info() -> ::ferromcp::__private::Implementation {
                        ::ferromcp::__private::implementation("", "", ::ferromcp::__private::Option::None)
                    }
                    fn register(
                        this: ::ferromcp::__private::Arc<Self>,
                        registry: &::ferromcp::__private::Registry,
                    ) -> ::ferromcp::__private::Result<(), ::ferromcp::__private::RegistryError> {
                        ::ferromcp::__private::Result::Ok(())
                    }
                }
            };
        }
    });
    quote! {
        #errors
        #item
        #stub
    }
}

/// `items` with the method's `#[cfg]` attributes on each of them, so that a method compiled
/// out takes its handler, arguments struct and registration with it.
fn with_cfg(cfg: &[Attribute], items: TokenStream) -> TokenStream {
    if cfg.is_empty() {
        return items;
    }
    match syn::parse2::<syn::File>(items) {
        Ok(file) => file
            .items
            .iter()
            .map(|item| quote!(#(#cfg)* #item))
            .collect(),
        // Generated items always parse; should one not, rustc reports it at the item.
        Err(e) => e.to_compile_error(),
    }
}

/// `Some("…")` or `None`.
pub(crate) fn opt_str(lit: Option<&LitStr>) -> TokenStream {
    match lit {
        Some(l) => quote!(::ferromcp::__private::Option::Some(#l)),
        None => quote!(::ferromcp::__private::Option::None),
    }
}

/// `Some("…")` or `None` from a computed string.
pub(crate) fn opt_string(s: Option<&String>) -> TokenStream {
    match s {
        Some(s) => quote!(::ferromcp::__private::Option::Some(#s)),
        None => quote!(::ferromcp::__private::Option::None),
    }
}

/// The hidden handler type of a primitive: a newtype over the shared server.
pub(crate) fn handler_type(prefix: &str, method: &Method, self_ty: &Type) -> (Ident, TokenStream) {
    let name = format_ident!("__Mcp{}_{}", prefix, method.ident.unraw());
    let def = quote! {
        struct #name(::ferromcp::__private::Arc<#self_ty>);
    };
    (name, def)
}

/// The extractors' `let` statements (in the handler's async block, where `ctx` is owned) and
/// the call's argument list, with `value(param index, param)` giving the other arguments.
pub(crate) fn arguments(
    method: &Method,
    on_error: &TokenStream,
    mut value: impl FnMut(usize, &crate::model::Param) -> TokenStream,
) -> (TokenStream, Vec<TokenStream>) {
    let mut lets = TokenStream::new();
    let mut args = Vec::new();
    for (i, p) in method.params.iter().enumerate() {
        match &p.kind {
            ParamKind::Extractor => {
                let x = format_ident!("__x{}", i);
                let ty = &p.ty;
                let extract =
                    quote_spanned!(ty.span()=> ::ferromcp::__private::extract::<#ty>(&ctx));
                lets.extend(quote! {
                    let #x = match #extract {
                        ::ferromcp::__private::Result::Ok(v) => v,
                        ::ferromcp::__private::Result::Err(e) => #on_error,
                    };
                });
                args.push(quote!(#x));
            }
            _ => args.push(value(i, p)),
        }
    }
    (lets, args)
}

/// The call of the user's method, awaited when it is async (and checked to be `Send`, with
/// the error at the method's name); with `blocking`, run on tokio's blocking pool.
pub(crate) fn invoke(self_ty: &Type, method: &Method, args: &[TokenStream]) -> TokenStream {
    let ident = &method.ident;
    let receiver = match method.receiver {
        Receiver::Ref => quote!(&*this),
        Receiver::Arc => quote!(this),
    };
    let span = ident.span();
    if method.blocking {
        // On the blocking pool: the arguments are evaluated here (they may return early with
        // an error), then the closure owns them and the server handle.
        let locals: Vec<_> = (0..args.len()).map(|i| format_ident!("__b{}", i)).collect();
        let call = quote_spanned!(span=> <#self_ty>::#ident(#receiver, #(#locals),*));
        let call = if method.is_async {
            quote_spanned!(span=> ::ferromcp::__private::block_on(#call))
        } else {
            call
        };
        return quote_spanned! {span=> {
            #(let #locals = #args;)*
            ::ferromcp::__private::blocking(move || #call).await
        }};
    }
    let call = quote_spanned!(span=> <#self_ty>::#ident(#receiver, #(#args),*));
    if method.is_async {
        quote_spanned!(span=> ::ferromcp::__private::send(#call).await)
    } else {
        call
    }
}

/// The span of the return type (for trait errors about it), or the method's name.
pub(crate) fn output_span(method: &Method) -> Span {
    method
        .output
        .as_ref()
        .map_or_else(|| method.ident.span(), Spanned::span)
}
