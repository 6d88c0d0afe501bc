//! From the impl block's syntax to the typed model, checking each method on its own.

use proc_macro2::TokenStream;
use quote::ToTokens;
use syn::ext::IdentExt as _;
use syn::{Attribute, FnArg, ImplItem, ImplItemFn, ItemImpl, LitStr, Pat, ReturnType, Signature};

use crate::attrs::{self, ArgArgs};
use crate::diag::{Errors, closest};
use crate::docs::{self, Doc};
use crate::model::*;
use crate::types;
use crate::uri_template;

/// Which primitive a method attribute declares.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Tool,
    Resource,
    Prompt,
    Completion,
}

impl Kind {
    fn attr(self) -> &'static str {
        match self {
            Kind::Tool => "#[tool]",
            Kind::Resource => "#[resource]",
            Kind::Prompt => "#[prompt]",
            Kind::Completion => "#[completion]",
        }
    }
}

/// `#[tool]`, `#[mcp_server::tool]`, … on a method.
pub(crate) fn method_kind(attr: &Attribute) -> Option<Kind> {
    let path = attr.path();
    let last = path.segments.last()?;
    let ours = path.segments.len() == 1
        || path
            .segments
            .first()
            .is_some_and(|s| s.ident == "mcp_server");
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
    if let Some((_, path, _)) = &item.trait_ {
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
    };
    for entry in &item.items {
        let ImplItem::Fn(f) = entry else { continue };
        let mut kinds = f
            .attrs
            .iter()
            .filter_map(|a| method_kind(a).map(|k| (a, k)));
        let Some((attr, kind)) = kinds.next() else {
            continue;
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
            continue;
        }
        let mut local = Errors::default();
        let method = method(f, kind, &mut local);
        match kind {
            Kind::Tool => {
                if let Some(t) = tool(f, attr, method, &mut local) {
                    def.tools.push(t);
                }
            }
            Kind::Resource => {
                if let Some(r) = resource(f, attr, method, &mut local) {
                    def.resources.push(r);
                }
            }
            Kind::Prompt => {
                if let Some(p) = prompt(f, attr, method, &mut local) {
                    def.prompts.push(p);
                }
            }
            Kind::Completion => {
                if let Some(c) = completion(f, attr, method, &mut local) {
                    def.completions.push(c);
                }
            }
        }
        if let Some(e) = local.into_error() {
            errors.push(e);
        }
    }
    Some(def)
}

/// The signature checks every kind shares, and the parameters. `None` when the signature is
/// unusable (errors reported).
fn method(f: &ImplItemFn, kind: Kind, errors: &mut Errors) -> Option<Method> {
    let sig = &f.sig;
    let what = kind.attr();
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
    if let Some(token) = &sig.unsafety {
        errors.on(
            token,
            format!("a {what} method cannot be `unsafe`: the server calls it for any client"),
        );
        ok = false;
    }
    let receiver = receiver(sig, what, errors);
    let params = params(f, kind, errors);
    let output = match &sig.output {
        ReturnType::Default => None,
        ReturnType::Type(_, ty) => Some((**ty).clone()),
    };
    match (receiver, params) {
        (Some(receiver), Some(params)) if ok => Some(Method {
            ident: sig.ident.clone(),
            receiver,
            is_async: sig.asyncness.is_some(),
            blocking: false,
            output,
            params,
        }),
        _ => None,
    }
}

fn receiver(sig: &Signature, what: &str, errors: &mut Errors) -> Option<Receiver> {
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
    if r.colon_token.is_some() {
        let is_arc_self = types::unwrap_named(&r.ty, "Arc")
            .is_some_and(|inner| inner.to_token_stream().to_string() == "Self");
        if is_arc_self {
            return Some(Receiver::Arc);
        }
        errors.on(
            &r.ty,
            format!("a {what} method must {fix}; this receiver type is not supported"),
        );
        return None;
    }
    match (&r.reference, &r.mutability) {
        (Some(_), None) => Some(Receiver::Ref),
        (Some(_), Some(m)) => {
            errors.on(
                m,
                format!(
                    "a {what} method cannot take `&mut self`: calls run concurrently; {fix} and \
                     keep mutable state behind a `Mutex`, `RwLock` or atomics"
                ),
            );
            None
        }
        (None, _) => {
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

fn params(f: &ImplItemFn, kind: Kind, errors: &mut Errors) -> Option<Vec<Param>> {
    let what = kind.attr();
    let section = docs::arguments_section(&f.attrs);
    let mut out = Vec::new();
    let mut ok = true;
    for input in f.sig.inputs.iter().skip(1) {
        let FnArg::Typed(pt) = input else { continue };
        let mut arg: Option<(ArgArgs, &Attribute)> = None;
        let mut args_attr = None;
        let mut extract_attr = None;
        for attr in &pt.attrs {
            if attr.path().is_ident("arg") {
                if arg.is_some() {
                    errors.on(attr, "#[arg] is given twice; merge the two into one");
                    ok = false;
                }
                arg = Some((attrs::arg(attr, errors), attr));
            } else if attr.path().is_ident("args") {
                attrs::marker(attr, errors);
                args_attr = Some(attr);
            } else if attr.path().is_ident("extract") {
                attrs::marker(attr, errors);
                extract_attr = Some(attr);
            }
        }
        let ty = (*pt.ty).clone();
        if extract_attr.is_some() || (args_attr.is_none() && types::is_extractor_by_name(&ty)) {
            if let Some((_, attr)) = &arg {
                errors.on(
                    *attr,
                    "#[arg] does not apply to an extractor parameter (it is not part of the \
                     input); remove it",
                );
                ok = false;
            }
            if let (Some(_), Some(a)) = (extract_attr, args_attr) {
                errors.on(a, "a parameter is either #[args] or #[extract], not both");
                ok = false;
            }
            out.push(Param {
                ty,
                kind: ParamKind::Extractor,
            });
            continue;
        }
        if let Some(a) = args_attr {
            if kind != Kind::Tool {
                errors.on(
                    a,
                    format!(
                        "#[args] is for tools only; the parameters of a {what} are its \
                         arguments one by one"
                    ),
                );
                ok = false;
            } else if let Some((_, attr)) = &arg {
                errors.on(
                    *attr,
                    "#[arg] does not apply to an #[args] struct: put `///` docs and \
                     `#[serde(...)]` attributes on the struct's fields",
                );
                ok = false;
            } else if let Some((bad, msg)) = types::unsupported(&ty) {
                errors.on(bad, msg);
                ok = false;
            }
            out.push(Param {
                ty,
                kind: ParamKind::Args,
            });
            continue;
        }
        let ident = match &*pt.pat {
            Pat::Ident(p) if p.by_ref.is_none() && p.subpat.is_none() => p.ident.clone(),
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
                ok = false;
                continue;
            }
        };
        if let Some((bad, msg)) = types::unsupported(&ty) {
            errors.on(bad, msg);
            ok = false;
            continue;
        }
        let arg = arg.map_or_else(ArgArgs::default, |(a, _)| a);
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
        out.push(Param {
            kind: ParamKind::Value(Box::new(ValueParam {
                ident,
                name,
                description,
                default: arg.default,
                rename: arg.rename,
                optional: types::option_inner(&ty).cloned(),
            })),
            ty,
        });
    }
    // An `# Arguments` entry naming no parameter is a stale doc or a typo.
    let has_args_struct = out.iter().any(|p| matches!(p.kind, ParamKind::Args));
    if !has_args_struct {
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
        for entry in &section {
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
    }
    let mut seen: Vec<&str> = Vec::new();
    for v in out.iter().filter_map(|p| match &p.kind {
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
    ok.then_some(out)
}

/// The method's identifier as a wire name, without `r#`.
fn default_name(f: &ImplItemFn) -> Named {
    Named {
        value: f.sig.ident.unraw().to_string(),
        span: f.sig.ident.span(),
    }
}

fn name_or_default(lit: Option<&LitStr>, f: &ImplItemFn) -> Named {
    match lit {
        Some(lit) => Named {
            value: lit.value(),
            span: lit.span(),
        },
        None => default_name(f),
    }
}

/// The description from `description = "..."` or the first doc paragraph.
fn description(lit: Option<&LitStr>, f: &ImplItemFn, what: &str, errors: &mut Errors) -> String {
    if let Some(lit) = lit {
        let value = lit.value();
        if value.trim().is_empty() {
            errors.on(
                lit,
                format!("the description of a {what} cannot be empty: say what it does"),
            );
        }
        return value;
    }
    match Doc::of(&f.attrs).summary() {
        Some(s) => s,
        None => {
            errors.on(
                &f.sig.ident,
                format!(
                    "{what} `{}` has no description: add a `///` doc comment (its first \
                     paragraph is the description the model reads) or `description = \"...\"`",
                    f.sig.ident
                ),
            );
            String::new()
        }
    }
}

fn tool(
    f: &ImplItemFn,
    attr: &Attribute,
    method: Option<Method>,
    errors: &mut Errors,
) -> Option<ToolDef> {
    let a = attrs::tool(attr, errors);
    let name = name_or_default(a.name.as_ref(), f);
    check_tool_name(&name, errors);
    let description = description(a.description.as_ref(), f, "#[tool]", errors);
    if let Some(t) = &a.timeout_ms {
        match t.base10_parse::<u64>() {
            Ok(0) => errors.on(
                t,
                "a timeout of 0 ms would fail every call; give a positive number",
            ),
            Ok(_) => {}
            Err(e) => errors.on(t, e),
        }
    }
    let mut method = method?;
    method.blocking = a.blocking.is_some_and(|f| f.value);
    let mut args_structs = method
        .params
        .iter()
        .filter(|p| matches!(p.kind, ParamKind::Args));
    if args_structs.next().is_some() {
        if let Some(second) = args_structs.next() {
            errors.on(&second.ty, "only one parameter can be #[args]");
            return None;
        }
        if let Some(v) = method.values().next() {
            errors.on(
                &v.ident,
                "with #[args], the struct is the whole input: add this field to the struct, or \
                 make this parameter an extractor (Context, State<T>, #[extract])",
            );
            return None;
        }
    }
    let structured = method.output.as_ref().and_then(types::json_inner).cloned();
    Some(ToolDef {
        structured,
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
    })
}

fn check_tool_name(name: &Named, errors: &mut Errors) {
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

fn resource(
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
    let description = match &a.description {
        Some(lit) => Some(lit.value()),
        None => Doc::of(&f.attrs).summary(),
    };
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
    let mut ok = true;
    for var in &variables {
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
                &uri,
                format!(
                    "URI template variable `{}` has no parameter: add {suggestion} to `{}`",
                    var.name, f.sig.ident
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
    })
}

fn prompt(
    f: &ImplItemFn,
    attr: &Attribute,
    method: Option<Method>,
    errors: &mut Errors,
) -> Option<PromptDef> {
    let a = attrs::prompt(attr, errors);
    let name = name_or_default(a.name.as_ref(), f);
    if name.value.is_empty() {
        errors.at(name.span, "a prompt name cannot be empty");
    }
    let description = description(a.description.as_ref(), f, "#[prompt]", errors);
    let mut method = method?;
    method.blocking = a.blocking.is_some_and(|f| f.value);
    Some(PromptDef {
        method,
        name,
        title: a.title,
        description,
    })
}

fn completion(
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
    let values: Vec<&ValueParam> = method.values().collect();
    match values.first() {
        None => {
            errors.on(
                &f.sig.ident,
                "a #[completion] method takes the partial value: add a `value: String` parameter",
            );
            return None;
        }
        Some(first) => {
            if let Some(second) = values.get(1) {
                errors.on(
                    &second.ident,
                    "a #[completion] method takes one value (the partial `String`) besides \
                     extractors; remove this parameter",
                );
                return None;
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
                return None;
            }
        }
    }
    Some(CompletionDef {
        method,
        target,
        argument,
    })
}
