//! `#[server]`: parse → model → validate → expand, with the fallback that keeps one mistake
//! to one error.

use proc_macro2::{Span, TokenStream};
use quote::{ToTokens, quote};
use syn::{FnArg, ImplItem, ItemImpl, MacroDelimiter, Meta, MetaList};

use crate::diag::Errors;
use crate::parse::{is_param_helper, method_kind};
use crate::{expand, parse, validate};

pub(crate) fn expand(args: TokenStream, input: TokenStream) -> TokenStream {
    let item: ItemImpl = match syn::parse2(input.clone()) {
        Ok(item) => item,
        Err(_) => {
            let error = syn::Error::new(
                Span::call_site(),
                "#[server] goes on an impl block of the server type: `#[server] impl MyServer { \
                 ... }`",
            )
            .to_compile_error();
            return quote!(#error #input);
        }
    };
    let mut errors = Errors::default();
    let def = parse::server(&item, args, &mut errors);
    if let Some(def) = &def {
        validate::check(def, &mut errors);
    }
    let is_stubbable = item.trait_.is_none() && item.generics.params.is_empty();
    let self_ty = (*item.self_ty).clone();
    let stripped = strip(item).into_token_stream();
    let part = def.as_ref().and_then(|d| d.args.part.clone());
    let out = match (errors.into_error(), def) {
        (None, Some(def)) => expand::server(&def, stripped),
        (Some(error), _) => expand::fallback(
            error,
            stripped,
            is_stubbable.then_some(&self_ty),
            part.as_ref(),
        ),
        // `parse::server` returns `None` only after reporting an error.
        (None, None) => stripped,
    };
    let scope = attribute_scope();
    let out = quote!(#scope #out);
    debug_print(&self_ty, &out);
    out
}

/// The marker `#[server]` leaves in the method attributes it has read, so that they expand
/// to nothing instead of reporting that they are outside a `#[server]` block.
pub(crate) const SEEN: &str = "__ferromcp_seen";

/// Emitted beside the impl block: a glob import of the method attributes. The `#[tool]`
/// left on a method resolves to the user's own import when there is one (an explicit
/// import shadows a glob, so it counts as used) and to this glob otherwise, so the
/// attributes work with or without `use ferromcp::prelude::*`.
fn attribute_scope() -> TokenStream {
    quote! {
        #[allow(unused_imports, clippy::wildcard_imports)]
        use ::ferromcp::__private::attributes::*;
    }
}

/// The impl block as the user wrote it, minus what only the macro reads: the arguments of
/// the method attributes (`#[tool(...)]` becomes `#[tool(__ferromcp_seen)]`: the attribute
/// itself stays, resolved through the user's import or [`attribute_scope`]) and, on their
/// parameters, `///` docs, `#[arg]`, `#[args]` and `#[extract]` (rustc rejects doc comments
/// on parameters after expansion).
fn strip(mut item: ItemImpl) -> ItemImpl {
    let marker: TokenStream = SEEN.parse().unwrap_or_default();
    for entry in &mut item.items {
        let ImplItem::Fn(f) = entry else { continue };
        if !f.attrs.iter().any(|a| method_kind(a).is_some()) {
            continue;
        }
        for attr in &mut f.attrs {
            if method_kind(attr).is_some() {
                attr.meta = Meta::List(MetaList {
                    path: attr.path().clone(),
                    delimiter: MacroDelimiter::Paren(Default::default()),
                    tokens: marker.clone(),
                });
            }
        }
        for input in &mut f.sig.inputs {
            if let FnArg::Typed(pt) = input {
                pt.attrs.retain(|a| !is_param_helper(a));
            }
        }
    }
    item
}

/// `MCP_MACROS_DEBUG=1` prints every expansion to stderr; `MCP_MACROS_DEBUG=Name` only the
/// one for the type `Name`.
fn debug_print(self_ty: &syn::Type, out: &TokenStream) {
    let Some(wanted) = std::env::var_os("MCP_MACROS_DEBUG") else {
        return;
    };
    let ty = self_ty.to_token_stream().to_string();
    if wanted == "1" || wanted.to_str() == Some(ty.as_str()) {
        // Printing is this switch's whole purpose; it is off unless the variable is set.
        #[allow(clippy::print_stderr)]
        {
            eprintln!("// #[ferromcp::server] expansion for `{ty}`\n{out}\n");
        }
    }
}

/// The method attributes only mean something to `#[server]`, which reads them and leaves
/// its marker in their place; without the marker the item is not inside a `#[server]` block.
pub(crate) fn misplaced(name: &str, args: TokenStream, input: TokenStream) -> TokenStream {
    if args.to_string() == SEEN {
        return input;
    }
    let error = syn::Error::new(
        Span::call_site(),
        format!(
            "#[{name}] only works on a method inside a `#[server]` impl block: add \
             `#[ferromcp::server]` to the `impl` that contains it"
        ),
    )
    .to_compile_error();
    quote!(#error #input)
}
