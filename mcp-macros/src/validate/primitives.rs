//! What each kind of primitive declares: a tool's name, description, timeout and task
//! support; a resource template's variables; a prompt's name; a completion's value.

use syn::{Ident, LitInt, LitStr};

use crate::diag::{Errors, closest};
use crate::model::{Method, Named, ParamKind, ValueParam};
use crate::types;
use crate::uri_template::Variable;

/// A tool or prompt needs a description the model can read: a non-empty
/// `description = "..."` (`lit`) or, without one, a doc comment (`has_text`).
pub(crate) fn description(
    lit: Option<&LitStr>,
    has_text: bool,
    ident: &Ident,
    what: &str,
    errors: &mut Errors,
) {
    if let Some(lit) = lit {
        if lit.value().trim().is_empty() {
            errors.on(
                lit,
                format!("the description of a {what} cannot be empty: say what it does"),
            );
        }
    } else if !has_text {
        errors.on(
            ident,
            format!(
                "{what} `{ident}` has no description: add a `///` doc comment (its first \
                 paragraph is the description the model reads) or `description = \"...\"`"
            ),
        );
    }
}

/// Tool names as the MCP specification restricts them.
pub(crate) fn tool_name(name: &Named, errors: &mut Errors) {
    let n = &name.value;
    let len = n.chars().count();
    if len == 0 {
        errors.at(name.span, "a tool name cannot be empty");
    } else if len > 128 {
        errors.at(
            name.span,
            format!("tool names are at most 128 characters long (this one has {len})"),
        );
    } else if let Some(bad) = n
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-')))
    {
        errors.at(
            name.span,
            format!(
                "tool names may only contain A-Z a-z 0-9 _ . - (found {bad:?} in `{n}`); choose \
                 another with #[tool(name = \"...\")]"
            ),
        );
    }
}

/// `task_support` is one of the spec's values.
pub(crate) fn task_support(value: Option<&LitStr>, errors: &mut Errors) {
    if let Some(v) = value
        && !matches!(v.value().as_str(), "forbidden" | "optional" | "required")
    {
        errors.on(
            v,
            format!(
                "task_support is \"forbidden\", \"optional\" or \"required\" (found `{}`)",
                v.value()
            ),
        );
    }
}

/// `ui` is a `ui://` URI and `visibility` lists `model` and `app` only (MCP Apps).
pub(crate) fn ui(uri: Option<&LitStr>, visibility: Option<&[LitStr]>, errors: &mut Errors) {
    if let Some(uri) = uri {
        let value = uri.value();
        if value.strip_prefix("ui://").is_none_or(str::is_empty) {
            errors.on(
                uri,
                format!(
                    "an app's resource URI starts with `ui://`, such as \"ui://orders/table.html\" \
                     (found `{value}`)"
                ),
            );
        }
    }
    for v in visibility.unwrap_or_default() {
        if !matches!(v.value().as_str(), "model" | "app") {
            errors.on(
                v,
                format!(
                    "visibility values are \"model\" and \"app\" (found `{}`)",
                    v.value()
                ),
            );
        }
    }
}

/// `timeout_ms` is a positive `u64`.
pub(crate) fn timeout(timeout_ms: Option<&LitInt>, errors: &mut Errors) {
    if let Some(t) = timeout_ms {
        match t.base10_parse::<u64>() {
            Ok(0) => errors.on(
                t,
                "a timeout of 0 ms would fail every call; give a positive number",
            ),
            Ok(_) => {}
            Err(e) => errors.on(t, e),
        }
    }
}

/// With `#[args]`, the one struct is the whole input of a tool (its other parameters are
/// extractors, which the generated code checks).
pub(crate) fn args_struct(method: &Method, errors: &mut Errors) -> bool {
    let mut args_structs = method
        .params
        .iter()
        .filter(|p| matches!(p.kind, ParamKind::Args));
    if args_structs.next().is_some()
        && let Some(second) = args_structs.next()
    {
        errors.on(&second.ty, "only one parameter can be #[args]");
        return false;
    }
    true
}

/// Every variable of a resource's URI template has a parameter, and every value parameter
/// is a variable of the template.
pub(crate) fn template_params(
    uri: &LitStr,
    variables: &[Variable],
    method: &Method,
    ident: &Ident,
    errors: &mut Errors,
) -> bool {
    let mut ok = true;
    for var in variables {
        if !method.values().any(|v| v.name.value == var.name) {
            let suggestion = if syn::parse_str::<syn::Ident>(&var.name).is_ok() {
                format!("`{}: String` (or any `FromStr` type)", var.name)
            } else {
                format!(
                    "a parameter with #[arg(rename = \"{}\")] (any `FromStr` type)",
                    var.name
                )
            };
            errors.on(
                uri,
                format!(
                    "URI template variable `{}` has no parameter: add {suggestion} to `{}`",
                    var.name, ident
                ),
            );
            ok = false;
        }
    }
    for v in method.values() {
        if !variables.iter().any(|var| var.name == v.name.value) {
            let names: Vec<&str> = variables.iter().map(|v| v.name.as_str()).collect();
            let hint = match closest(&v.name.value, names.iter().copied()) {
                Some(c) => format!("did you mean `{c}`? "),
                None => String::new(),
            };
            errors.at(
                v.name.span,
                format!(
                    "parameter `{}` is not a variable of the URI template \"{}\": {hint}add \
                     `{{{}}}` to the template or remove the parameter (extractors such as \
                     `Context` and `State<T>` are allowed)",
                    v.name.value,
                    uri.value(),
                    v.name.value
                ),
            );
            ok = false;
        }
    }
    ok
}

/// A prompt's name cannot be empty.
pub(crate) fn prompt_name(name: &Named, errors: &mut Errors) {
    if name.value.is_empty() {
        errors.at(name.span, "a prompt name cannot be empty");
    }
}

/// A completion method takes exactly one value besides extractors: the partial `String`.
pub(crate) fn completion_value(method: &Method, ident: &Ident, errors: &mut Errors) -> bool {
    let values: Vec<&ValueParam> = method.values().collect();
    match values.first() {
        None => {
            errors.on(
                ident,
                "a #[completion] method takes the partial value: add a `value: String` parameter",
            );
            false
        }
        Some(first) => {
            if let Some(second) = values.get(1) {
                errors.on(
                    &second.ident,
                    "a #[completion] method takes one value (the partial `String`) besides \
                     extractors; remove this parameter",
                );
                return false;
            }
            let param = method
                .params
                .iter()
                .find(|p| matches!(&p.kind, ParamKind::Value(v) if v.ident == first.ident));
            if let Some(p) = param
                && !types::is_string(&p.ty)
            {
                errors.on(
                    &p.ty,
                    "the value being completed is a `String`: change this type to `String`",
                );
                return false;
            }
            true
        }
    }
}
