//! Compact JSON output: byte for byte what `serde_json::to_string` writes, with strings
//! scanned for escapes eight bytes at a time.
//!
//! serde_json looks every byte of a string up in its escape table, which makes the text of a
//! large tool result or resource the most expensive part of answering it. Text rarely needs an
//! escape, so [`to_string`] tests a whole word at once for the three kinds of byte that do
//! (`"`, `\` and the controls below U+0020), copies clean words as they are and goes straight
//! to each marked byte of the others. Everything else
//! (numbers through `itoa` and `zmij`, map keys, enum forms, `RawValue`) is written as
//! serde_json writes it; the tests compare the two on every byte value and on nested values.

use serde::ser::{self, Error as _, Impossible, Serialize};
use serde_json::Error;
use std::fmt::Display;

/// The struct name serde_json gives a `RawValue` so that its serializer writes the text as
/// it is (`serde_json::value::RawValue`'s `Serialize`).
const RAW_VALUE: &str = "$serde_json::private::RawValue";

/// Serializes `value` as compact JSON, the text `serde_json::to_string` gives, faster for
/// long strings.
///
/// # Errors
///
/// What serde_json reports for the same value: a map key that is not a string, number,
/// `bool` or `char`, a non-finite float as a key, or the value's own error.
///
/// # Examples
///
/// ```
/// use serde_json::json;
///
/// let value = json!({"text": "line one\nline \"two\"", "n": [1, 2.5, null]});
/// let text = ferromcp_core::jsonrpc::to_string(&value).unwrap();
/// assert_eq!(text, serde_json::to_string(&value).unwrap());
/// ```
#[inline]
pub fn to_string<T: ?Sized + Serialize>(value: &T) -> Result<String, Error> {
    let mut writer = Writer {
        out: String::with_capacity(128),
    };
    value.serialize(&mut writer)?;
    Ok(writer.out)
}

pub(crate) struct Writer {
    out: String,
}

/// From this many bytes a string is written with room to spare after it ([`write_str`]).
const LARGE: usize = 4096;

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGHS: u64 = 0x8080_8080_8080_8080;

/// The high bit of each byte of `word` (little-endian) that is below U+0020, a `"` or a `\`.
/// Every such byte is marked; a borrow can also mark the byte just above one (a space after a
/// control, say), so a marked byte is checked before it is escaped.
#[inline]
fn escape_mask(word: u64) -> u64 {
    let control = word.wrapping_sub(ONES * 0x20) & !word;
    let quote = word ^ (ONES * u64::from(b'"'));
    let quote = quote.wrapping_sub(ONES) & !quote;
    let backslash = word ^ (ONES * u64::from(b'\\'));
    let backslash = backslash.wrapping_sub(ONES) & !backslash;
    (control | quote | backslash) & HIGHS
}

const HEX: &[u8; 16] = b"0123456789abcdef";

/// How each byte is written in a string: 0 as it is, `u` as `\u00XX`, any other letter
/// after a `\`.
static ESCAPE: [u8; 256] = {
    let mut table = [0u8; 256];
    let mut control = 0;
    while control < 0x20 {
        table[control] = b'u';
        control += 1;
    }
    table[0x08] = b'b';
    table[0x09] = b't';
    table[0x0A] = b'n';
    table[0x0C] = b'f';
    table[0x0D] = b'r';
    table[b'"' as usize] = b'"';
    table[b'\\' as usize] = b'\\';
    table
};

/// The escape serde_json writes for `byte`: the short forms where JSON has them, `\u00XX`
/// with lowercase hex for the other controls.
#[inline]
fn push_escape(out: &mut String, byte: u8, escape: u8) {
    if escape != b'u' {
        out.push('\\');
        out.push(char::from(escape));
    } else {
        out.push_str("\\u00");
        out.push(char::from(HEX[usize::from(byte >> 4)]));
        out.push(char::from(HEX[usize::from(byte & 0xF)]));
    }
}

#[inline]
fn write_str(out: &mut String, s: &str) {
    let bytes = s.as_bytes();
    // A large string is nearly all of its message: room for it and for the rest after it,
    // or the first byte written after it would double the buffer (and may copy the string).
    let slack = if bytes.len() >= LARGE {
        bytes.len() / 8 + 256
    } else {
        0
    };
    out.reserve(bytes.len() + 2 + slack);
    out.push('"');
    // Up to `start` is written; every escaped byte is ASCII, so each index where one is
    // found is a char boundary.
    let mut start = 0;
    // Two words a step: text is mostly free of escapes, and one test of both masks keeps
    // the loop to a branch per 16 bytes.
    let mut pairs = bytes.chunks_exact(16);
    let mut at = 0;
    for pair in &mut pairs {
        let (low, high) = pair.split_at(8);
        let low = escape_mask(u64::from_le_bytes(low.try_into().unwrap_or_default()));
        let high = escape_mask(u64::from_le_bytes(high.try_into().unwrap_or_default()));
        if low | high != 0 {
            start = escape_marked(out, s, start, at, low);
            start = escape_marked(out, s, start, at + 8, high);
        }
        at += 16;
    }
    let rest = pairs.remainder();
    let tail = if let Some((word, tail)) = rest.split_first_chunk::<8>() {
        let mask = escape_mask(u64::from_le_bytes(*word));
        start = escape_marked(out, s, start, at, mask);
        at += 8;
        tail
    } else {
        rest
    };
    for (i, &byte) in tail.iter().enumerate() {
        let escape = ESCAPE[usize::from(byte)];
        if escape != 0 {
            let i = at + i;
            out.push_str(&s[start..i]);
            push_escape(out, byte, escape);
            start = i + 1;
        }
    }
    out.push_str(&s[start..]);
    out.push('"');
}

/// Writes what `mask` marks in the word at `at` (each marked byte in order, a borrow's false
/// mark passed over), with the text before each escape; returns the new `start`.
#[inline]
fn escape_marked(out: &mut String, s: &str, mut start: usize, at: usize, mut mask: u64) -> usize {
    let bytes = s.as_bytes();
    while mask != 0 {
        let i = at + (mask.trailing_zeros() / 8) as usize;
        mask &= mask - 1;
        let escape = ESCAPE[usize::from(bytes[i])];
        if escape != 0 {
            out.push_str(&s[start..i]);
            push_escape(out, bytes[i], escape);
            start = i + 1;
        }
    }
    start
}

/// `serialize_i8` … `serialize_u128`, each handing its value to `self.$write`.
macro_rules! integers {
    ($write:ident) => {
        integers!(@ $write; serialize_i8: i8, serialize_i16: i16, serialize_i32: i32,
            serialize_i64: i64, serialize_i128: i128, serialize_u8: u8, serialize_u16: u16,
            serialize_u32: u32, serialize_u64: u64, serialize_u128: u128);
    };
    (@ $write:ident; $($method:ident: $ty:ty),*) => {$(
        #[inline]
        fn $method(self, v: $ty) -> Result<(), Error> {
            self.$write(v)
        }
    )*};
}

/// Scalar `serialize_*` methods that all fail with `$error`.
macro_rules! refuse_scalars {
    ($error:expr; $($method:ident: $ty:ty),* $(,)?) => {$(
        fn $method(self, _: $ty) -> Result<(), Error> {
            Err($error)
        }
    )*};
}

/// The methods of a serializer that takes one kind of value and fails with `$error` on
/// bytes, the empty forms and every compound.
macro_rules! refuse_compounds {
    ($error:expr) => {
        type Ok = ();
        type Error = Error;
        type SerializeSeq = Impossible<(), Error>;
        type SerializeTuple = Impossible<(), Error>;
        type SerializeTupleStruct = Impossible<(), Error>;
        type SerializeTupleVariant = Impossible<(), Error>;
        type SerializeMap = Impossible<(), Error>;
        type SerializeStruct = Impossible<(), Error>;
        type SerializeStructVariant = Impossible<(), Error>;

        fn serialize_bytes(self, _: &[u8]) -> Result<(), Error> {
            Err($error)
        }
        fn serialize_none(self) -> Result<(), Error> {
            Err($error)
        }
        fn serialize_unit(self) -> Result<(), Error> {
            Err($error)
        }
        fn serialize_unit_struct(self, _: &'static str) -> Result<(), Error> {
            Err($error)
        }
        fn serialize_newtype_variant<T: ?Sized + Serialize>(
            self,
            _: &'static str,
            _: u32,
            _: &'static str,
            _: &T,
        ) -> Result<(), Error> {
            Err($error)
        }
        fn serialize_seq(self, _: Option<usize>) -> Result<Self::SerializeSeq, Error> {
            Err($error)
        }
        fn serialize_tuple(self, _: usize) -> Result<Self::SerializeTuple, Error> {
            Err($error)
        }
        fn serialize_tuple_struct(
            self,
            _: &'static str,
            _: usize,
        ) -> Result<Self::SerializeTupleStruct, Error> {
            Err($error)
        }
        fn serialize_tuple_variant(
            self,
            _: &'static str,
            _: u32,
            _: &'static str,
            _: usize,
        ) -> Result<Self::SerializeTupleVariant, Error> {
            Err($error)
        }
        fn serialize_map(self, _: Option<usize>) -> Result<Self::SerializeMap, Error> {
            Err($error)
        }
        fn serialize_struct(
            self,
            _: &'static str,
            _: usize,
        ) -> Result<Self::SerializeStruct, Error> {
            Err($error)
        }
        fn serialize_struct_variant(
            self,
            _: &'static str,
            _: u32,
            _: &'static str,
            _: usize,
        ) -> Result<Self::SerializeStructVariant, Error> {
            Err($error)
        }
    };
}

impl Writer {
    #[inline]
    fn int(&mut self, v: impl itoa::Integer) -> Result<(), Error> {
        self.out.push_str(itoa::Buffer::new().format(v));
        Ok(())
    }
}

impl<'a> ser::Serializer for &'a mut Writer {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = Compound<'a>;
    type SerializeTuple = Compound<'a>;
    type SerializeTupleStruct = Compound<'a>;
    type SerializeTupleVariant = Compound<'a>;
    type SerializeMap = Compound<'a>;
    type SerializeStruct = Struct<'a>;
    type SerializeStructVariant = Compound<'a>;

    #[inline]
    fn serialize_bool(self, v: bool) -> Result<(), Error> {
        self.out.push_str(if v { "true" } else { "false" });
        Ok(())
    }
    integers!(int);
    #[inline]
    fn serialize_f32(self, v: f32) -> Result<(), Error> {
        write_float(&mut self.out, v.is_finite(), v);
        Ok(())
    }
    #[inline]
    fn serialize_f64(self, v: f64) -> Result<(), Error> {
        write_float(&mut self.out, v.is_finite(), v);
        Ok(())
    }
    #[inline]
    fn serialize_char(self, v: char) -> Result<(), Error> {
        write_str(&mut self.out, v.encode_utf8(&mut [0u8; 4]));
        Ok(())
    }
    #[inline]
    fn serialize_str(self, v: &str) -> Result<(), Error> {
        write_str(&mut self.out, v);
        Ok(())
    }
    #[inline]
    fn serialize_bytes(self, v: &[u8]) -> Result<(), Error> {
        self.out.push('[');
        for (n, byte) in v.iter().enumerate() {
            if n > 0 {
                self.out.push(',');
            }
            self.out.push_str(itoa::Buffer::new().format(*byte));
        }
        self.out.push(']');
        Ok(())
    }
    #[inline]
    fn serialize_none(self) -> Result<(), Error> {
        self.out.push_str("null");
        Ok(())
    }
    #[inline]
    fn serialize_some<T: ?Sized + Serialize>(self, value: &T) -> Result<(), Error> {
        value.serialize(self)
    }
    #[inline]
    fn serialize_unit(self) -> Result<(), Error> {
        self.out.push_str("null");
        Ok(())
    }
    #[inline]
    fn serialize_unit_struct(self, _name: &'static str) -> Result<(), Error> {
        self.serialize_unit()
    }
    #[inline]
    fn serialize_unit_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
    ) -> Result<(), Error> {
        write_str(&mut self.out, variant);
        Ok(())
    }
    #[inline]
    fn serialize_newtype_struct<T: ?Sized + Serialize>(
        self,
        _name: &'static str,
        value: &T,
    ) -> Result<(), Error> {
        value.serialize(self)
    }
    #[inline]
    fn serialize_newtype_variant<T: ?Sized + Serialize>(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<(), Error> {
        self.out.push('{');
        write_str(&mut self.out, variant);
        self.out.push(':');
        value.serialize(&mut *self)?;
        self.out.push('}');
        Ok(())
    }
    #[inline]
    fn serialize_seq(self, _len: Option<usize>) -> Result<Compound<'a>, Error> {
        Ok(self.open(None, "[", "]"))
    }
    #[inline]
    fn serialize_tuple(self, len: usize) -> Result<Compound<'a>, Error> {
        self.serialize_seq(Some(len))
    }
    #[inline]
    fn serialize_tuple_struct(
        self,
        _name: &'static str,
        len: usize,
    ) -> Result<Compound<'a>, Error> {
        self.serialize_seq(Some(len))
    }
    #[inline]
    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        _len: usize,
    ) -> Result<Compound<'a>, Error> {
        Ok(self.open(Some(variant), "[", "]}"))
    }
    #[inline]
    fn serialize_map(self, _len: Option<usize>) -> Result<Compound<'a>, Error> {
        Ok(self.open(None, "{", "}"))
    }
    #[inline]
    fn serialize_struct(self, name: &'static str, len: usize) -> Result<Struct<'a>, Error> {
        if name == RAW_VALUE {
            return Ok(Struct::Raw(self));
        }
        self.serialize_map(Some(len)).map(Struct::Map)
    }
    #[inline]
    fn serialize_struct_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        _len: usize,
    ) -> Result<Compound<'a>, Error> {
        Ok(self.open(Some(variant), "{", "}}"))
    }
}

impl Writer {
    /// Opens an array or object (`open`), inside the one-member object of an enum
    /// `variant` if there is one; `close` ends them both.
    #[inline]
    fn open(&mut self, variant: Option<&str>, open: &str, close: &'static str) -> Compound<'_> {
        if let Some(variant) = variant {
            self.out.push('{');
            write_str(&mut self.out, variant);
            self.out.push(':');
        }
        self.out.push_str(open);
        Compound {
            w: self,
            first: true,
            close,
        }
    }
}

/// An array or an object being written, maybe inside an enum variant's object.
pub(crate) struct Compound<'a> {
    w: &'a mut Writer,
    first: bool,
    /// What ends it: `]` or `}`, and a `}` more for a variant.
    close: &'static str,
}

impl Compound<'_> {
    #[inline]
    fn comma(&mut self) {
        if !std::mem::take(&mut self.first) {
            self.w.out.push(',');
        }
    }
    #[inline]
    fn element<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<(), Error> {
        self.comma();
        value.serialize(&mut *self.w)
    }
    #[inline]
    fn field<T: ?Sized + Serialize>(&mut self, key: &str, value: &T) -> Result<(), Error> {
        self.comma();
        write_str(&mut self.w.out, key);
        self.w.out.push(':');
        value.serialize(&mut *self.w)
    }
    #[inline]
    fn close(self) {
        self.w.out.push_str(self.close);
    }
}

/// The four array forms.
macro_rules! arrays {
    ($($form:ident :: $method:ident),*) => {$(
        impl ser::$form for Compound<'_> {
            type Ok = ();
            type Error = Error;
            #[inline]
            fn $method<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<(), Error> {
                self.element(value)
            }
            #[inline]
            fn end(self) -> Result<(), Error> {
                self.close();
                Ok(())
            }
        }
    )*};
}

arrays!(
    SerializeSeq::serialize_element,
    SerializeTuple::serialize_element,
    SerializeTupleStruct::serialize_field,
    SerializeTupleVariant::serialize_field
);

impl ser::SerializeMap for Compound<'_> {
    type Ok = ();
    type Error = Error;
    #[inline]
    fn serialize_key<T: ?Sized + Serialize>(&mut self, key: &T) -> Result<(), Error> {
        self.comma();
        key.serialize(Key(&mut self.w.out))
    }
    #[inline]
    fn serialize_value<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<(), Error> {
        self.w.out.push(':');
        value.serialize(&mut *self.w)
    }
    #[inline]
    fn end(self) -> Result<(), Error> {
        self.close();
        Ok(())
    }
}

impl ser::SerializeStructVariant for Compound<'_> {
    type Ok = ();
    type Error = Error;
    #[inline]
    fn serialize_field<T: ?Sized + Serialize>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<(), Error> {
        self.field(key, value)
    }
    #[inline]
    fn end(self) -> Result<(), Error> {
        self.close();
        Ok(())
    }
}

/// A struct's object, or a `RawValue`'s text written as it is.
pub(crate) enum Struct<'a> {
    Map(Compound<'a>),
    Raw(&'a mut Writer),
}

impl ser::SerializeStruct for Struct<'_> {
    type Ok = ();
    type Error = Error;
    #[inline]
    fn serialize_field<T: ?Sized + Serialize>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<(), Error> {
        match self {
            Struct::Map(map) => map.field(key, value),
            Struct::Raw(w) if key == RAW_VALUE => value.serialize(Raw(&mut w.out)),
            Struct::Raw(_) => Err(Error::custom("expected RawValue")),
        }
    }
    #[inline]
    fn end(self) -> Result<(), Error> {
        if let Struct::Map(map) = self {
            map.close();
        }
        Ok(())
    }
}

#[inline]
fn key_must_be_a_string() -> Error {
    Error::custom("key must be a string")
}

/// A map key: a string, or a number, `bool` or `char` written as one (as serde_json does).
struct Key<'a>(&'a mut String);

impl Key<'_> {
    #[inline]
    fn quoted(self, text: &str) -> Result<(), Error> {
        self.0.push('"');
        self.0.push_str(text);
        self.0.push('"');
        Ok(())
    }
    #[inline]
    fn int(self, v: impl itoa::Integer) -> Result<(), Error> {
        self.quoted(itoa::Buffer::new().format(v))
    }
    #[inline]
    fn float(self, finite: bool, v: impl zmij::Float) -> Result<(), Error> {
        if !finite {
            return Err(Error::custom(
                "float key must be finite (got NaN or +/-inf)",
            ));
        }
        self.quoted(zmij::Buffer::new().format_finite(v))
    }
}

impl ser::Serializer for Key<'_> {
    #[inline]
    fn serialize_str(self, v: &str) -> Result<(), Error> {
        write_str(self.0, v);
        Ok(())
    }
    #[inline]
    fn serialize_char(self, v: char) -> Result<(), Error> {
        write_str(self.0, v.encode_utf8(&mut [0u8; 4]));
        Ok(())
    }
    #[inline]
    fn serialize_unit_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
    ) -> Result<(), Error> {
        write_str(self.0, variant);
        Ok(())
    }
    #[inline]
    fn serialize_newtype_struct<T: ?Sized + Serialize>(
        self,
        _name: &'static str,
        value: &T,
    ) -> Result<(), Error> {
        value.serialize(self)
    }
    #[inline]
    fn serialize_some<T: ?Sized + Serialize>(self, value: &T) -> Result<(), Error> {
        value.serialize(self)
    }
    #[inline]
    fn serialize_bool(self, v: bool) -> Result<(), Error> {
        self.quoted(if v { "true" } else { "false" })
    }
    integers!(int);
    #[inline]
    fn serialize_f32(self, v: f32) -> Result<(), Error> {
        self.float(v.is_finite(), v)
    }
    #[inline]
    fn serialize_f64(self, v: f64) -> Result<(), Error> {
        self.float(v.is_finite(), v)
    }
    refuse_compounds!(key_must_be_a_string());
    #[inline]
    fn collect_str<T: ?Sized + Display>(self, value: &T) -> Result<(), Error> {
        self.serialize_str(&value.to_string())
    }
}

/// A float as serde_json writes it: shortest round-trip digits, `null` when not finite.
#[inline]
fn write_float(out: &mut String, finite: bool, v: impl zmij::Float) {
    if finite {
        out.push_str(zmij::Buffer::new().format_finite(v));
    } else {
        out.push_str("null");
    }
}

/// A `RawValue`'s text, which serde_json checked when it made the value: written as it is.
struct Raw<'a>(&'a mut String);

impl ser::Serializer for Raw<'_> {
    #[inline]
    fn serialize_str(self, v: &str) -> Result<(), Error> {
        self.0.push_str(v);
        Ok(())
    }
    refuse_scalars!(not_raw(); serialize_bool: bool, serialize_i8: i8, serialize_i16: i16,
        serialize_i32: i32, serialize_i64: i64, serialize_u8: u8, serialize_u16: u16,
        serialize_u32: u32, serialize_u64: u64, serialize_f32: f32, serialize_f64: f64,
        serialize_char: char);
    fn serialize_some<T: ?Sized + Serialize>(self, _value: &T) -> Result<(), Error> {
        Err(not_raw())
    }
    fn serialize_unit_variant(self, _: &'static str, _: u32, _: &'static str) -> Result<(), Error> {
        Err(not_raw())
    }
    fn serialize_newtype_struct<T: ?Sized + Serialize>(
        self,
        _name: &'static str,
        _value: &T,
    ) -> Result<(), Error> {
        Err(not_raw())
    }
    refuse_compounds!(not_raw());
}

#[inline]
fn not_raw() -> Error {
    Error::custom("expected RawValue")
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use serde_json::{Value, json, value::RawValue};
    use std::collections::BTreeMap;

    fn same<T: Serialize + ?Sized>(value: &T) {
        assert_eq!(
            to_string(value).unwrap(),
            serde_json::to_string(value).unwrap()
        );
    }

    /// A large string leaves room for what follows it: the message is written into one
    /// buffer a little larger than itself, not one doubled by the first byte after it.
    #[test]
    fn a_large_string_leaves_room_after_it() {
        for len in [LARGE, 100_000, 1 << 20] {
            let value =
                json!({"content": [{"type": "text", "text": "x".repeat(len)}], "isError": false});
            let text = to_string(&value).unwrap();
            assert_eq!(text, serde_json::to_string(&value).unwrap());
            assert!(
                text.capacity() <= text.len() + text.len() / 8 + 512,
                "{len}: {} for {}",
                text.capacity(),
                text.len()
            );
        }
    }

    #[test]
    fn every_byte_value_escapes_as_serde_json_escapes_it() {
        for b in 0u8..128 {
            let c = char::from(b);
            same(&c);
            // At each offset of a word, so the byte lands in every lane and in the tail.
            for pad in 0..17 {
                let s = format!("{}{c}{}", "a".repeat(pad), "b".repeat(16 - pad));
                same(&s);
                same(&json!({ s.clone(): s }));
            }
        }
    }

    #[test]
    fn every_pair_of_ascii_bytes_in_every_lane() {
        // A borrow in the word test marks the byte after a match (a space after a control,
        // `#` after `"`, `]` after `\`): each pair, at each offset, must still come out right.
        for x in 0u8..128 {
            for y in 0u8..128 {
                let pair = [char::from(x), char::from(y)];
                for pad in [0, 3, 6, 7] {
                    let s: String = std::iter::repeat_n('a', pad)
                        .chain(pair)
                        .chain(std::iter::repeat_n('z', 10 - pad))
                        .collect();
                    assert_eq!(to_string(&s).ok(), serde_json::to_string(&s).ok(), "{s:?}");
                }
            }
        }
    }

    #[test]
    fn strings_of_every_length_with_escapes_and_multibyte_text() {
        let pieces = [
            "a",
            "é",
            "\u{1F600}",
            "\"",
            "\\",
            "\n",
            "\u{7f}",
            "\u{0}",
            "\u{1f}",
            "ÿ",
        ];
        let mut s = String::new();
        for n in 0..300 {
            s.push_str(pieces[(n * 7 + n / 3) % pieces.len()]);
            same(&s);
        }
        same(&"x".repeat(100_000));
        // A byte with the high bit set next to each special byte (the borrow cases).
        for special in ['"', '\\', '\u{1}', ' ', '!', '#', '[', ']'] {
            same(&format!("\u{80}{special}\u{ff}{special}ééééééé{special}"));
        }
    }

    #[derive(serde::Serialize)]
    enum Shape {
        Unit,
        Newtype(u8),
        Tuple(i32, String),
        Struct { x: f64, y: Option<bool> },
    }

    #[derive(serde::Serialize)]
    struct Everything<'a> {
        b: bool,
        ints: (i8, i16, i32, i64, i128, u8, u16, u32, u64, u128),
        floats: Vec<f64>,
        single: Vec<f32>,
        ch: char,
        #[serde(with = "serde_bytes_like")]
        bytes: &'a [u8],
        none: Option<u8>,
        unit: (),
        shapes: Vec<Shape>,
        keyed: BTreeMap<i64, &'a str>,
        by_bool: BTreeMap<bool, u8>,
        by_char: BTreeMap<char, u8>,
        raw: &'a RawValue,
        value: Value,
        #[serde(skip_serializing_if = "Option::is_none")]
        skipped: Option<u8>,
        empty_seq: Vec<u8>,
        empty_map: BTreeMap<String, u8>,
    }

    mod serde_bytes_like {
        pub(super) fn serialize<S: serde::Serializer>(v: &[u8], s: S) -> Result<S::Ok, S::Error> {
            s.serialize_bytes(v)
        }
    }

    #[test]
    fn nested_values_numbers_keys_enums_and_raw_values_match_serde_json() {
        let raw = RawValue::from_string(r#"{"a" : [1, 2 ,"x"]}"#.into()).unwrap();
        let value = Everything {
            b: true,
            ints: (
                i8::MIN,
                -300,
                i32::MAX,
                i64::MIN,
                i128::MIN,
                255,
                0,
                7,
                u64::MAX,
                u128::MAX,
            ),
            floats: vec![
                0.0,
                -0.0,
                1.5,
                1e300,
                1e-7,
                f64::NAN,
                f64::INFINITY,
                0.1 + 0.2,
            ],
            single: vec![0.1, f32::MAX, f32::NEG_INFINITY],
            ch: '"',
            bytes: &[0, 1, 255],
            none: None,
            unit: (),
            shapes: vec![
                Shape::Unit,
                Shape::Newtype(3),
                Shape::Tuple(-1, "t\t".into()),
                Shape::Struct {
                    x: 2.5,
                    y: Some(false),
                },
                Shape::Struct { x: -0.0, y: None },
            ],
            keyed: [(-1, "minus"), (10, "ten")].into(),
            by_bool: [(true, 1), (false, 0)].into(),
            by_char: [('\n', 1), ('k', 2)].into(),
            raw: &raw,
            value: json!({"z": [null, true, {"deep": ["\u{2028}", 1.0e10, -5]}], "": {}}),
            skipped: None,
            empty_seq: vec![],
            empty_map: BTreeMap::new(),
        };
        same(&value);
        same(&[Shape::Unit]);
        same(&Option::<Shape>::None);
    }

    #[test]
    fn keys_serde_json_refuses_are_refused() {
        let by_unit: BTreeMap<(), u8> = [((), 1)].into();
        assert!(serde_json::to_string(&by_unit).is_err());
        assert!(to_string(&by_unit).is_err());
        let mut by_float: Vec<(f64, u8)> = vec![(1.5, 1)];
        let map = |v: &Vec<(f64, u8)>| {
            struct M<'a>(&'a [(f64, u8)]);
            impl Serialize for M<'_> {
                fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                    s.collect_map(self.0.iter().map(|(k, v)| (k, v)))
                }
            }
            (to_string(&M(v)).ok(), serde_json::to_string(&M(v)).ok())
        };
        let (ours, theirs) = map(&by_float);
        assert_eq!(ours, theirs);
        assert_eq!(ours.as_deref(), Some(r#"{"1.5":1}"#));
        by_float[0].0 = f64::NAN;
        assert_eq!(map(&by_float), (None, None));
    }
}
