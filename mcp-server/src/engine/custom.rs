//! Custom request methods: run through the same context and guard as a tool call.

use ferromcp_core::error::ErrorObject;
use ferromcp_core::jsonrpc::{Params, Request};

use super::*;

impl Engine {
    /// A request whose method is no protocol method: a custom method's handler answers it,
    /// or it is -32601.
    pub(super) async fn custom_request(
        &self,
        req: &Request,
        scope: Scope<'_>,
        sink: Sink,
        cancel: tokio_util::sync::CancellationToken,
    ) -> Result<Reply, ErrorObject> {
        let Some(method) = self.config().custom.method(&req.method).cloned() else {
            return Err(ErrorObject::method_not_found(&req.method));
        };
        let ctx = self.context(&req.id, &scope, sink, cancel, None, None)?;
        let params = req.params.as_ref().map(Params::get);
        let call_ctx = ctx.clone();
        let driven = drive(
            &ctx,
            ("method", &req.method),
            self.config().tool_timeout,
            move || method.call(params, call_ctx),
        )
        .await;
        Ok(self.finish(&ctx, driven, "method", None, None))
    }
}
