//! Requests the server makes of the client (sampling, roots, elicitation), answered by the
//! application through [`ClientHandler`]: as JSON-RPC requests in the legacy era, and as the
//! input requests of a 2026 `input_required` result.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use ferromcp_core::error::{ErrorCode, ErrorObject};
use ferromcp_core::types::{
    CreateMessageRequestParams, CreateMessageResult, ElicitRequestParams, ElicitResult,
    InputRequest, InputRequests, InputResponse, InputResponses, ListRootsResult, ServerRequest,
};
use serde_json::{Value, json};

/// A boxed future, as the methods of [`ClientHandler`] return.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// What the client answers when the server asks something of it.
///
/// Every method has a default that refuses with "method not found"; implement those whose
/// capability the client declares in [`ClientOptions::capabilities`](crate::ClientOptions::capabilities).
/// The same methods answer legacy server-to-client requests and 2026 input requests.
///
/// # Examples
///
/// ```
/// use ferromcp_client::{BoxFuture, ClientHandler};
/// use ferromcp_client::rpc::ErrorObject;
/// use ferromcp_client::types::{ListRootsResult, Root};
///
/// struct Roots;
///
/// impl ClientHandler for Roots {
///     fn list_roots(&self) -> BoxFuture<'_, Result<ListRootsResult, ErrorObject>> {
///         Box::pin(async { Ok(ListRootsResult::new(vec![Root::new("file:///tmp")])) })
///     }
/// }
/// ```
pub trait ClientHandler: Send + Sync + 'static {
    /// `sampling/createMessage`: run the model on these messages.
    fn create_message(
        &self,
        params: CreateMessageRequestParams,
    ) -> BoxFuture<'_, Result<CreateMessageResult, ErrorObject>> {
        let _ = params;
        Box::pin(async { Err(ErrorObject::method_not_found("sampling/createMessage")) })
    }

    /// `roots/list`: the roots the client exposes.
    fn list_roots(&self) -> BoxFuture<'_, Result<ListRootsResult, ErrorObject>> {
        Box::pin(async { Err(ErrorObject::method_not_found("roots/list")) })
    }

    /// `elicitation/create`: ask the user.
    fn elicit(
        &self,
        params: ElicitRequestParams,
    ) -> BoxFuture<'_, Result<ElicitResult, ErrorObject>> {
        let _ = params;
        Box::pin(async { Err(ErrorObject::method_not_found("elicitation/create")) })
    }
}

/// The application's handler, if any.
#[derive(Clone, Default)]
pub(crate) struct ServerRequests(pub(crate) Option<Arc<dyn ClientHandler>>);

impl std::fmt::Debug for ServerRequests {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.0.is_some() {
            "ServerRequests(handler)"
        } else {
            "ServerRequests(none)"
        })
    }
}

fn to_value<T: serde::Serialize>(r: Result<T, ErrorObject>) -> Result<Value, ErrorObject> {
    r.and_then(|v| serde_json::to_value(v).map_err(|e| ErrorObject::internal_error(e.to_string())))
}

impl ServerRequests {
    /// Answers one input request (2026) through the handler.
    async fn input(&self, request: InputRequest) -> Result<InputResponse, ErrorObject> {
        let Some(h) = &self.0 else {
            return Err(ErrorObject::method_not_found(request.method()));
        };
        Ok(match request {
            InputRequest::CreateMessage(r) => {
                InputResponse::CreateMessage(h.create_message(r.params).await?)
            }
            InputRequest::ListRoots(_) => InputResponse::ListRoots(h.list_roots().await?),
            InputRequest::Elicit(r) => InputResponse::Elicit(h.elicit(r.params).await?),
        })
    }

    /// Answers every input request of a 2026 `input_required` result.
    pub(crate) async fn inputs(
        &self,
        requests: InputRequests,
    ) -> Result<InputResponses, ErrorObject> {
        let mut out = InputResponses::new();
        for (key, request) in requests {
            out.insert(key, self.input(request).await?);
        }
        Ok(out)
    }

    /// The response message to a request the server sent.
    pub(crate) async fn respond(&self, msg: Value) -> Value {
        let id = msg.get("id").cloned().unwrap_or(Value::Null);
        let out = match serde_json::from_value::<ServerRequest>(msg) {
            Ok(request) => self.answer(request).await,
            Err(e) => Err(ErrorObject::new(ErrorCode(-32601), e.to_string())),
        };
        match out {
            Ok(result) => json!({"jsonrpc": "2.0", "id": id, "result": result}),
            Err(error) => json!({"jsonrpc": "2.0", "id": id, "error": error}),
        }
    }

    /// The result of a legacy server-to-client request.
    async fn answer(&self, request: ServerRequest) -> Result<Value, ErrorObject> {
        let h = self.0.as_ref();
        match (request, h) {
            (ServerRequest::Ping(_), _) => Ok(json!({})),
            (ServerRequest::CreateMessage(r), Some(h)) => {
                to_value(h.create_message(r.params).await)
            }
            (ServerRequest::ListRoots(_), Some(h)) => to_value(h.list_roots().await),
            (ServerRequest::Elicit(r), Some(h)) => to_value(h.elicit(r.params).await),
            (other, _) => Err(ErrorObject::method_not_found(other.method())),
        }
    }
}
