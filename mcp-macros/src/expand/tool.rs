//! A `#[tool]`: the hidden arguments struct, the descriptor (built once per process) and the
//! `ToolHandler` impl.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::Type;
use syn::ext::IdentExt as _;
use syn::spanned::Spanned;

use super::{arguments, handler_type, invoke, opt_str, output_span};
use crate::attrs::Flag;
use crate::model::{ParamKind, ToolDef};

pub(crate) fn expand(self_ty: &Type, t: &ToolDef) -> (TokenStream, TokenStream) {
    let m = &t.method;
    let (handler, handler_def) = handler_type("Tool", m, self_ty);
    let mut items = handler_def;

    // The input type: the user's #[args] struct, or a hidden struct of the arguments.
    let args_struct = m.params.iter().find(|p| matches!(p.kind, ParamKind::Args));
    let args_ty = match args_struct {
        Some(p) => {
            let ty = &p.ty;
            quote!(#ty)
        }
        None => {
            let name = format_ident!("__McpArgs_{}", m.ident.unraw());
            items.extend(args_struct_def(&name, t));
            quote!(#name)
        }
    };

    let on_error = quote!(return ::mcp_server::__private::Result::Err(e));
    let (lets, call_args) = arguments(m, &on_error, |_, p| match &p.kind {
        ParamKind::Value(v) => {
            let id = &v.ident;
            quote!(__args.#id)
        }
        _ => quote!(__args),
    });
    let call = invoke(self_ty, m, &call_args);
    let convert = quote_spanned!(output_span(m)=> ::mcp_server::__private::tool_result(__out));

    let name = &t.name.value;
    let title = opt_str(t.title.as_ref());
    let description = &t.description;
    let flag = |f: &Option<Flag>| match f {
        Some(Flag { value }) => quote!(::mcp_server::__private::Option::Some(#value)),
        None => quote!(::mcp_server::__private::Option::None),
    };
    let (read_only, destructive, idempotent, open_world) = (
        flag(&t.read_only),
        flag(&t.destructive),
        flag(&t.idempotent),
        flag(&t.open_world),
    );
    let input = match &t.input_schema {
        Some(expr) => quote! {
            ::mcp_server::__private::raw_schema(#name, "input_schema", #expr)?
        },
        None => quote!(::mcp_server::__private::input_schema_for::<#args_ty>()),
    };
    let output = match (&t.output_schema, &t.structured) {
        (Some(expr), _) => quote! {
            tool.output_schema = ::mcp_server::__private::Option::Some(
                ::mcp_server::__private::raw_schema(#name, "output_schema", #expr)?
            );
        },
        (None, Some(ty)) => {
            let schema =
                quote_spanned!(ty.span()=> ::mcp_server::__private::output_schema_for::<#ty>());
            quote! {
                tool.output_schema = ::mcp_server::__private::Option::Some(#schema);
            }
        }
        (None, None) => TokenStream::new(),
    };
    let meta = t.meta.as_ref().map(|expr| {
        quote! {
            tool.meta = ::mcp_server::__private::Option::Some(
                ::mcp_server::__private::meta(#name, #expr)?
            );
        }
    });
    let icons = t.icons.as_ref().map(|expr| {
        quote! {
            tool.icons = ::mcp_server::__private::Option::Some(#expr);
        }
    });

    items.extend(quote! {
        impl #handler {
            fn descriptor() -> ::mcp_server::__private::Result<
                ::mcp_server::__private::Tool,
                ::mcp_server::__private::RegistryError,
            > {
                const SPEC: ::mcp_server::__private::ToolSpec = ::mcp_server::__private::ToolSpec {
                    name: #name,
                    title: #title,
                    description: #description,
                    read_only: #read_only,
                    destructive: #destructive,
                    idempotent: #idempotent,
                    open_world: #open_world,
                };
                static DESCRIPTOR: ::mcp_server::__private::OnceLock<
                    ::mcp_server::__private::Result<
                        ::mcp_server::__private::Tool,
                        ::mcp_server::__private::RegistryError,
                    >,
                > = ::mcp_server::__private::OnceLock::new();
                ::mcp_server::__private::cached(&DESCRIPTOR, || {
                    let mut tool = ::mcp_server::__private::tool(&SPEC, #input);
                    #output
                    #meta
                    #icons
                    ::mcp_server::__private::Result::Ok(tool)
                })
            }
        }

        #[automatically_derived]
        impl ::mcp_server::__private::ToolHandler for #handler {
            fn call(
                &self,
                arguments: ::mcp_server::__private::Option<&::mcp_server::__private::RawValue>,
                ctx: ::mcp_server::__private::Context,
            ) -> ::mcp_server::__private::BoxFuture<
                ::mcp_server::__private::Result<
                    ::mcp_server::__private::CallToolResult,
                    ::mcp_server::__private::HandlerError,
                >,
            > {
                let this = ::mcp_server::__private::Arc::clone(&self.0);
                let __parsed = ::mcp_server::__private::tool_arguments::<#args_ty>(arguments);
                ::mcp_server::__private::Box::pin(async move {
                    let __args = match __parsed {
                        ::mcp_server::__private::Result::Ok(args) => args,
                        ::mcp_server::__private::Result::Err(message) => {
                            return ::mcp_server::__private::Result::Ok(
                                ::mcp_server::__private::CallToolResult::error(message),
                            );
                        }
                    };
                    #lets
                    let __out = #call;
                    #convert
                })
            }
        }
    });

    let timeout = match &t.timeout_ms {
        Some(ms) => quote!(::mcp_server::__private::timeout(#ms)),
        None => quote!(::mcp_server::__private::Option::None),
    };
    let scopes = (!t.scopes.is_empty()).then(|| {
        let name = &t.name.value;
        let scopes = &t.scopes;
        quote! {
            registry.require_scopes(
                ::mcp_server::__private::ScopedItem::Tool(#name),
                [#(#scopes),*],
            );
        }
    });
    let register = quote! {
        registry.add_tool(
            #handler::descriptor()?,
            #handler(::mcp_server::__private::Arc::clone(&this)),
            #timeout,
        )?;
        #scopes
    };
    (items, register)
}

/// `struct __McpArgs_x { ... }`: one field per argument, deserialized straight from the raw
/// JSON, unknown fields refused, descriptions and defaults in the schema.
fn args_struct_def(name: &syn::Ident, t: &ToolDef) -> TokenStream {
    let mut fields = Vec::new();
    let mut defaults = Vec::new();
    for p in &t.method.params {
        let ParamKind::Value(v) = &p.kind else {
            continue;
        };
        let id = &v.ident;
        let ty = &p.ty;
        let rename = v.rename.as_ref().map(|r| quote!(#[serde(rename = #r)]));
        let description = v
            .description
            .as_ref()
            .map(|d| quote!(#[schemars(description = #d)]));
        let default = v.default.as_ref().map(|expr| {
            let f = format_ident!("__default_{}", id.unraw());
            defaults.push(quote! {
                fn #f() -> #ty {
                    #expr
                }
            });
            let path = format!("{name}::{f}");
            quote!(#[serde(default = #path)])
        });
        fields.push(quote! {
            #rename
            #description
            #default
            #id: #ty
        });
    }
    let impl_defaults = (!defaults.is_empty()).then(|| {
        quote! {
            impl #name {
                #(#defaults)*
            }
        }
    });
    quote! {
        #[derive(
            ::mcp_server::__private::serde::Deserialize,
            ::mcp_server::__private::schemars::JsonSchema
        )]
        #[serde(
            crate = "::mcp_server::__private::serde",
            deny_unknown_fields,
            expecting = "an object of arguments"
        )]
        #[schemars(crate = "::mcp_server::__private::schemars")]
        struct #name {
            #(#fields,)*
        }
        #impl_defaults
    }
}
