//! The receiver and the parameters of an annotated method: each parameter sorted into an
//! extractor, the `#[args]` struct or a named value, with its wire name and description.

use quote::ToTokens;
use syn::ext::IdentExt as _;
use syn::{Attribute, FnArg, Ident, ImplItemFn, LitStr, Pat, PatType, Signature, Type};

use crate::attrs::{self, ArgArgs};
use crate::diag::Errors;
use crate::docs::{self, ArgumentDoc, Doc};
use crate::model::{Kind, Named, Param, ParamKind, Receiver, ValueParam};
use crate::{types, validate};

pub(super) fn receiver(sig: &Signature, what: &str, errors: &mut Errors) -> Option<Receiver> {
    let fix = "take `&self` (or `self: Arc<Self>`)";
    let Some(FnArg::Receiver(r)) = sig.inputs.first() else {
        errors.on(
            &sig.ident,
            format!(
                "a {what} must be a method: add `&self` as its first parameter (or `self: \
                 Arc<Self>`)"
            ),
        );
        return None;
    };
    let ty = match &r.kind {
        syn::ReceiverKind::Typed(_, ty) => Some(ty),
        _ => None,
    };
    if let Some(ty) = ty {
        let is_arc_self = types::unwrap_named(ty, "Arc")
            .is_some_and(|inner| inner.to_token_stream().to_string() == "Self");
        if is_arc_self {
            return Some(Receiver::Arc);
        }
        errors.on(
            ty,
            format!("a {what} method must {fix}; this receiver type is not supported"),
        );
        return None;
    }
    match &r.kind {
        syn::ReceiverKind::Reference(_, _, None) => Some(Receiver::Ref),
        syn::ReceiverKind::Reference(_, _, Some(m)) => {
            errors.on(
                m,
                format!(
                    "a {what} method cannot take `&mut self`: calls run concurrently; {fix} and \
                     keep mutable state behind a `Mutex`, `RwLock` or atomics"
                ),
            );
            None
        }
        _ => {
            errors.on(
                r.self_token,
                format!(
                    "a {what} method cannot take `self` by value: the server keeps one instance \
                     for every call; {fix}"
                ),
            );
            None
        }
    }
}

pub(super) fn params(f: &ImplItemFn, kind: Kind, errors: &mut Errors) -> Option<Vec<Param>> {
    let section = docs::arguments_section(&f.attrs);
    let mut out = Vec::new();
    let mut ok = true;
    let tool_has_args = kind == Kind::Tool
        && f.sig.inputs.iter().any(
            |i| matches!(i, FnArg::Typed(pt) if pt.attrs.iter().any(|a| a.path().is_ident("args"))),
        );
    for input in f.sig.inputs.iter().skip(1) {
        let FnArg::Typed(pt) = input else { continue };
        let (param, param_ok) = param(pt, kind, tool_has_args, &section, errors);
        out.extend(param);
        ok &= param_ok;
    }
    let has_args_struct = out.iter().any(|p| matches!(p.kind, ParamKind::Args));
    if !has_args_struct {
        ok &= validate::arguments_section(f, &section, errors);
    }
    ok &= validate::unique_param_names(&out, errors);
    ok &= validate::unique_headers(&out, errors);
    ok.then_some(out)
}

/// The helper attributes of one parameter.
struct ParamAttrs<'a> {
    /// `#[arg(...)]`, read.
    arg: Option<(ArgArgs, &'a Attribute)>,
    args: Option<&'a Attribute>,
    extract: Option<&'a Attribute>,
}

/// The parameter's helper attributes; the flag is `false` when `#[arg]` is given twice.
fn param_attrs<'a>(pt: &'a PatType, errors: &mut Errors) -> (ParamAttrs<'a>, bool) {
    let mut ok = true;
    let mut found = ParamAttrs {
        arg: None,
        args: None,
        extract: None,
    };
    for attr in &pt.attrs {
        if attr.path().is_ident("arg") {
            if found.arg.is_some() {
                errors.on(attr, "#[arg] is given twice; merge the two into one");
                ok = false;
            }
            found.arg = Some((attrs::arg(attr, errors), attr));
        } else if attr.path().is_ident("args") {
            attrs::marker(attr, errors);
            found.args = Some(attr);
        } else if attr.path().is_ident("extract") {
            attrs::marker(attr, errors);
            found.extract = Some(attr);
        }
    }
    (found, ok)
}

/// One parameter: an extractor, the `#[args]` struct or a named value; `None` when it can
/// be none of them. The flag is `false` when an error was reported.
fn param(
    pt: &PatType,
    kind: Kind,
    tool_has_args: bool,
    section: &[ArgumentDoc],
    errors: &mut Errors,
) -> (Option<Param>, bool) {
    let (attrs, mut ok) = param_attrs(pt, errors);
    let ty = (*pt.ty).clone();
    let arg_attr = attrs.arg.as_ref().map(|(_, attr)| *attr);
    if is_extractor(pt, &attrs, &ty, kind, tool_has_args) {
        ok &= validate::extractor_param(arg_attr, attrs.extract, attrs.args, errors);
        let param = Param {
            ty,
            kind: ParamKind::Extractor,
        };
        return (Some(param), ok);
    }
    if let Some(a) = attrs.args {
        ok &= validate::args_param(a, arg_attr, &ty, kind, errors);
        let param = Param {
            ty,
            kind: ParamKind::Args,
        };
        return (Some(param), ok);
    }
    let Some(ident) = param_ident(&pt.pat, kind, errors) else {
        return (None, false);
    };
    if !validate::param_type(&ty, errors) {
        return (None, false);
    }
    let arg = attrs.arg.map_or_else(ArgArgs::default, |(a, _)| a);
    ok &= validate::value_arg(&arg, kind, errors);
    let value = value_param(pt, ident, arg, arg_attr.is_some(), &ty, section);
    let param = Param {
        kind: ParamKind::Value(Box::new(value)),
        ty,
    };
    (Some(param), ok)
}

/// Whether the parameter is taken from the request context rather than from the input.
fn is_extractor(
    pt: &PatType,
    attrs: &ParamAttrs<'_>,
    ty: &Type,
    kind: Kind,
    tool_has_args: bool,
) -> bool {
    let destructured = matches!(&*pt.pat, Pat::TupleStruct(_) | Pat::Struct(_));
    attrs.extract.is_some()
        || (attrs.args.is_none()
            && match kind {
                // A tool's parameters are sorted by their types' traits in the generated
                // code (`ferromcp::__private::Param`); only one that cannot be an
                // argument (beside an `#[args]` struct, or destructured) is an
                // extractor here.
                Kind::Tool => tool_has_args || destructured,
                // A completion takes one value, the partial `String`; any other
                // parameter is an extractor (checked by `FromContext`).
                Kind::Completion => {
                    destructured || (attrs.arg.is_none() && !types::is_never_extractor(ty))
                }
                // Otherwise a resource's parameters are sorted once its template's
                // variables are known (`resource`); a prompt's by their types' traits in
                // the generated code (`ferromcp::__private::PromptParam`).
                Kind::Resource | Kind::Prompt => destructured,
            })
}

/// The parameter's name (its name on the wire unless renamed); `None` for a pattern
/// (reported).
fn param_ident(pat: &Pat, kind: Kind, errors: &mut Errors) -> Option<Ident> {
    match pat {
        Pat::Ident(p) if p.by_ref.is_none() && p.subpat.is_none() => Some(p.ident.clone()),
        other => {
            errors.on(
                other,
                format!(
                    "name this parameter (`name: Type`): the name is the {} it stands for",
                    match kind {
                        Kind::Resource => "URI template variable",
                        Kind::Completion => "value",
                        _ => "argument",
                    }
                ),
            );
            None
        }
    }
}

/// A named value: its wire name (after `rename`) and its description (`description = "..."`,
/// the parameter's `///` docs or its entry in the method's `# Arguments` section).
fn value_param(
    pt: &PatType,
    ident: Ident,
    arg: ArgArgs,
    explicit: bool,
    ty: &Type,
    section: &[ArgumentDoc],
) -> ValueParam {
    let rust_name = ident.unraw().to_string();
    let name = match &arg.rename {
        Some(lit) => Named {
            value: lit.value(),
            span: lit.span(),
        },
        None => Named {
            value: rust_name.clone(),
            span: ident.span(),
        },
    };
    let description = arg
        .description
        .as_ref()
        .map(LitStr::value)
        .or_else(|| Doc::of(&pt.attrs).text())
        .or_else(|| {
            section
                .iter()
                .find(|d| d.name == rust_name || d.name == name.value)
                .map(|d| d.text.clone())
        });
    ValueParam {
        ident,
        name,
        description,
        default: arg.default,
        optional: types::option_inner(ty).cloned(),
        explicit,
        header: arg.header,
        unchecked_path: arg.unchecked_path.is_some(),
    }
}
