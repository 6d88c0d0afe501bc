//! Locking shared with every module.

use std::sync::{Mutex, MutexGuard};

/// Locks `m`, going on past a poisoned lock: every critical section in this crate leaves its
/// data consistent, and a panicking handler must not take the server down with it.
pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    match m.lock() {
        Ok(g) => g,
        Err(poisoned) => poisoned.into_inner(),
    }
}
