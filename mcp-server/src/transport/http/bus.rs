//! Change notifications shared by the instances of a server behind a load balancer: what
//! one instance's registry announces (`list_changed`, `resources/updated`) and the changes
//! of the 2026 tasks it runs are published on a [`NotificationBus`] (Redis pub/sub, with
//! `ferromcp-redis`), and every other instance announces them to the sessions and
//! `subscriptions/listen` streams it holds.
//!
//! Delivery is at most once: a message published while an instance is reconnecting to the
//! bus does not reach it. Registry notifications are hints to re-read (a list, a resource),
//! so a client that missed one sees the change at its next read; a task's state is always
//! there for `tasks/get`.

use std::sync::Arc;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use tokio::sync::{broadcast, mpsc};
use tokio_util::sync::CancellationToken;

use super::session::LiveSessionStore;
use crate::engine::Engine;
use crate::engine::tasks::TaskChange;
use crate::registry::RegistryEvent;
use crate::store::NotificationBus;

/// One event on the wire.
#[derive(Debug, Serialize, Deserialize)]
struct Wire {
    /// The instance that published it.
    from: String,
    /// `tools`, `prompts`, `resources` (a list changed), `updated` (a resource) or `task`
    /// (a 2026 task's new state).
    event: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    uri: Option<String>,
    /// The task's id, state (as `tasks/get` answers it) and whether it has ended.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    task: Option<(String, Value, bool)>,
    /// A 2025 task's status notification: the task's owner (`session <id>`) and the
    /// message, for the instance holding that session's stream (`legacy-task`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    note: Option<(String, String)>,
}

impl Wire {
    fn new(from: &str, event: &RegistryEvent) -> Wire {
        let (name, uri) = match event {
            RegistryEvent::ToolsChanged => ("tools", None),
            RegistryEvent::PromptsChanged => ("prompts", None),
            RegistryEvent::ResourcesChanged => ("resources", None),
            RegistryEvent::ResourceUpdated(uri) => ("updated", Some(uri.clone())),
        };
        Wire {
            from: from.to_owned(),
            event: name.to_owned(),
            uri,
            task: None,
            note: None,
        }
    }

    fn task(from: &str, change: &TaskChange) -> Wire {
        Wire {
            from: from.to_owned(),
            event: "task".to_owned(),
            uri: None,
            task: Some((change.id.clone(), change.task.clone(), change.ended)),
            note: None,
        }
    }

    fn legacy_task(from: &str, note: &(String, String)) -> Wire {
        Wire {
            from: from.to_owned(),
            event: "legacy-task".to_owned(),
            uri: None,
            task: None,
            note: Some(note.clone()),
        }
    }

    fn event(self) -> Option<RegistryEvent> {
        Some(match (self.event.as_str(), self.uri) {
            ("tools", _) => RegistryEvent::ToolsChanged,
            ("prompts", _) => RegistryEvent::PromptsChanged,
            ("resources", _) => RegistryEvent::ResourcesChanged,
            ("updated", Some(uri)) => RegistryEvent::ResourceUpdated(uri),
            _ => return None,
        })
    }
}

/// Events received from other instances and announced here, whose echo on this
/// instance's own registry must not be published again.
const ECHOES_MAX: usize = 1_024;

/// Publishes this instance's registry events and announces the other instances', until
/// `shutdown`.
pub(crate) async fn run(
    bus: Arc<dyn NotificationBus>,
    engine: Engine,
    sessions: Arc<dyn LiveSessionStore>,
    shutdown: CancellationToken,
) {
    let mut id = [0u8; 8];
    if getrandom::fill(&mut id).is_err() {
        tracing::error!("no randomness for the notification bus's instance id; bus not started");
        return;
    }
    let mut relay = Relay {
        me: id.iter().map(|b| format!("{b:02x}")).collect(),
        bus,
        engine,
        sessions,
        echoes: Vec::new(),
    };
    let mut local = relay.engine.registry().subscribe();
    let tasks = relay.engine.tasks();
    let mut task_changes = tasks.changes();
    let mut legacy_notes = tasks.legacy_notes();
    let (tx, mut remote) = mpsc::channel::<String>(1_024);
    let subscriber = {
        let bus = relay.bus.clone();
        async move {
            if let Err(e) = bus.subscribe(tx).await {
                tracing::warn!(error = %e, "the notification bus's subscription ended");
            }
        }
    };
    tokio::pin!(subscriber);
    loop {
        tokio::select! {
            biased;
            () = shutdown.cancelled() => return,
            () = &mut subscriber => {
                // It reconnects by itself; it ends only if it cannot go on at all.
                tokio::time::sleep(Duration::from_secs(1)).await;
                return;
            }
            message = remote.recv() => match message {
                Some(message) => relay.remote(&message),
                None => return,
            },
            event = local.recv() => match event {
                Ok(event) => relay.local(event).await,
                Err(broadcast::error::RecvError::Lagged(n)) => {
                    tracing::warn!(missed = n, "the notification bus fell behind this instance's changes");
                    relay.echoes.clear();
                }
                Err(broadcast::error::RecvError::Closed) => return,
            },
            change = task_changes.recv() => match change {
                Ok(change) if !change.remote => publish(&*relay.bus, &Wire::task(&relay.me, &change)).await,
                Ok(_) => {}
                Err(e) => if fell_behind(e, "task changes") { return },
            },
            note = legacy_notes.recv() => match note {
                Ok(note) => publish(&*relay.bus, &Wire::legacy_task(&relay.me, &note)).await,
                Err(e) => if fell_behind(e, "task statuses") { return },
            },
        }
    }
}

/// One instance's end of the bus.
struct Relay {
    /// This instance's id on the bus.
    me: String,
    bus: Arc<dyn NotificationBus>,
    engine: Engine,
    sessions: Arc<dyn LiveSessionStore>,
    /// Events received from other instances and announced here, whose echo on this
    /// instance's own registry must not be published again.
    echoes: Vec<RegistryEvent>,
}

impl Relay {
    /// Announces here what another instance published.
    fn remote(&mut self, message: &str) {
        let Ok(wire) = serde_json::from_str::<Wire>(message) else {
            tracing::debug!("ignoring a malformed notification bus message");
            return;
        };
        if wire.from == self.me {
            return;
        }
        if let Some((id, task, ended)) = wire.task {
            self.engine.tasks().relay(id, ended, task);
            return;
        }
        if let Some((owner, note)) = wire.note {
            // To the session's stream, if it is held here.
            let held = owner
                .strip_prefix("session ")
                .and_then(|id| self.sessions.get(id));
            if let Some(session) = held {
                session.conn.sink().try_send(note);
            }
            return;
        }
        if let Some(event) = wire.event() {
            if self.echoes.len() == ECHOES_MAX {
                self.echoes.remove(0);
            }
            self.echoes.push(event.clone());
            self.engine.registry().announce(event);
        }
    }

    /// Publishes an event of this instance's registry, unless it echoes a remote one.
    async fn local(&mut self, event: RegistryEvent) {
        // Identical events are interchangeable: whichever of them is taken for the echo,
        // the count published is right.
        if let Some(i) = self.echoes.iter().position(|e| *e == event) {
            self.echoes.remove(i);
            return;
        }
        publish(&*self.bus, &Wire::new(&self.me, &event)).await;
    }
}

/// Publishes `wire`; a failure is logged (the bus is best effort).
async fn publish(bus: &dyn NotificationBus, wire: &Wire) {
    let Ok(text) = serde_json::to_string(wire) else {
        return;
    };
    if let Err(e) = bus.publish(text).await {
        tracing::warn!(error = %e, event = %wire.event, "cannot publish on the notification bus");
    }
}

/// Logs that this instance's `what` outran the bus; true when their channel has closed.
fn fell_behind(error: broadcast::error::RecvError, what: &str) -> bool {
    match error {
        broadcast::error::RecvError::Lagged(n) => {
            tracing::warn!(
                missed = n,
                "the notification bus fell behind this instance's {what}"
            );
            false
        }
        broadcast::error::RecvError::Closed => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_cross_the_wire_unchanged() {
        for event in [
            RegistryEvent::ToolsChanged,
            RegistryEvent::PromptsChanged,
            RegistryEvent::ResourcesChanged,
            RegistryEvent::ResourceUpdated("note://a b".into()),
        ] {
            let text = serde_json::to_string(&Wire::new("me", &event)).unwrap();
            let back: Wire = serde_json::from_str(&text).unwrap();
            assert_eq!(back.from, "me");
            assert_eq!(back.event(), Some(event));
        }
        let unknown: Wire = serde_json::from_str(r#"{"from":"x","event":"updated"}"#).unwrap();
        assert_eq!(unknown.event(), None, "an update names its resource");
        let change = TaskChange {
            id: "t1".into(),
            ended: true,
            task: serde_json::json!({"taskId": "t1", "status": "completed"}),
            remote: false,
        };
        let text = serde_json::to_string(&Wire::task("me", &change)).unwrap();
        let back: Wire = serde_json::from_str(&text).unwrap();
        assert_eq!(back.task, Some(("t1".into(), change.task.clone(), true)));
        assert_eq!(
            back.event(),
            None,
            "a task's change is not a registry event"
        );
    }
}
