//! The signature and the parameters, as every kind of method shares them: generics and
//! `unsafe`, the helper attributes of each parameter, its type, its wire name and header.

use syn::ext::IdentExt as _;
use syn::{Attribute, FnArg, ImplItemFn, Pat, Signature, Type};

use crate::attrs::ArgArgs;
use crate::diag::{Errors, closest};
use crate::docs::ArgumentDoc;
use crate::model::Kind;
use crate::model::{Param, ParamKind};
use crate::types;

/// Generics and `unsafe`, which no kind of method may have. `false` when either is there.
pub(crate) fn signature(sig: &Signature, what: &str, errors: &mut Errors) -> bool {
    let mut ok = true;
    if !sig.generics.params.is_empty() || sig.generics.where_clause.is_some() {
        let msg = format!(
            "a {what} method cannot be generic: the schema and the dispatch are generated for \
             concrete types; replace the type parameters with concrete types"
        );
        if sig.generics.params.is_empty() {
            errors.on(&sig.generics.where_clause, msg);
        } else {
            errors.on(&sig.generics, msg);
        }
        ok = false;
    }
    if let syn::Safety::Unsafe(token) = &sig.safety {
        errors.on(
            token,
            format!("a {what} method cannot be `unsafe`: the server calls it for any client"),
        );
        ok = false;
    }
    ok
}

/// An extractor parameter is not part of the input, so it takes no `#[arg]` and no `#[args]`.
pub(crate) fn extractor_param(
    arg: Option<&Attribute>,
    extract: Option<&Attribute>,
    args: Option<&Attribute>,
    errors: &mut Errors,
) -> bool {
    let mut ok = true;
    if let Some(attr) = arg {
        errors.on(
            attr,
            "#[arg] does not apply to an extractor parameter (it is not part of the \
             input); remove it",
        );
        ok = false;
    }
    if let (Some(_), Some(a)) = (extract, args) {
        errors.on(a, "a parameter is either #[args] or #[extract], not both");
        ok = false;
    }
    ok
}

/// An `#[args]` parameter (`args`): only on a tool, without `#[arg]`, of a type that can be
/// deserialized.
pub(crate) fn args_param(
    args: &Attribute,
    arg: Option<&Attribute>,
    ty: &Type,
    kind: Kind,
    errors: &mut Errors,
) -> bool {
    let what = kind.attr();
    if kind != Kind::Tool {
        errors.on(
            args,
            format!(
                "#[args] is for tools only; the parameters of a {what} are its \
                 arguments one by one"
            ),
        );
        false
    } else if let Some(attr) = arg {
        errors.on(
            attr,
            "#[arg] does not apply to an #[args] struct: put `///` docs and \
             `#[serde(...)]` attributes on the struct's fields",
        );
        false
    } else {
        param_type(ty, errors)
    }
}

/// A parameter read from the request must be of a type it can be deserialized into.
pub(crate) fn param_type(ty: &Type, errors: &mut Errors) -> bool {
    match types::unsupported(ty) {
        Some((bad, msg)) => {
            errors.on(bad, msg);
            false
        }
        None => true,
    }
}

/// The `#[arg]` keys a value parameter of this kind of method can use.
pub(crate) fn value_arg(arg: &ArgArgs, kind: Kind, errors: &mut Errors) -> bool {
    let mut ok = true;
    if kind == Kind::Completion
        && let Some(r) = arg.rename.as_ref().or(arg.description.as_ref())
    {
        errors.on(r, "#[arg] does not apply to the value of a #[completion]");
        ok = false;
    }
    if kind == Kind::Resource
        && let Some(d) = &arg.description
    {
        errors.on(
            d,
            "URI template variables have no description: describe the resource instead",
        );
        ok = false;
    }
    if let Some(key) = &arg.unchecked_path
        && kind != Kind::Resource
    {
        errors.on(
            key,
            "#[arg(unchecked_path)] exempts a URI template variable from the path check; it \
             applies to #[resource] template variables only",
        );
        ok = false;
    }
    if let Some(h) = &arg.header {
        if kind != Kind::Tool {
            errors.on(
                h,
                "#[arg(header)] mirrors a tool argument into an HTTP header; it applies to \
                 #[tool] arguments only",
            );
            ok = false;
        } else if !is_header_token(&h.value()) {
            errors.on(
                h,
                format!(
                    "{:?} is not an HTTP header name: use one or more letters, digits and \
                     !#$%&'*+-.^_`|~ (clients send it as `Mcp-Param-<name>`)",
                    h.value()
                ),
            );
            ok = false;
        }
    }
    ok
}

/// An HTTP field name (RFC 9110 `token`): what a 2026 client can send as `Mcp-Param-<name>`.
fn is_header_token(name: &str) -> bool {
    !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b))
}

/// Two arguments mirrored into the same header (names ignore case) cannot both be sent.
pub(crate) fn unique_headers(params: &[Param], errors: &mut Errors) -> bool {
    let mut ok = true;
    let mut seen: Vec<(String, &str)> = Vec::new();
    for v in params.iter().filter_map(|p| match &p.kind {
        ParamKind::Value(v) => Some(v.as_ref()),
        _ => None,
    }) {
        let Some(h) = &v.header else { continue };
        let key = h.value().to_ascii_lowercase();
        if let Some((_, other)) = seen.iter().find(|(k, _)| *k == key) {
            errors.on(
                h,
                format!(
                    "`{}` is mirrored into the header of `{other}` already (header names \
                     ignore case); give each argument a header of its own",
                    v.name.value
                ),
            );
            ok = false;
        }
        seen.push((key, &v.name.value));
    }
    ok
}

/// An `# Arguments` entry naming no parameter is a stale doc or a typo.
pub(crate) fn arguments_section(
    f: &ImplItemFn,
    section: &[ArgumentDoc],
    errors: &mut Errors,
) -> bool {
    let mut ok = true;
    let names: Vec<String> = f
        .sig
        .inputs
        .iter()
        .filter_map(|i| match i {
            FnArg::Typed(pt) => match &*pt.pat {
                Pat::Ident(p) => Some(p.ident.unraw().to_string()),
                _ => None,
            },
            FnArg::Receiver(_) => None,
        })
        .collect();
    for entry in section {
        if !names.contains(&entry.name) {
            let hint = match closest(&entry.name, names.iter().map(String::as_str)) {
                Some(c) => format!("did you mean `{c}`?"),
                None => "remove the entry or fix its name".to_owned(),
            };
            errors.at(
                entry.span,
                format!(
                    "the `# Arguments` section describes `{}`, which is not a parameter of \
                     `{}`; {hint}",
                    entry.name, f.sig.ident
                ),
            );
            ok = false;
        }
    }
    ok
}

/// Two parameters cannot have the same wire name.
pub(crate) fn unique_param_names(params: &[Param], errors: &mut Errors) -> bool {
    let mut ok = true;
    let mut seen: Vec<&str> = Vec::new();
    for v in params.iter().filter_map(|p| match &p.kind {
        ParamKind::Value(v) => Some(v.as_ref()),
        _ => None,
    }) {
        if seen.contains(&v.name.value.as_str()) {
            errors.at(
                v.name.span,
                format!(
                    "two parameters are named `{}`; rename one with #[arg(rename = \"...\")]",
                    v.name.value
                ),
            );
            ok = false;
        }
        seen.push(&v.name.value);
    }
    ok
}
