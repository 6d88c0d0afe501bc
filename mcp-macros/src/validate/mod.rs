//! What the model can hold but the macro refuses, with how to fix it.
//!
//! The per-method checks are called from [`parse`](crate::parse) at the point each fact is
//! known: errors keep the order of the method's tokens, and a method the model cannot hold
//! stops before its later checks (one mistake, one error). [`check`] then looks across the
//! methods of one impl block: duplicate names and URIs, and completions that point at a
//! prompt argument or template variable that exists.

mod params;
mod primitives;
mod server;

pub(crate) use params::{
    args_param, arguments_section, extractor_param, param_type, signature, unique_headers,
    unique_param_names, value_arg,
};
pub(crate) use primitives::{
    args_struct, completion_value, description, prompt_name, task_support, template_params,
    timeout, tool_name, ui,
};
pub(crate) use server::check;
