//! The builder's setters for what extends the protocol: custom methods.

use crate::custom::{Method, MethodError};
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
}
