//! Checks across the methods of one impl block: duplicate names and URIs, and completions
//! that point at a prompt argument or template variable that exists.

use crate::diag::{Errors, closest};
use crate::model::{CompletionTarget, Named, ServerDef};

pub(crate) fn check(def: &ServerDef, errors: &mut Errors) {
    duplicates(
        "tool",
        "#[tool(name = \"...\")]",
        def.tools.iter().map(|t| &t.name),
        errors,
    );
    duplicates(
        "prompt",
        "#[prompt(name = \"...\")]",
        def.prompts.iter().map(|p| &p.name),
        errors,
    );
    duplicates(
        "resource",
        "#[resource(name = \"...\")]",
        def.resources.iter().map(|r| &r.name),
        errors,
    );
    let mut uris: Vec<String> = Vec::new();
    for r in &def.resources {
        let uri = r.uri.value();
        if uris.contains(&uri) {
            errors.on(
                &r.uri,
                format!("another #[resource] in this impl block already has the URI \"{uri}\""),
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

fn duplicates<'a>(
    what: &str,
    fix: &str,
    names: impl Iterator<Item = &'a Named>,
    errors: &mut Errors,
) {
    let mut seen: Vec<&str> = Vec::new();
    for n in names {
        if seen.contains(&n.value.as_str()) {
            errors.at(
                n.span,
                format!(
                    "another #[{what}] in this impl block is already named `{}`; names must be \
                     unique: choose another with {fix}",
                    n.value
                ),
            );
        }
        seen.push(&n.value);
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
