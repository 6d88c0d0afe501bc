//! What each kind of primitive adds to the method: a tool's, resource's, prompt's or
//! completion's attribute arguments, its name and description, read into its definition.

use syn::ext::IdentExt as _;
use syn::{Attribute, ImplItemFn, LitStr};

use crate::attrs;
use crate::diag::Errors;
use crate::docs::Doc;
use crate::model::*;
use crate::{types, uri_template, validate};

/// The method's identifier as a wire name, without `r#`.
fn default_name(f: &ImplItemFn) -> Named {
    Named {
        value: f.sig.ident.unraw().to_string(),
        span: f.sig.ident.span(),
    }
}

pub(super) fn name_or_default(lit: Option<&LitStr>, f: &ImplItemFn) -> Named {
    match lit {
        Some(lit) => Named {
            value: lit.value(),
            span: lit.span(),
        },
        None => default_name(f),
    }
}

/// The description from `description = "..."` or the first doc paragraph.
fn description_text(lit: Option<&LitStr>, f: &ImplItemFn) -> Option<String> {
    match lit {
        Some(lit) => Some(lit.value()),
        None => Doc::of(&f.attrs).summary(),
    }
}

/// The description of a tool or prompt, which must have one (empty when missing, with the
/// error reported).
fn description(lit: Option<&LitStr>, f: &ImplItemFn, what: &str, errors: &mut Errors) -> String {
    let text = description_text(lit, f);
    validate::description(lit, text.is_some(), &f.sig.ident, what, errors);
    text.unwrap_or_default()
}

pub(super) fn tool(
    f: &ImplItemFn,
    attr: &Attribute,
    method: Option<Method>,
    errors: &mut Errors,
) -> Option<ToolDef> {
    let a = attrs::tool(attr, errors);
    let name = name_or_default(a.name.as_ref(), f);
    validate::tool_name(&name, errors);
    let description = description(a.description.as_ref(), f, "#[tool]", errors);
    validate::timeout(a.timeout_ms.as_ref(), errors);
    validate::task_support(a.task_support.as_ref(), errors);
    validate::ui(a.ui.as_ref(), a.visibility.as_deref(), errors);
    let mut method = method?;
    method.blocking = a.blocking.is_some_and(|f| f.value);
    if !validate::args_struct(&method, errors) {
        return None;
    }
    Some(ToolDef {
        method,
        name,
        title: a.title,
        description,
        read_only: a.read_only,
        destructive: a.destructive,
        idempotent: a.idempotent,
        open_world: a.open_world,
        input_schema: a.input_schema,
        output_schema: a.output_schema,
        timeout_ms: a.timeout_ms,
        meta: a.meta,
        icons: a.icons,
        task_support: a.task_support,
        scopes: a.scopes,
        ui: a.ui,
        visibility: a.visibility,
    })
}

pub(super) fn resource(
    f: &ImplItemFn,
    attr: &Attribute,
    method: Option<Method>,
    errors: &mut Errors,
) -> Option<ResourceDef> {
    let a = attrs::resource(attr, errors);
    let Some(uri) = a.uri.clone() else {
        errors.on(
            attr,
            "#[resource] needs the resource's URI: `#[resource(uri = \"scheme://path\")]` (with \
             `{variables}` for a template)",
        );
        return None;
    };
    let description = description_text(a.description.as_ref(), f);
    let variables = match uri_template::variables(&uri.value()) {
        Ok(v) => v,
        Err(e) => {
            let value = uri.value();
            let at = value.get(e.offset..).unwrap_or("");
            errors.on(
                &uri,
                format!(
                    "malformed URI template: {} (at byte {}: `{}`); see RFC 6570",
                    e.message, e.offset, at
                ),
            );
            return None;
        }
    };
    let name = name_or_default(a.name.as_ref(), f);
    let mut method = method?;
    // A parameter named after no variable of the template is an extractor (checked by
    // `FromContext`), unless it is marked #[arg] or of a type no extractor can have: then it
    // is a misnamed variable, reported as such.
    for p in &mut method.params {
        if let ParamKind::Value(v) = &p.kind
            && !v.explicit
            && !types::is_never_extractor(&p.ty)
            && !variables.iter().any(|var| var.name == v.name.value)
        {
            p.kind = ParamKind::Extractor;
        }
    }
    let ok = validate::template_params(&uri, &variables, &method, &f.sig.ident, errors);
    let is_template = !variables.is_empty() || uri.value().contains('{');
    method.blocking = a.blocking.is_some_and(|f| f.value);
    ok.then(|| ResourceDef {
        method,
        variables: variables.into_iter().map(|v| v.name).collect(),
        is_template,
        uri,
        name,
        title: a.title,
        description,
        mime_type: a.mime_type,
        meta: a.meta,
        scopes: a.scopes,
    })
}

pub(super) fn prompt(
    f: &ImplItemFn,
    attr: &Attribute,
    method: Option<Method>,
    errors: &mut Errors,
) -> Option<PromptDef> {
    let a = attrs::prompt(attr, errors);
    let name = name_or_default(a.name.as_ref(), f);
    validate::prompt_name(&name, errors);
    let description = description(a.description.as_ref(), f, "#[prompt]", errors);
    let mut method = method?;
    method.blocking = a.blocking.is_some_and(|f| f.value);
    Some(PromptDef {
        method,
        name,
        title: a.title,
        description,
        meta: a.meta,
        scopes: a.scopes,
    })
}

pub(super) fn completion(
    f: &ImplItemFn,
    attr: &Attribute,
    method: Option<Method>,
    errors: &mut Errors,
) -> Option<CompletionDef> {
    let a = attrs::completion(attr, errors);
    let target = match (a.prompt, a.resource) {
        (Some(p), None) => CompletionTarget::Prompt(p),
        (None, Some(r)) => CompletionTarget::Resource(r),
        (Some(_), Some(r)) => {
            errors.on(
                &r,
                "a #[completion] answers for one prompt or one resource template: keep either \
                 `prompt = ...` or `resource = ...`",
            );
            return None;
        }
        (None, None) => {
            errors.on(
                attr,
                "#[completion] needs its target: `#[completion(prompt = \"name\", argument = \
                 \"arg\")]` or `#[completion(resource = \"uri template\", argument = \"var\")]`",
            );
            return None;
        }
    };
    let Some(argument) = a.argument else {
        errors.on(
            attr,
            "#[completion] needs `argument = \"...\"`: the prompt argument or template variable \
             it completes",
        );
        return None;
    };
    let method = method?;
    if !validate::completion_value(&method, &f.sig.ident, errors) {
        return None;
    }
    Some(CompletionDef {
        method,
        target,
        argument,
    })
}
