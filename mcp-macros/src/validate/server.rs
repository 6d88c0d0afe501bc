//! The checks across the methods of one impl block: names and URIs given twice, and
//! completions pointing at a prompt argument or template variable that does not exist.

use crate::diag::{Errors, closest};
use crate::model::{CompletionDef, CompletionTarget, Named, ServerDef};

pub(crate) fn check(def: &ServerDef, errors: &mut Errors) {
    part(def, errors);
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
    unique_uris(def, errors);
    completions(def, errors);
}

/// A `part` block adds items to the main block's server: the server's identity and its
/// parts are given there.
fn part(def: &ServerDef, errors: &mut Errors) {
    let a = &def.args;
    let Some(part) = &a.part else {
        return;
    };
    let message = format!(
        "`{part}` is a part of the server: give its name, version, title, instructions and \
         parts on the main `#[server(parts({part}))]` block"
    );
    let given = [&a.name, &a.version, &a.title, &a.instructions];
    for lit in given.into_iter().flatten() {
        errors.on(lit, &message);
    }
    if let Some(first) = a.parts.first() {
        errors.on(first, &message);
    }
}

/// Two resources compiled together cannot have the same URI.
fn unique_uris(def: &ServerDef, errors: &mut Errors) {
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
}

/// Each completion names an existing prompt argument or template variable, and no other
/// completion completes the same one.
fn completions(def: &ServerDef, errors: &mut Errors) {
    let mut targets: Vec<(String, String)> = Vec::new();
    for c in &def.completions {
        let argument = c.argument.value();
        let Some((key, args)) = target(def, c, errors) else {
            continue;
        };
        if !args.contains(&argument) {
            errors.on(&c.argument, not_an_argument(c, &argument, &args));
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

/// The completion's target as a key (`prompt name` or `resource uri`) and the names it
/// takes; `None` when no prompt or template matches (reported unless the target was left
/// out after an error of its own).
fn target(
    def: &ServerDef,
    c: &CompletionDef,
    errors: &mut Errors,
) -> Option<(String, Vec<String>)> {
    match &c.target {
        CompletionTarget::Prompt(lit) => {
            let name = lit.value();
            let Some(p) = def.prompts.iter().find(|p| p.name.value == name) else {
                if def.broken.contains(&name) {
                    return None;
                }
                let names: Vec<&str> = def.prompts.iter().map(|p| p.name.value.as_str()).collect();
                errors.on(lit, unknown("#[prompt]", "named", &name, &names));
                return None;
            };
            let args: Vec<String> = p.method.values().map(|v| v.name.value.clone()).collect();
            Some((format!("prompt {name}"), args))
        }
        CompletionTarget::Resource(lit) => {
            let uri = lit.value();
            let Some(r) = def
                .resources
                .iter()
                .find(|r| r.is_template && r.uri.value() == uri)
            else {
                if def.broken.contains(&uri) {
                    return None;
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
                return None;
            };
            Some((format!("resource {uri}"), r.variables.clone()))
        }
    }
}

/// Why `argument` is none of the target's `args`, with a suggestion.
fn not_an_argument(c: &CompletionDef, argument: &str, args: &[String]) -> String {
    let (what, target) = match &c.target {
        CompletionTarget::Prompt(lit) => ("argument of the prompt", lit.value()),
        CompletionTarget::Resource(lit) => ("variable of the resource template", lit.value()),
    };
    let hint = match closest(argument, args.iter().map(String::as_str)) {
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
    format!("`{argument}` is not an {what} \"{target}\"; {hint}")
}

/// Names given twice among methods compiled under the same `#[cfg]` conditions (`names`
/// pairs each name with its method's [`cfg_key`](crate::model::Method::cfg_key)).
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
