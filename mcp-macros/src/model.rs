//! The typed model of a `#[server]` impl block: what each annotated method declares, with
//! the user's syntax (and so its spans) kept for errors and for the expansion.

use proc_macro2::Span;
use quote::ToTokens;
use syn::{Attribute, Expr, Ident, LitInt, LitStr, Type};

use crate::attrs::{Flag, ServerArgs};

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

pub(crate) struct ServerDef {
    pub(crate) self_ty: Type,
    pub(crate) args: ServerArgs,
    pub(crate) tools: Vec<ToolDef>,
    pub(crate) resources: Vec<ResourceDef>,
    pub(crate) prompts: Vec<PromptDef>,
    pub(crate) completions: Vec<CompletionDef>,
    /// The resource URIs and prompt names of methods left out after an error: a completion
    /// naming one is not reported again.
    pub(crate) broken: Vec<String>,
}

/// A string chosen by the user or derived from the method, with the token to blame.
pub(crate) struct Named {
    pub(crate) value: String,
    pub(crate) span: Span,
}

/// How the method receives the server.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Receiver {
    /// `&self`
    Ref,
    /// `self: Arc<Self>`
    Arc,
}

/// What the annotated method looks like.
pub(crate) struct Method {
    pub(crate) ident: Ident,
    /// The method's `#[cfg(...)]` attributes, repeated on everything generated for it.
    pub(crate) cfg: Vec<Attribute>,
    pub(crate) receiver: Receiver,
    pub(crate) is_async: bool,
    /// `blocking`: the call runs on tokio's blocking thread pool.
    pub(crate) blocking: bool,
    /// The declared return type; `None` for `()`.
    pub(crate) output: Option<Type>,
    pub(crate) params: Vec<Param>,
}

/// One parameter, in declaration order.
pub(crate) struct Param {
    pub(crate) ty: Type,
    pub(crate) kind: ParamKind,
}

pub(crate) enum ParamKind {
    /// Taken from the request context (`FromContext`): marked `#[extract]`, beside an
    /// `#[args]` struct, or, outside tools, a parameter that cannot be a value (see
    /// `parse::params`).
    Extractor,
    /// The whole input (`#[args]`).
    Args,
    /// A named value: a tool argument, a template variable or a prompt argument.
    Value(Box<ValueParam>),
}

pub(crate) struct ValueParam {
    /// The Rust identifier.
    pub(crate) ident: Ident,
    /// The name on the wire (after `rename`).
    pub(crate) name: Named,
    pub(crate) description: Option<String>,
    pub(crate) default: Option<Expr>,
    /// `T` when the type is `Option<T>`.
    pub(crate) optional: Option<Type>,
    /// Marked `#[arg]`: a value for certain, whatever its type's traits say.
    pub(crate) explicit: bool,
    /// `#[arg(header = "…")]`: the `Mcp-Param-*` header a 2026 HTTP client mirrors it into.
    pub(crate) header: Option<LitStr>,
    /// `#[arg(unchecked_path)]`: a template variable exempt from the path check.
    pub(crate) unchecked_path: bool,
}

impl Method {
    /// The method's `#[cfg]` conditions as text: two methods with the same key are compiled
    /// together, so their names must differ.
    pub(crate) fn cfg_key(&self) -> String {
        self.cfg
            .iter()
            .map(|a| a.to_token_stream().to_string())
            .collect::<Vec<_>>()
            .join(" ")
    }

    pub(crate) fn values(&self) -> impl Iterator<Item = &ValueParam> {
        self.params.iter().filter_map(|p| match &p.kind {
            ParamKind::Value(v) => Some(v.as_ref()),
            _ => None,
        })
    }
}

pub(crate) struct ToolDef {
    pub(crate) method: Method,
    pub(crate) name: Named,
    pub(crate) title: Option<LitStr>,
    pub(crate) description: String,
    pub(crate) read_only: Option<Flag>,
    pub(crate) destructive: Option<Flag>,
    pub(crate) idempotent: Option<Flag>,
    pub(crate) open_world: Option<Flag>,
    pub(crate) input_schema: Option<Expr>,
    pub(crate) output_schema: Option<Expr>,
    pub(crate) timeout_ms: Option<LitInt>,
    pub(crate) meta: Option<Expr>,
    pub(crate) icons: Option<Expr>,
    /// `forbidden`, `optional` or `required` (validated).
    pub(crate) task_support: Option<LitStr>,
    /// OAuth scopes a caller needs (`scopes = [...]`).
    pub(crate) scopes: Vec<LitStr>,
    /// The `ui://` resource of the tool's app (validated).
    pub(crate) ui: Option<LitStr>,
    /// `model` and/or `app` (validated).
    pub(crate) visibility: Option<Vec<LitStr>>,
}

pub(crate) struct ResourceDef {
    pub(crate) method: Method,
    pub(crate) uri: LitStr,
    /// The template's variables; empty for a static resource.
    pub(crate) variables: Vec<String>,
    pub(crate) is_template: bool,
    pub(crate) name: Named,
    pub(crate) title: Option<LitStr>,
    pub(crate) description: Option<String>,
    pub(crate) mime_type: Option<LitStr>,
    /// `_meta` (`meta = …`), checked to be a JSON object at registration.
    pub(crate) meta: Option<Expr>,
    /// OAuth scopes a caller needs (`scopes = [...]`).
    pub(crate) scopes: Vec<LitStr>,
}

pub(crate) struct PromptDef {
    pub(crate) method: Method,
    pub(crate) name: Named,
    pub(crate) title: Option<LitStr>,
    pub(crate) description: String,
    /// `_meta` (`meta = …`), checked to be a JSON object at registration.
    pub(crate) meta: Option<Expr>,
    /// OAuth scopes a caller needs (`scopes = [...]`).
    pub(crate) scopes: Vec<LitStr>,
}

pub(crate) enum CompletionTarget {
    Prompt(LitStr),
    Resource(LitStr),
}

pub(crate) struct CompletionDef {
    pub(crate) method: Method,
    pub(crate) target: CompletionTarget,
    pub(crate) argument: LitStr,
}
