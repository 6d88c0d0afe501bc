//! The `params` member of a request or a notification, kept as JSON text.

use std::fmt;
use std::ops::Range;

use serde::ser::SerializeStruct;
use serde::{Serialize, Serializer};
use serde_json::value::RawValue;

/// The name serde_json's serializers recognise as "write this text as it is" (the one
/// `RawValue` serializes under).
const RAW_VALUE: &str = "$serde_json::private::RawValue";

/// The `params` member of a request or a notification: its JSON text, unparsed, for the
/// runtime to deserialize straight into the method's own types.
///
/// A message read with [`parse_owned`](super::parse_owned) keeps the buffer it was read into
/// and points into it, so a large `params` (a file's contents, a long argument) is not
/// copied out of the message; one read from a borrowed slice with [`parse`](super::parse)
/// holds a copy of just the `params` text. [`Params::get`] is the same either way.
///
/// The text is always one well-formed JSON value: the parser checked it, and the
/// conversion from a [`RawValue`] keeps that promise.
pub struct Params {
    /// Holds the value at its end: either the whole message up to the end of the value, or
    /// the value alone.
    text: String,
    /// Where the value starts in `text`.
    start: usize,
}

impl Params {
    /// The value's JSON text, e.g. `{"name":"add","arguments":{"a":1}}`.
    #[inline]
    pub fn get(&self) -> &str {
        self.text.get(self.start..).unwrap_or_default()
    }

    /// The value at `at` in `text`; the parser has checked it. What follows it in `text` is
    /// cut off (which frees nothing, and costs nothing).
    pub(super) fn within(mut text: String, at: Range<usize>) -> Self {
        if text.is_char_boundary(at.end) {
            text.truncate(at.end);
        }
        Params {
            text,
            start: at.start,
        }
    }

    /// A copy of the value at `at` in `text`; the parser has checked it.
    pub(super) fn copied(text: &str, at: Range<usize>) -> Self {
        Self::own(text.get(at).unwrap_or_default().to_owned())
    }

    fn own(text: String) -> Self {
        Params { text, start: 0 }
    }

    /// No value yet: the parser puts one in once the parse is over, with
    /// [`Params::within`] or [`Params::copied`].
    pub(super) fn placeholder() -> Self {
        Self::own(String::new())
    }
}

impl From<Box<RawValue>> for Params {
    fn from(raw: Box<RawValue>) -> Self {
        Self::own(Box::<str>::from(raw).into_string())
    }
}

impl From<&RawValue> for Params {
    fn from(raw: &RawValue) -> Self {
        Self::own(raw.get().to_owned())
    }
}

/// A clone holds a copy of the value alone, not of the message around it.
impl Clone for Params {
    fn clone(&self) -> Self {
        Self::own(self.get().to_owned())
    }
}

impl fmt::Debug for Params {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Params").field(&self.get()).finish()
    }
}

impl fmt::Display for Params {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.get())
    }
}

impl PartialEq for Params {
    fn eq(&self, other: &Self) -> bool {
        self.get() == other.get()
    }
}

impl Eq for Params {}

/// Written as its text, as a [`RawValue`] is.
impl Serialize for Params {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut s = serializer.serialize_struct(RAW_VALUE, 1)?;
        s.serialize_field(RAW_VALUE, self.get())?;
        s.end()
    }
}
