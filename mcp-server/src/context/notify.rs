//! What a handler tells the client while it runs: progress and log messages.

use ferromcp_core::Era;
use ferromcp_core::jsonrpc::WireNotification;
use ferromcp_core::types::{
    LoggingLevel, LoggingMessageNotificationParams, ProgressNotificationParams,
};
use serde::Serialize;
use serde_json::Value;

use super::Context;
use crate::sync::lock;

impl Context {
    /// Reports progress. Sent only when the client asked for progress (a `progressToken`),
    /// and only when `progress` is larger than the last value sent: progress must strictly
    /// increase.
    pub async fn progress(&self, progress: f64, total: Option<f64>, message: Option<&str>) {
        // A task's status message follows its progress whether or not anyone asked for
        // progress notifications.
        if let Some(task) = self.inner.task.as_ref().filter(|t| t.is_running()) {
            task.set_message(message);
        }
        let Some(token) = self.progress_token() else {
            return;
        };
        if self.inner.cancel.is_cancelled() || self.detached() {
            return;
        }
        {
            let mut last = lock(&self.inner.last_progress);
            if last.is_some_and(|l| progress <= l) || !progress.is_finite() {
                tracing::debug!(progress, "progress did not increase; not sent");
                return;
            }
            *last = Some(progress);
        }
        let mut params = ProgressNotificationParams::new(token.clone(), progress);
        params.total = total;
        params.message = message
            .filter(|_| self.inner.client.version.has_progress_message())
            .map(str::to_owned);
        self.notify("notifications/progress", &params).await;
    }

    /// Whether a log message at `level` would reach the client: in the legacy era the
    /// session's `logging/setLevel` decides (all levels before one is set); in the modern era
    /// only a request carrying `_meta.logLevel` gets logs.
    pub fn log_enabled(&self, level: LoggingLevel) -> bool {
        match self.inner.client.version.era() {
            Era::Modern => self.inner.log_level.is_some_and(|min| level >= min),
            Era::Legacy => match &self.inner.client.session {
                Some(session) => session.log_enabled(level),
                None => false,
            },
        }
    }

    /// Sends a log message (`notifications/message`) to the client, if its level is enabled.
    pub async fn log(&self, level: LoggingLevel, logger: Option<&str>, data: impl Serialize) {
        if !self.log_enabled(level) || self.inner.cancel.is_cancelled() || self.detached() {
            return;
        }
        let data = match serde_json::to_value(data) {
            Ok(v) => v,
            Err(e) => Value::String(format!("log data does not serialize: {e}")),
        };
        let mut params = LoggingMessageNotificationParams::new(level, data);
        params.logger = logger.map(str::to_owned);
        self.notify("notifications/message", &params).await;
    }

    /// [`log`](Self::log) at `info` with a text message.
    pub async fn info(&self, message: impl Into<String>) {
        self.log(LoggingLevel::Info, None, message.into()).await;
    }

    /// [`log`](Self::log) at `debug` with a text message.
    pub async fn debug(&self, message: impl Into<String>) {
        self.log(LoggingLevel::Debug, None, message.into()).await;
    }

    /// [`log`](Self::log) at `warning` with a text message.
    pub async fn warn(&self, message: impl Into<String>) {
        self.log(LoggingLevel::Warning, None, message.into()).await;
    }

    /// [`log`](Self::log) at `error` with a text message.
    pub async fn error(&self, message: impl Into<String>) {
        self.log(LoggingLevel::Error, None, message.into()).await;
    }

    /// Sends a notification of this request, unless the request has ended: the gate stays
    /// open until the message has gone, so that it precedes the request's answer.
    async fn notify<P: Serialize>(&self, method: &str, params: &P) {
        let Some(_pass) = self.inner.gate.enter() else {
            return self.dropped_after_end(method);
        };
        // What the observer adds to `_meta` (inside a traced request, its trace context).
        if let Some(meta) = self.inner.host.observer().message_meta() {
            match serde_json::to_value(params) {
                Ok(mut value) => {
                    crate::observe::add_meta(&mut value, meta);
                    return self.send_notification(method, &value).await;
                }
                Err(e) => {
                    tracing::warn!(error = %e, method, "notification does not serialize");
                    return;
                }
            }
        }
        self.send_notification(method, params).await;
    }

    async fn send_notification<P: Serialize>(&self, method: &str, params: &P) {
        let msg = WireNotification::new(method, Some(params));
        match serde_json::to_string(&msg) {
            Ok(text) => self.inner.sink.send(text).await,
            Err(e) => tracing::warn!(error = %e, method, "notification does not serialize"),
        }
    }
}
