//! What the model can hold but the macro refuses, with how to fix it.
//!
//! The per-method checks are called from [`parse`](crate::parse) at the point each fact is
//! known: errors keep the order of the method's tokens, and a method the model cannot hold
//! stops before its later checks (one mistake, one error). [`check`] then looks across the
//! methods of one impl block: duplicate names and URIs, and completions that point at a
//! prompt argument or template variable that exists.

use syn::ext::IdentExt as _;
use syn::{Attribute, FnArg, Ident, ImplItemFn, LitInt, LitStr, Pat, Signature, Type};

use crate::attrs::ArgArgs;
use crate::diag::{Errors, closest};
use crate::docs::ArgumentDoc;
use crate::model::{CompletionTarget, Method, Named, Param, ParamKind, ServerDef, ValueParam};
use crate::parse::Kind;
use crate::types;
use crate::uri_template::Variable;

pub(crate) fn check(def: &ServerDef, errors: &mut Errors) {
    duplicates(
        "tool",
        "#[tool(name = \"...\")]",
        def.tools.iter().map(|t| (&t.name, t.method.cfg_key())),
        errors,
    );
    duplicates(
        "prompt",
        "#[prompt(name = \"...\")]",
        def.prompts.iter().map(|p| (&p.name, p.method.cfg_key())),
        errors,
    );
    duplicates(
        "resource",
        "#[resource(name = \"...\")]",
        def.resources.iter().map(|r| (&r.name, r.method.cfg_key())),
        errors,
    );
    let mut uris: Vec<(String, String)> = Vec::new();
    for r in &def.resources {
        let uri = (r.uri.value(), r.method.cfg_key());
        if uris.contains(&uri) {
            errors.on(
                &r.uri,
                format!(
                    "another #[resource] in this impl block already has the URI \"{}\"",
                    uri.0
                ),
            );
        }
        uris.push(uri);
    }
    let mut targets: Vec<(String, String)> = Vec::new();
    for c in &def.completions {
        let argument = c.argument.value();
        let (key, args) = match &c.target {
            CompletionTarget::Prompt(lit) => {
                let name = lit.value();
                let Some(p) = def.prompts.iter().find(|p| p.name.value == name) else {
                    if def.broken.contains(&name) {
                        continue;
                    }
                    let names: Vec<&str> =
                        def.prompts.iter().map(|p| p.name.value.as_str()).collect();
                    errors.on(lit, unknown("#[prompt]", "named", &name, &names));
                    continue;
                };
                let args: Vec<String> = p.method.values().map(|v| v.name.value.clone()).collect();
                (format!("prompt {name}"), args)
            }
            CompletionTarget::Resource(lit) => {
                let uri = lit.value();
                let Some(r) = def
                    .resources
                    .iter()
                    .find(|r| r.is_template && r.uri.value() == uri)
                else {
                    if def.broken.contains(&uri) {
                        continue;
                    }
                    let uris: Vec<String> = def
                        .resources
                        .iter()
                        .filter(|r| r.is_template)
                        .map(|r| r.uri.value())
                        .collect();
                    let uris: Vec<&str> = uris.iter().map(String::as_str).collect();
                    errors.on(
                        lit,
                        unknown("resource template", "with the URI", &uri, &uris),
                    );
                    continue;
                };
                (format!("resource {uri}"), r.variables.clone())
            }
        };
        if !args.contains(&argument) {
            let (what, target) = match &c.target {
                CompletionTarget::Prompt(lit) => ("argument of the prompt", lit.value()),
                CompletionTarget::Resource(lit) => {
                    ("variable of the resource template", lit.value())
                }
            };
            let hint = match closest(&argument, args.iter().map(String::as_str)) {
                Some(s) => format!("did you mean `{s}`?"),
                None if args.is_empty() => format!("\"{target}\" has none"),
                None => format!(
                    "it has {}",
                    args.iter()
                        .map(|a| format!("`{a}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            };
            errors.on(
                &c.argument,
                format!("`{argument}` is not an {what} \"{target}\"; {hint}"),
            );
            continue;
        }
        let pair = (key, argument);
        if targets.contains(&pair) {
            errors.on(
                &c.argument,
                format!(
                    "another #[completion] in this impl block already completes `{}`",
                    pair.1
                ),
            );
        }
        targets.push(pair);
    }
}

/// Names given twice among methods compiled under the same `#[cfg]` conditions (`names`
/// pairs each name with its method's [`cfg_key`](Method::cfg_key)).
fn duplicates<'a>(
    what: &str,
    fix: &str,
    names: impl Iterator<Item = (&'a Named, String)>,
    errors: &mut Errors,
) {
    let mut seen: Vec<(&str, String)> = Vec::new();
    for (n, cfg) in names {
        let key = (n.value.as_str(), cfg);
        if seen.contains(&key) {
            errors.at(
                n.span,
                format!(
                    "another #[{what}] in this impl block is already named `{}`; names must be \
                     unique: choose another with {fix}",
                    n.value
                ),
            );
        }
        seen.push(key);
    }
}

fn unknown(what: &str, how: &str, found: &str, known: &[&str]) -> String {
    let hint = match closest(found, known.iter().copied()) {
        Some(c) => format!("did you mean \"{c}\"?"),
        None if known.is_empty() => "this impl block has none".to_owned(),
        None => format!(
            "this impl block has {}",
            known
                .iter()
                .map(|k| format!("\"{k}\""))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    };
    format!("no {what} {how} \"{found}\" in this impl block; {hint}")
}

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
