//! The builder's setters for what extends the protocol: custom methods and notifications,
//! and lifecycle hooks.

use std::sync::Arc;

use crate::custom::{Method, MethodError, Notification};
use crate::hooks::Hooks;
use crate::server::ServerBuilder;

impl<H> ServerBuilder<H> {
    /// Answers the custom request method `name` with `method` (made by
    /// [`method_fn`](crate::custom::method_fn)), in both eras, over every transport.
    ///
    /// # Errors
    ///
    /// [`MethodError::Reserved`] for a method of a protocol revision or an `rpc.` name,
    /// [`MethodError::Duplicate`] for a name already taken.
    pub fn method(mut self, name: impl Into<String>, method: Method) -> Result<Self, MethodError> {
        self.config.custom.add_method(name.into(), method)?;
        Ok(self)
    }

    /// Hands the custom notification `name` to `notification` (made by
    /// [`notification_fn`](crate::custom::notification_fn)), run on a task of its own.
    ///
    /// # Errors
    ///
    /// As [`method`](Self::method).
    pub fn notification(
        mut self,
        name: impl Into<String>,
        notification: Notification,
    ) -> Result<Self, MethodError> {
        self.config
            .custom
            .add_notification(name.into(), notification)?;
        Ok(self)
    }

    /// Runs `hooks` at the points of the lifecycle it implements (replacing hooks set
    /// before).
    pub fn hooks(mut self, hooks: impl Hooks) -> Self {
        self.config.custom.hooks = Some(Arc::new(hooks));
        self
    }
}
