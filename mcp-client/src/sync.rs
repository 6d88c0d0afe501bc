//! Small synchronization helpers.

use std::sync::{Mutex, MutexGuard, PoisonError};

/// Locks a mutex, recovering the data of a poisoned one (no invariant spans a panic here).
pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}
