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

use escape::write_str;

mod escape;

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
mod tests;
