//! The arguments of `#[server(...)]`, `#[tool(...)]`, `#[resource(...)]`, `#[prompt(...)]`,
//! `#[completion(...)]` and the parameter attribute `#[arg(...)]`, parsed with
//! `parse_nested_meta`. Unknown keys are reported with the closest known one.

use proc_macro2::TokenStream;
use syn::meta::ParseNestedMeta;
use syn::parse::Parser;
use syn::{Attribute, Expr, Ident, LitBool, LitInt, LitStr, Meta};

use crate::diag::{Errors, suggestion};

/// A flag written `key` (true) or `key = true|false`.
#[derive(Clone, Copy)]
pub(crate) struct Flag {
    pub(crate) value: bool,
}

#[derive(Default)]
pub(crate) struct ServerArgs {
    pub(crate) name: Option<LitStr>,
    pub(crate) version: Option<LitStr>,
    pub(crate) title: Option<LitStr>,
    pub(crate) instructions: Option<LitStr>,
    pub(crate) scopes: Vec<LitStr>,
    /// `part = name`: the block adds items to the type's server, registered by the main
    /// block that names it in `parts(...)`.
    pub(crate) part: Option<Ident>,
    /// `parts(a, b)`: the type's other blocks, registered with this one.
    pub(crate) parts: Vec<Ident>,
}

#[derive(Default)]
pub(crate) struct ToolArgs {
    pub(crate) name: Option<LitStr>,
    pub(crate) title: Option<LitStr>,
    pub(crate) description: Option<LitStr>,
    pub(crate) read_only: Option<Flag>,
    pub(crate) destructive: Option<Flag>,
    pub(crate) idempotent: Option<Flag>,
    pub(crate) open_world: Option<Flag>,
    pub(crate) input_schema: Option<Expr>,
    pub(crate) output_schema: Option<Expr>,
    pub(crate) timeout_ms: Option<LitInt>,
    pub(crate) blocking: Option<Flag>,
    pub(crate) meta: Option<Expr>,
    pub(crate) icons: Option<Expr>,
    pub(crate) task_support: Option<LitStr>,
    pub(crate) scopes: Vec<LitStr>,
    /// `ui = "ui://…"`: the MCP Apps resource the tool's result is shown with.
    pub(crate) ui: Option<LitStr>,
    /// `visibility = ["model", "app"]`: who may call the tool (MCP Apps).
    pub(crate) visibility: Option<Vec<LitStr>>,
}

#[derive(Default)]
pub(crate) struct ResourceArgs {
    pub(crate) uri: Option<LitStr>,
    pub(crate) name: Option<LitStr>,
    pub(crate) title: Option<LitStr>,
    pub(crate) description: Option<LitStr>,
    pub(crate) mime_type: Option<LitStr>,
    pub(crate) blocking: Option<Flag>,
    pub(crate) meta: Option<Expr>,
    pub(crate) scopes: Vec<LitStr>,
}

#[derive(Default)]
pub(crate) struct PromptArgs {
    pub(crate) name: Option<LitStr>,
    pub(crate) title: Option<LitStr>,
    pub(crate) description: Option<LitStr>,
    pub(crate) blocking: Option<Flag>,
    pub(crate) meta: Option<Expr>,
    pub(crate) scopes: Vec<LitStr>,
}

#[derive(Default)]
pub(crate) struct CompletionArgs {
    pub(crate) prompt: Option<LitStr>,
    pub(crate) resource: Option<LitStr>,
    pub(crate) argument: Option<LitStr>,
}

#[derive(Default)]
pub(crate) struct ArgArgs {
    pub(crate) rename: Option<LitStr>,
    pub(crate) description: Option<LitStr>,
    pub(crate) default: Option<Expr>,
    pub(crate) header: Option<LitStr>,
    /// `#[arg(unchecked_path)]` (or `= true`): the key, for its span.
    pub(crate) unchecked_path: Option<syn::Path>,
}

const SERVER_KEYS: &[&str] = &[
    "name",
    "version",
    "title",
    "instructions",
    "scopes",
    "part",
    "parts",
];
const TOOL_KEYS: &[&str] = &[
    "name",
    "title",
    "description",
    "read_only",
    "destructive",
    "idempotent",
    "open_world",
    "input_schema",
    "output_schema",
    "timeout_ms",
    "blocking",
    "meta",
    "icons",
    "task_support",
    "scopes",
    "ui",
    "visibility",
];
const RESOURCE_KEYS: &[&str] = &[
    "uri",
    "name",
    "title",
    "description",
    "mime_type",
    "blocking",
    "meta",
    "scopes",
];
const PROMPT_KEYS: &[&str] = &["name", "title", "description", "blocking", "meta", "scopes"];
const COMPLETION_KEYS: &[&str] = &["prompt", "resource", "argument"];
const ARG_KEYS: &[&str] = &[
    "rename",
    "description",
    "default",
    "header",
    "unchecked_path",
];

/// Runs `f` on each `key = value` / `key` of a nested-meta list, reporting unknown and
/// repeated keys (and skipping their values) instead of stopping at the first problem.
fn each_key(
    what: &str,
    known: &[&str],
    errors: &mut Errors,
    tokens: TokenStream,
    mut f: impl FnMut(&str, &ParseNestedMeta) -> syn::Result<()>,
) {
    let mut seen: Vec<String> = Vec::new();
    let parser = syn::meta::parser(|meta| {
        let key = meta
            .path
            .get_ident()
            .map(|i| i.to_string())
            .unwrap_or_default();
        if !known.contains(&key.as_str()) {
            let shown = if key.is_empty() {
                quote::ToTokens::to_token_stream(&meta.path).to_string()
            } else {
                key.clone()
            };
            errors.on(
                &meta.path,
                format!(
                    "unknown {what} argument `{shown}`; {}",
                    suggestion(&shown, known)
                ),
            );
            return skip_value(&meta);
        }
        if seen.contains(&key) {
            errors.on(&meta.path, format!("`{key}` is given twice; keep one"));
            return skip_value(&meta);
        }
        seen.push(key.clone());
        f(&key, &meta)
    });
    if let Err(e) = parser.parse2(tokens) {
        errors.push(e);
    }
}

fn skip_value(meta: &ParseNestedMeta) -> syn::Result<()> {
    if meta.input.peek(syn::Token![=]) {
        meta.value()?.parse::<Expr>()?;
    } else if meta.input.peek(syn::token::Paren) {
        let content;
        syn::parenthesized!(content in meta.input);
        content.parse::<TokenStream>()?;
    }
    Ok(())
}

fn string(meta: &ParseNestedMeta) -> syn::Result<LitStr> {
    meta.value()?.parse::<LitStr>()
}

/// `["a", "b"]`: string literals only.
fn strings(meta: &ParseNestedMeta) -> syn::Result<Vec<LitStr>> {
    literals(
        meta,
        "scopes are string literals: `scopes = [\"incidents:read\"]`",
    )
}

/// `["a", "b"]`: string literals only; `message` for anything else.
fn literals(meta: &ParseNestedMeta, message: &str) -> syn::Result<Vec<LitStr>> {
    let list = meta.value()?.parse::<syn::ExprArray>()?;
    list.elems
        .iter()
        .map(|e| match e {
            Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(s),
                ..
            }) => Ok(s.clone()),
            other => Err(syn::Error::new_spanned(other, message)),
        })
        .collect()
}

fn expr(meta: &ParseNestedMeta) -> syn::Result<Expr> {
    meta.value()?.parse::<Expr>()
}

fn flag(meta: &ParseNestedMeta) -> syn::Result<Flag> {
    if meta.input.peek(syn::Token![=]) {
        let lit: LitBool = meta.value()?.parse()?;
        Ok(Flag { value: lit.value })
    } else {
        Ok(Flag { value: true })
    }
}

/// The tokens inside `#[x(...)]`; empty for `#[x]`; an error for `#[x = ...]`.
fn list_tokens(attr: &Attribute, errors: &mut Errors) -> TokenStream {
    match &attr.meta {
        Meta::Path(_) => TokenStream::new(),
        Meta::List(list) => list.tokens.clone(),
        Meta::NameValue(nv) => {
            errors.on(
                nv.eq_token,
                "expected `#[name(key = value, ...)]`, not `#[name = ...]`",
            );
            TokenStream::new()
        }
    }
}

pub(crate) fn server(tokens: TokenStream, errors: &mut Errors) -> ServerArgs {
    let mut a = ServerArgs::default();
    let mut errs = Errors::default();
    each_key("#[server]", SERVER_KEYS, &mut errs, tokens, |key, meta| {
        match key {
            "name" => a.name = Some(string(meta)?),
            "version" => a.version = Some(string(meta)?),
            "title" => a.title = Some(string(meta)?),
            "scopes" => a.scopes = strings(meta)?,
            "part" => a.part = Some(meta.value()?.parse()?),
            "parts" => meta.parse_nested_meta(|part| match part.path.get_ident() {
                Some(ident) => {
                    a.parts.push(ident.clone());
                    Ok(())
                }
                None => Err(part.error("a part is named by an identifier: `parts(admin)`")),
            })?,
            _ => a.instructions = Some(string(meta)?),
        }
        Ok(())
    });
    merge(errors, errs);
    a
}

pub(crate) fn tool(attr: &Attribute, errors: &mut Errors) -> ToolArgs {
    let mut a = ToolArgs::default();
    let tokens = list_tokens(attr, errors);
    let mut errs = Errors::default();
    each_key("#[tool]", TOOL_KEYS, &mut errs, tokens, |key, meta| {
        match key {
            "name" => a.name = Some(string(meta)?),
            "title" => a.title = Some(string(meta)?),
            "description" => a.description = Some(string(meta)?),
            "read_only" => a.read_only = Some(flag(meta)?),
            "destructive" => a.destructive = Some(flag(meta)?),
            "idempotent" => a.idempotent = Some(flag(meta)?),
            "open_world" => a.open_world = Some(flag(meta)?),
            "input_schema" => a.input_schema = Some(expr(meta)?),
            "output_schema" => a.output_schema = Some(expr(meta)?),
            "timeout_ms" => a.timeout_ms = Some(meta.value()?.parse()?),
            "blocking" => a.blocking = Some(flag(meta)?),
            "meta" => a.meta = Some(expr(meta)?),
            "task_support" => a.task_support = Some(string(meta)?),
            "scopes" => a.scopes = strings(meta)?,
            "ui" => a.ui = Some(string(meta)?),
            "visibility" => {
                a.visibility = Some(literals(
                    meta,
                    "visibility lists string literals: `visibility = [\"model\", \"app\"]`",
                )?)
            }
            _ => a.icons = Some(expr(meta)?),
        }
        Ok(())
    });
    merge(errors, errs);
    a
}

/// The keys of `#[resource]` and `#[prompt]` whose values are not strings: `blocking`,
/// `meta` and `scopes`. `true` when `key` was one of them.
fn not_a_string(
    key: &str,
    meta: &ParseNestedMeta,
    blocking: &mut Option<Flag>,
    item_meta: &mut Option<Expr>,
    scopes: &mut Vec<LitStr>,
) -> syn::Result<bool> {
    match key {
        "blocking" => *blocking = Some(flag(meta)?),
        "meta" => *item_meta = Some(expr(meta)?),
        "scopes" => *scopes = strings(meta)?,
        _ => return Ok(false),
    }
    Ok(true)
}

pub(crate) fn resource(attr: &Attribute, errors: &mut Errors) -> ResourceArgs {
    let mut a = ResourceArgs::default();
    let tokens = list_tokens(attr, errors);
    let mut errs = Errors::default();
    each_key(
        "#[resource]",
        RESOURCE_KEYS,
        &mut errs,
        tokens,
        |key, meta| {
            if not_a_string(key, meta, &mut a.blocking, &mut a.meta, &mut a.scopes)? {
                return Ok(());
            }
            let value = string(meta)?;
            match key {
                "uri" => a.uri = Some(value),
                "name" => a.name = Some(value),
                "title" => a.title = Some(value),
                "description" => a.description = Some(value),
                _ => a.mime_type = Some(value),
            }
            Ok(())
        },
    );
    merge(errors, errs);
    a
}

pub(crate) fn prompt(attr: &Attribute, errors: &mut Errors) -> PromptArgs {
    let mut a = PromptArgs::default();
    let tokens = list_tokens(attr, errors);
    let mut errs = Errors::default();
    each_key("#[prompt]", PROMPT_KEYS, &mut errs, tokens, |key, meta| {
        if not_a_string(key, meta, &mut a.blocking, &mut a.meta, &mut a.scopes)? {
            return Ok(());
        }
        let value = string(meta)?;
        match key {
            "name" => a.name = Some(value),
            "title" => a.title = Some(value),
            _ => a.description = Some(value),
        }
        Ok(())
    });
    merge(errors, errs);
    a
}

pub(crate) fn completion(attr: &Attribute, errors: &mut Errors) -> CompletionArgs {
    let mut a = CompletionArgs::default();
    let tokens = list_tokens(attr, errors);
    let mut errs = Errors::default();
    each_key(
        "#[completion]",
        COMPLETION_KEYS,
        &mut errs,
        tokens,
        |key, meta| {
            let value = string(meta)?;
            match key {
                "prompt" => a.prompt = Some(value),
                "resource" => a.resource = Some(value),
                _ => a.argument = Some(value),
            }
            Ok(())
        },
    );
    merge(errors, errs);
    a
}

pub(crate) fn arg(attr: &Attribute, errors: &mut Errors) -> ArgArgs {
    let mut a = ArgArgs::default();
    let tokens = list_tokens(attr, errors);
    let mut errs = Errors::default();
    each_key("#[arg]", ARG_KEYS, &mut errs, tokens, |key, meta| {
        match key {
            "rename" => a.rename = Some(string(meta)?),
            "description" => a.description = Some(string(meta)?),
            "header" => a.header = Some(string(meta)?),
            "unchecked_path" => {
                if flag(meta)?.value {
                    a.unchecked_path = Some(meta.path.clone());
                }
            }
            _ => a.default = Some(expr(meta)?),
        }
        Ok(())
    });
    merge(errors, errs);
    a
}

/// A marker attribute (`#[args]`, `#[extract]`) takes no arguments.
pub(crate) fn marker(attr: &Attribute, errors: &mut Errors) {
    if !matches!(attr.meta, Meta::Path(_)) {
        let name = attr
            .path()
            .get_ident()
            .map(ToString::to_string)
            .unwrap_or_default();
        errors.on(&attr.meta, format!("`#[{name}]` takes no arguments"));
    }
}

fn merge(errors: &mut Errors, more: Errors) {
    if let Some(e) = more.into_error() {
        errors.push(e);
    }
}
