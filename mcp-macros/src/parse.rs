//! From the impl block's syntax to the typed model. What the model can hold but the macro
//! refuses is checked in [`validate`](crate::validate), called at the point each fact is known.

use proc_macro2::TokenStream;
use quote::ToTokens;
use syn::ext::IdentExt as _;
use syn::{Attribute, FnArg, ImplItem, ImplItemFn, ItemImpl, LitStr, Pat, ReturnType, Signature};

use crate::attrs::{self, ArgArgs};
use crate::diag::Errors;
use crate::docs::{self, Doc};
use crate::model::*;
use crate::types;
use crate::{uri_template, validate};

/// Which primitive a method attribute declares.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Tool,
    Resource,
    Prompt,
    Completion,
}

impl Kind {
    pub(crate) fn attr(self) -> &'static str {
        match self {
            Kind::Tool => "#[tool]",
            Kind::Resource => "#[resource]",
            Kind::Prompt => "#[prompt]",
            Kind::Completion => "#[completion]",
        }
    }
}

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
            Kind::Resource => match resource(f, attr, method, &mut local) {
                Some(r) => def.resources.push(r),
                None => {
                    let uri = attrs::resource(attr, &mut Errors::default()).uri;
                    def.broken.extend(uri.map(|u| u.value()));
                }
            },
            Kind::Prompt => match prompt(f, attr, method, &mut local) {
                Some(p) => def.prompts.push(p),
                None => {
                    let name = attrs::prompt(attr, &mut Errors::default()).name;
                    def.broken.push(name_or_default(name.as_ref(), f).value);
                }
            },
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

/// The receiver and the parameters, after the signature checks every kind shares. `None`
/// when the signature is unusable (errors reported).
fn method(f: &ImplItemFn, kind: Kind, errors: &mut Errors) -> Option<Method> {
    let sig = &f.sig;
    let what = kind.attr();
    let ok = validate::signature(sig, what, errors);
    let receiver = receiver(sig, what, errors);
    let params = params(f, kind, errors);
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

fn params(f: &ImplItemFn, kind: Kind, errors: &mut Errors) -> Option<Vec<Param>> {
    let section = docs::arguments_section(&f.attrs);
    let mut out = Vec::new();
    let mut ok = true;
    let tool_has_args = kind == Kind::Tool
        && f.sig.inputs.iter().any(
            |i| matches!(i, FnArg::Typed(pt) if pt.attrs.iter().any(|a| a.path().is_ident("args"))),
        );
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
        let arg_attr = arg.as_ref().map(|(_, attr)| *attr);
        let destructured = matches!(&*pt.pat, Pat::TupleStruct(_) | Pat::Struct(_));
        let extractor = extract_attr.is_some()
            || (args_attr.is_none()
                && match kind {
                    // A tool's parameters are sorted by their types' traits in the generated
                    // code (`ferromcp::__private::Param`); only one that cannot be an
                    // argument (beside an `#[args]` struct, or destructured) is an
                    // extractor here.
                    Kind::Tool => tool_has_args || destructured,
                    // A completion takes one value, the partial `String`; any other
                    // parameter is an extractor (checked by `FromContext`).
                    Kind::Completion => {
                        destructured || (arg.is_none() && !types::is_never_extractor(&ty))
                    }
                    // Otherwise a resource's parameters are sorted once its template's
                    // variables are known (`resource`); a prompt's by their types' traits in
                    // the generated code (`ferromcp::__private::PromptParam`).
                    Kind::Resource | Kind::Prompt => destructured,
                });
        if extractor {
            ok &= validate::extractor_param(arg_attr, extract_attr, args_attr, errors);
            out.push(Param {
                ty,
                kind: ParamKind::Extractor,
            });
            continue;
        }
        if let Some(a) = args_attr {
            ok &= validate::args_param(a, arg_attr, &ty, kind, errors);
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
        if !validate::param_type(&ty, errors) {
            ok = false;
            continue;
        }
        let arg = arg.map_or_else(ArgArgs::default, |(a, _)| a);
        ok &= validate::value_arg(&arg, kind, errors);
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
                optional: types::option_inner(&ty).cloned(),
                explicit: arg_attr.is_some(),
                header: arg.header,
                unchecked_path: arg.unchecked_path.is_some(),
            })),
            ty,
        });
    }
    let has_args_struct = out.iter().any(|p| matches!(p.kind, ParamKind::Args));
    if !has_args_struct {
        ok &= validate::arguments_section(f, &section, errors);
    }
    ok &= validate::unique_param_names(&out, errors);
    ok &= validate::unique_headers(&out, errors);
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

fn tool(
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
    })
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
        scopes: a.scopes,
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
    validate::prompt_name(&name, errors);
    let description = description(a.description.as_ref(), f, "#[prompt]", errors);
    let mut method = method?;
    method.blocking = a.blocking.is_some_and(|f| f.value);
    Some(PromptDef {
        method,
        name,
        title: a.title,
        description,
        scopes: a.scopes,
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
    if !validate::completion_value(&method, &f.sig.ident, errors) {
        return None;
    }
    Some(CompletionDef {
        method,
        target,
        argument,
    })
}
