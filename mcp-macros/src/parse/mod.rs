//! From the impl block's syntax to the typed model. What the model can hold but the macro
//! refuses is checked in [`validate`], called at the point each fact is known.

mod params;
mod primitives;

use proc_macro2::TokenStream;
use syn::{Attribute, ImplItem, ImplItemFn, ItemImpl, ReturnType};

use crate::attrs;
use crate::diag::Errors;
use crate::docs;
use crate::model::*;
use crate::validate;

/// `#[tool]`, `#[ferromcp::tool]`, … on a method.
pub(crate) fn method_kind(attr: &Attribute) -> Option<Kind> {
    let path = attr.path();
    let last = path.segments.last()?;
    let ours =
        path.segments.len() == 1 || path.segments.first().is_some_and(|s| s.ident == "ferromcp");
    if !ours {
        return None;
    }
    match last.ident.to_string().as_str() {
        "tool" => Some(Kind::Tool),
        "resource" => Some(Kind::Resource),
        "prompt" => Some(Kind::Prompt),
        "completion" => Some(Kind::Completion),
        _ => None,
    }
}

/// Attributes on parameters that `#[server]` reads and removes.
pub(crate) fn is_param_helper(attr: &Attribute) -> bool {
    docs::is_doc(attr)
        || ["arg", "args", "extract"]
            .iter()
            .any(|name| attr.path().is_ident(name))
}

pub(crate) fn server(item: &ItemImpl, args: TokenStream, errors: &mut Errors) -> Option<ServerDef> {
    let args = attrs::server(args, errors);
    if let Some((path, _)) = &item.trait_ {
        errors.on(
            path,
            "#[server] goes on an inherent impl block (`impl MyServer { ... }`), not on a trait \
             impl",
        );
        return None;
    }
    if !item.generics.params.is_empty() || item.generics.where_clause.is_some() {
        errors.on(
            &item.generics,
            "#[server] does not support generic impl blocks: implement it for a concrete type",
        );
        return None;
    }
    let mut def = ServerDef {
        self_ty: (*item.self_ty).clone(),
        args,
        tools: Vec::new(),
        resources: Vec::new(),
        prompts: Vec::new(),
        completions: Vec::new(),
        broken: Vec::new(),
    };
    for entry in &item.items {
        let ImplItem::Fn(f) = entry else { continue };
        add_method(&mut def, f, errors);
    }
    Some(def)
}

/// The method into `def` when a method attribute marks it; a method left out after an
/// error keeps its resource URI or prompt name in `def.broken`.
fn add_method(def: &mut ServerDef, f: &ImplItemFn, errors: &mut Errors) {
    let mut kinds = f
        .attrs
        .iter()
        .filter_map(|a| method_kind(a).map(|k| (a, k)));
    let Some((attr, kind)) = kinds.next() else {
        return;
    };
    if let Some((second, _)) = kinds.next() {
        errors.on(
            second,
            format!(
                "`{}` is already {}: a method declares one primitive; write a separate \
                 method for this one",
                f.sig.ident,
                kind.attr()
            ),
        );
        return;
    }
    let mut local = Errors::default();
    let method = method(f, kind, &mut local);
    match kind {
        Kind::Tool => {
            if let Some(t) = primitives::tool(f, attr, method, &mut local) {
                def.tools.push(t);
            }
        }
        Kind::Resource => match primitives::resource(f, attr, method, &mut local) {
            Some(r) => def.resources.push(r),
            None => {
                let uri = attrs::resource(attr, &mut Errors::default()).uri;
                def.broken.extend(uri.map(|u| u.value()));
            }
        },
        Kind::Prompt => match primitives::prompt(f, attr, method, &mut local) {
            Some(p) => def.prompts.push(p),
            None => {
                let name = attrs::prompt(attr, &mut Errors::default()).name;
                def.broken
                    .push(primitives::name_or_default(name.as_ref(), f).value);
            }
        },
        Kind::Completion => {
            if let Some(c) = primitives::completion(f, attr, method, &mut local) {
                def.completions.push(c);
            }
        }
    }
    if let Some(e) = local.into_error() {
        errors.push(e);
    }
}

/// The receiver and the parameters, after the signature checks every kind shares. `None`
/// when the signature is unusable (errors reported).
fn method(f: &ImplItemFn, kind: Kind, errors: &mut Errors) -> Option<Method> {
    let sig = &f.sig;
    let what = kind.attr();
    let ok = validate::signature(sig, what, errors);
    let receiver = params::receiver(sig, what, errors);
    let params = params::params(f, kind, errors);
    let output = match &sig.output {
        ReturnType::Default => None,
        ReturnType::Type(_, ty) => Some((**ty).clone()),
    };
    match (receiver, params) {
        (Some(receiver), Some(params)) if ok => Some(Method {
            ident: sig.ident.clone(),
            cfg: f
                .attrs
                .iter()
                .filter(|a| a.path().is_ident("cfg"))
                .cloned()
                .collect(),
            receiver,
            is_async: sig.asyncness.is_some(),
            blocking: false,
            output,
            params,
        }),
        _ => None,
    }
}
