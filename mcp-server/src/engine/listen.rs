//! `subscriptions/listen` (2026): a long-lived stream of the change notifications the client
//! opted in to — acknowledged first, each tagged with the subscription's id, nothing the
//! client did not ask for.

use mcp_core::jsonrpc::{RequestId, WireNotification};
use mcp_core::types::{META_SUBSCRIPTION_ID, SubscriptionFilter};
use serde_json::{Value, json};
use tokio::sync::broadcast;
use tokio_util::sync::CancellationToken;

use super::Engine;
use crate::peer::sink::Sink;
use crate::registry::RegistryEvent;

/// An accepted `subscriptions/listen` request, ready to stream.
#[derive(Debug)]
pub(crate) struct Listen {
    pub(crate) id: RequestId,
    /// What the server agreed to send: the requested types it supports.
    pub(crate) filter: SubscriptionFilter,
    events: broadcast::Receiver<RegistryEvent>,
}

impl Listen {
    /// Accepts a listen request; subscribes to changes at once, so none is missed between
    /// the acknowledgement and the first notification.
    pub(crate) fn new(server: &Engine, id: RequestId, requested: SubscriptionFilter) -> Listen {
        let offers = server.registry().offers();
        let yes =
            |asked: Option<bool>, offered: bool| (asked == Some(true) && offered).then_some(true);
        let filter = SubscriptionFilter {
            tools_list_changed: yes(requested.tools_list_changed, offers.tools),
            prompts_list_changed: yes(requested.prompts_list_changed, offers.prompts),
            resources_list_changed: yes(requested.resources_list_changed, offers.resources),
            resource_subscriptions: requested
                .resource_subscriptions
                .filter(|uris| offers.resources && !uris.is_empty()),
            ..Default::default()
        };
        Listen {
            id,
            filter,
            events: server.registry().subscribe(),
        }
    }

    fn tag(&self) -> Value {
        json!({ META_SUBSCRIPTION_ID: self.id })
    }

    fn message(&self, method: &str, mut params: Value) -> Option<String> {
        if let Value::Object(map) = &mut params {
            map.insert("_meta".into(), self.tag());
        }
        serde_json::to_string(&WireNotification::new(method, Some(&params))).ok()
    }

    /// The acknowledgement, the stream's first message.
    pub(crate) fn acknowledgement(&self) -> Option<String> {
        let filter = serde_json::to_value(&self.filter).ok()?;
        self.message(
            "notifications/subscriptions/acknowledged",
            json!({ "notifications": filter }),
        )
    }

    /// The notification for one registry event, if the client opted in to it.
    fn notification(&self, event: &RegistryEvent) -> Option<String> {
        let f = &self.filter;
        match event {
            RegistryEvent::ToolsChanged if f.tools_list_changed == Some(true) => {
                self.message("notifications/tools/list_changed", json!({}))
            }
            RegistryEvent::PromptsChanged if f.prompts_list_changed == Some(true) => {
                self.message("notifications/prompts/list_changed", json!({}))
            }
            RegistryEvent::ResourcesChanged if f.resources_list_changed == Some(true) => {
                self.message("notifications/resources/list_changed", json!({}))
            }
            RegistryEvent::ResourceUpdated(uri)
                if f.resource_subscriptions
                    .as_ref()
                    .is_some_and(|u| u.contains(uri)) =>
            {
                self.message("notifications/resources/updated", json!({ "uri": uri }))
            }
            _ => None,
        }
    }

    /// Streams: the acknowledgement, then the notifications, until `cancel` fires or the
    /// peer goes away. Returns the final result to send when the server ended the stream
    /// itself (`shutdown`), or `None` when the client ended it.
    pub(crate) async fn run(
        mut self,
        sink: Sink,
        cancel: CancellationToken,
        shutdown: CancellationToken,
    ) -> Option<String> {
        if let Some(ack) = self.acknowledgement() {
            sink.send(ack).await;
        }
        loop {
            tokio::select! {
                biased;
                () = cancel.cancelled() => return None,
                () = shutdown.cancelled() => {
                    let result = json!({
                        "resultType": "complete",
                        "_meta": { META_SUBSCRIPTION_ID: self.id }
                    });
                    return serde_json::to_string(&mcp_core::jsonrpc::WireResponse::new(&self.id, &result)).ok();
                }
                event = self.events.recv() => match event {
                    Ok(event) => {
                        if let Some(message) = self.notification(&event) {
                            sink.send(message).await;
                        }
                    }
                    // Missed events: the lists may have changed in any way; say so.
                    Err(broadcast::error::RecvError::Lagged(_)) => {
                        for event in [RegistryEvent::ToolsChanged, RegistryEvent::PromptsChanged, RegistryEvent::ResourcesChanged] {
                            if let Some(message) = self.notification(&event) {
                                sink.send(message).await;
                            }
                        }
                    }
                    Err(broadcast::error::RecvError::Closed) => return None,
                },
            }
            if !sink.is_connected() {
                return None;
            }
        }
    }
}
