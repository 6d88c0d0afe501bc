//! Reading the members of a JSON object that was checked already (a `RawValue` of the
//! request) without serde_json scanning every byte of them again: the object is split by
//! [`scan::each_member`] (`memchr` over strings), a string without escapes goes to its type
//! as it stands, and a `RawValue` member is a slice of the text. The rest is serde_json's.
//! A 100 KB argument was read three times over before; see docs/benchmarks.md.

use std::ops::ControlFlow;

use serde::de::value::BorrowedStrDeserializer;
use serde::de::{self, Deserialize, DeserializeSeed, MapAccess, Visitor};

use crate::scan;

/// The newtype name through which serde_json deserializes a `RawValue`.
const RAW_VALUE: &str = "$serde_json::private::RawValue";

/// One argument's value text, a well-formed JSON value (the arguments came as a
/// `RawValue`, checked by the request's parse). A string without escapes, the usual large
/// argument (a file's contents, a document), is handed to the type as it stands: serde_json
/// would scan it byte by byte again, where `memchr` finds there is no backslash many bytes
/// at a time. Everything else is serde_json's, as `serde_json::from_str` reads it.
pub(crate) struct Member<'a>(&'a str);

impl<'a> Member<'a> {
    /// `text` must be one well-formed JSON value, with nothing around it: a member of a
    /// checked `RawValue`, as `scan::each_member` gives them.
    pub(crate) fn new(text: &'a str) -> Member<'a> {
        Member(text)
    }

    /// The value as serde_json reads it: all of it.
    fn whole(self) -> Member<'a> {
        self
    }

    /// The contents of a string literal that has no escape.
    fn plain_string(&self) -> Option<&'a str> {
        let inner = self.0.strip_prefix('"')?.strip_suffix('"')?;
        // Well-formed, so without a backslash there is no quote inside either.
        ferromcp_core::bytes::find(b'\\', inner.as_bytes())
            .is_none()
            .then_some(inner)
    }

    /// Reads the value with serde_json, as `from_str` does (nothing may follow it).
    fn json<T>(
        self,
        read: impl FnOnce(
            &mut serde_json::Deserializer<serde_json::de::StrRead<'a>>,
        ) -> Result<T, serde_json::Error>,
    ) -> Result<T, serde_json::Error> {
        let mut de = serde_json::Deserializer::from_str(self.0);
        let value = read(&mut de).map_err(unplaced)?;
        de.end().map_err(unplaced)?;
        Ok(value)
    }
}

/// serde_json's error without the position it appends: one inside a member's value, which
/// the client cannot relate to anything it sent.
fn unplaced(e: serde_json::Error) -> serde_json::Error {
    if e.line() == 0 {
        return e;
    }
    let full = e.to_string();
    let at = format!(" at line {} column {}", e.line(), e.column());
    de::Error::custom(full.strip_suffix(&at).unwrap_or(&full))
}

/// `deserialize_*` methods, with their arguments besides the visitor, that serde_json
/// answers from the whole text (`self.whole()`).
macro_rules! serde_json_reads {
    ($($method:ident($($arg:ident: $ty:ty),*))*) => {$(
        fn $method<V: Visitor<'de>>(
            self,
            $($arg: $ty,)*
            visitor: V,
        ) -> Result<V::Value, serde_json::Error> {
            self.whole().json(|de| de.$method($($arg,)* visitor))
        }
    )*};
}

impl<'de> de::Deserializer<'de> for Member<'de> {
    type Error = serde_json::Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        match self.plain_string() {
            Some(text) => visitor.visit_borrowed_str(text),
            None => self.json(|de| de.deserialize_any(visitor)),
        }
    }

    fn deserialize_str<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        match self.plain_string() {
            Some(text) => visitor.visit_borrowed_str(text),
            None => self.json(|de| de.deserialize_str(visitor)),
        }
    }

    fn deserialize_string<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        self.deserialize_str(visitor)
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        if self.0.trim() == "null" {
            visitor.visit_none()
        } else {
            visitor.visit_some(self)
        }
    }

    /// A `RawValue` is the text as it stands (serde_json reads one through a newtype of a
    /// private name, a map of one member, that name and the text); other newtypes are
    /// serde_json's. Were serde_json to change that name, a `RawValue` would be serde_json's
    /// again: slower, never wrong.
    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        if name == RAW_VALUE {
            return visitor.visit_map(RawValueMap(Some(self.0)));
        }
        self.json(|de| de.deserialize_newtype_struct(name, visitor))
    }

    serde_json_reads! {
        deserialize_bool() deserialize_i8() deserialize_i16() deserialize_i32()
        deserialize_i64() deserialize_i128() deserialize_u8() deserialize_u16()
        deserialize_u32() deserialize_u64() deserialize_u128() deserialize_f32()
        deserialize_f64() deserialize_char() deserialize_bytes() deserialize_byte_buf()
        deserialize_unit() deserialize_seq() deserialize_map() deserialize_identifier()
        deserialize_ignored_any()
        deserialize_unit_struct(name: &'static str)
        deserialize_tuple(len: usize)
        deserialize_tuple_struct(name: &'static str, len: usize)
        deserialize_struct(name: &'static str, fields: &'static [&'static str])
        deserialize_enum(name: &'static str, variants: &'static [&'static str])
    }
}

/// The one-member map serde_json's `RawValue` visitor reads: its private name, then the
/// value's text.
struct RawValueMap<'a>(Option<&'a str>);

impl<'de> MapAccess<'de> for RawValueMap<'de> {
    type Error = serde_json::Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, Self::Error> {
        if self.0.is_none() {
            return Ok(None);
        }
        seed.deserialize(BorrowedStrDeserializer::new(RAW_VALUE))
            .map(Some)
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(
        &mut self,
        seed: V,
    ) -> Result<V::Value, Self::Error> {
        let text = self
            .0
            .take()
            .ok_or_else(|| de::Error::custom("a raw value read twice"))?;
        seed.deserialize(BorrowedStrDeserializer::new(text))
    }
}

/// Reads `T` from the object `text` (a checked `RawValue`'s), member by member as
/// [`Member`]s; `None` when the split cannot be made or a name has an escape, for the
/// caller to hand the text to serde_json whole.
pub(crate) fn read_object<'a, T: Deserialize<'a>>(
    text: &'a str,
) -> Option<Result<T, serde_json::Error>> {
    let mut members = Vec::with_capacity(8);
    let mut escaped = false;
    scan::each_member(text, |name, has_escape, value| {
        if has_escape {
            escaped = true;
            return ControlFlow::Break(());
        }
        members.push((&name[1..name.len() - 1], value));
        ControlFlow::Continue(())
    })?;
    if escaped {
        return None;
    }
    Some(T::deserialize(Object {
        text,
        members: members.into_iter(),
        value: None,
    }))
}

/// An object's members, split already: a struct reads them as its fields; any other
/// target (a map with keys serde_json would parse, an `Option`, a newtype, an enum, a
/// `flatten`ed struct, which asks for a map) is serde_json's, from the whole text.
struct Object<'a, I> {
    text: &'a str,
    members: I,
    /// The value of the name just given.
    value: Option<&'a str>,
}

impl<'a, I> Object<'a, I> {
    /// The object as serde_json reads it, whole.
    fn whole(self) -> Member<'a> {
        Member(self.text)
    }
}

impl<'de, I: Iterator<Item = (&'de str, &'de str)>> de::Deserializer<'de> for Object<'de, I> {
    type Error = serde_json::Error;

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        visitor.visit_map(self)
    }

    serde_json_reads! {
        deserialize_any() deserialize_bool() deserialize_i8() deserialize_i16()
        deserialize_i32() deserialize_i64() deserialize_i128() deserialize_u8()
        deserialize_u16() deserialize_u32() deserialize_u64() deserialize_u128()
        deserialize_f32() deserialize_f64() deserialize_char() deserialize_str()
        deserialize_string() deserialize_bytes() deserialize_byte_buf() deserialize_option()
        deserialize_unit() deserialize_seq() deserialize_map() deserialize_identifier()
        deserialize_ignored_any()
        deserialize_unit_struct(name: &'static str)
        deserialize_newtype_struct(name: &'static str)
        deserialize_tuple(len: usize)
        deserialize_tuple_struct(name: &'static str, len: usize)
        deserialize_enum(name: &'static str, variants: &'static [&'static str])
    }
}

impl<'de, I: Iterator<Item = (&'de str, &'de str)>> MapAccess<'de> for Object<'de, I> {
    type Error = serde_json::Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, Self::Error> {
        let Some((name, value)) = self.members.next() else {
            return Ok(None);
        };
        self.value = Some(value);
        seed.deserialize(BorrowedStrDeserializer::new(name))
            .map(Some)
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(
        &mut self,
        seed: V,
    ) -> Result<V::Value, Self::Error> {
        let value = self
            .value
            .take()
            .ok_or_else(|| de::Error::custom("a value asked for before its name"))?;
        seed.deserialize(Member(value))
    }

    fn size_hint(&self) -> Option<usize> {
        self.members.size_hint().1
    }
}

#[cfg(test)]
mod tests {
    use std::fmt;

    use serde::Deserialize;
    use serde::de::DeserializeOwned;
    use serde_json::Value;
    use serde_json::value::RawValue;

    use super::*;

    /// What `Member` reads is what `serde_json::from_str` reads, values and errors alike
    /// (but for the position serde_json appends, which `take` drops).
    #[test]
    fn members_read_as_serde_json_reads_them() {
        #[derive(Debug, PartialEq, Deserialize)]
        #[serde(rename_all = "lowercase")]
        enum Mode {
            Fast,
            Slow,
        }
        #[derive(Debug, PartialEq, Deserialize)]
        #[serde(untagged)]
        enum Either {
            N(u32),
            S(String),
        }
        #[derive(Debug, PartialEq, Deserialize)]
        struct Point {
            x: i32,
        }
        #[derive(Debug, PartialEq, Deserialize)]
        struct Name(String);

        fn unplaced(e: serde_json::Error) -> String {
            let full = e.to_string();
            let at = format!(" at line {} column {}", e.line(), e.column());
            full.strip_suffix(&at).unwrap_or(&full).to_owned()
        }
        fn same<T: DeserializeOwned + PartialEq + fmt::Debug>(text: &str) {
            let ours = T::deserialize(Member(text)).map_err(unplaced);
            let theirs = serde_json::from_str::<T>(text).map_err(unplaced);
            assert_eq!(ours, theirs, "{} from {text}", std::any::type_name::<T>());
        }
        let texts = [
            r#""""#,
            r#""plain text""#,
            r#""caf\u00e9 \"quoted\" \\ \n""#,
            "\"caf\u{e9} \u{1F600}\"",
            r#""fast""#,
            r#""slow\u0021""#,
            r#""c""#,
            "null",
            "true",
            "0",
            "-17",
            "4294967296",
            "2.5",
            "[1, 2]",
            r#"{"x": 3}"#,
            r#"{"x": "3"}"#,
            r#"["a", "b"]"#,
        ];
        for text in texts {
            same::<String>(text);
            same::<Option<String>>(text);
            same::<Value>(text);
            same::<char>(text);
            same::<Mode>(text);
            same::<Either>(text);
            same::<std::path::PathBuf>(text);
            same::<Name>(text);
            same::<Option<Name>>(text);
            same::<Point>(text);
            same::<u32>(text);
            same::<Option<i64>>(text);
            same::<f64>(text);
            same::<bool>(text);
            same::<Vec<String>>(text);
            same::<()>(text);
            let ours = Box::<RawValue>::deserialize(Member(text)).map(|r| r.get().to_owned());
            assert_eq!(ours.unwrap(), text, "RawValue");
        }
        // The fast path hands the string over as it stands, borrowed.
        assert_eq!(Member(r#""abc""#).plain_string(), Some("abc"));
        assert_eq!(Member(r#""a\"c""#).plain_string(), None);
        assert_eq!(Member("12").plain_string(), None);
    }

    /// A `RawValue` member is a slice of the text itself, not a copy that was scanned.
    #[test]
    fn a_raw_value_member_borrows_the_text() {
        let text = r#"{"a": 1, "b": [1, {"c": "d"}]}"#;
        let raw = <&RawValue>::deserialize(Member(text)).unwrap();
        assert_eq!(raw.get(), text);
        assert!(std::ptr::eq(raw.get().as_ptr(), text.as_ptr()));
        // Not scanned again: a text the request's parse would have refused passes as it
        // stands here (serde_json would refuse it).
        let unchecked = r#"{"a": ]"#;
        assert!(serde_json::from_str::<&RawValue>(unchecked).is_err());
        let raw = <&RawValue>::deserialize(Member(unchecked)).unwrap();
        assert_eq!(raw.get(), unchecked);
    }

    /// An object read member by member is what serde_json reads from the whole text.
    #[test]
    fn objects_read_as_serde_json_reads_them() {
        #[derive(Debug, Deserialize)]
        #[expect(dead_code, reason = "compared as printed")]
        struct Call<'a> {
            #[serde(borrow)]
            name: std::borrow::Cow<'a, str>,
            #[serde(borrow, default)]
            arguments: Option<&'a RawValue>,
            #[serde(rename = "requestState", default)]
            request_state: Option<String>,
        }
        #[derive(Debug, PartialEq, Deserialize)]
        #[serde(deny_unknown_fields)]
        struct Strict {
            uri: String,
        }
        #[derive(Debug, PartialEq, Deserialize)]
        struct Flat {
            uri: String,
            #[serde(flatten)]
            rest: std::collections::BTreeMap<String, Value>,
        }
        // Compared as printed: a `RawValue` has no `PartialEq`, and prints its text.
        #[derive(Debug, Deserialize)]
        #[expect(dead_code, reason = "compared as printed")]
        struct Wrapped(std::collections::BTreeMap<String, Value>);
        #[derive(Debug, Deserialize)]
        #[expect(dead_code, reason = "compared as printed")]
        enum Tagged {
            #[serde(rename = "uri")]
            Uri(String),
        }
        fn same<'a, T: Deserialize<'a> + fmt::Debug>(text: &'a str) {
            let ours = read_object::<T>(text)
                .expect("split")
                .map(|v| format!("{v:?}"))
                .map_err(|e| e.to_string());
            let theirs = serde_json::from_str::<T>(text)
                .map(|v| format!("{v:?}"))
                .map_err(|e| {
                    let full = e.to_string();
                    let at = format!(" at line {} column {}", e.line(), e.column());
                    full.strip_suffix(&at).unwrap_or(&full).to_owned()
                });
            assert_eq!(ours, theirs, "{} from {text}", std::any::type_name::<T>());
        }
        for text in [
            r#"{"name": "echo", "arguments": {"text": "hi \"there\""}, "_meta": {"k": [1]}}"#,
            r#"{"name": "caf\u00e9", "arguments": null}"#,
            r#"{"name": "a", "requestState": "s", "extra": true}"#,
            r#"{"name": "a", "name": "b"}"#,
            r#"{"arguments": {}}"#,
            r#"{"name": 5}"#,
            r#"{"uri": "file:///a"}"#,
            r#"{"uri": "file:///a", "other": 1}"#,
            "{}",
        ] {
            same::<Call<'_>>(text);
            same::<Strict>(text);
            same::<Flat>(text);
            same::<Value>(text);
            same::<Option<Strict>>(text);
            same::<Wrapped>(text);
            same::<Box<RawValue>>(text);
            same::<std::collections::BTreeMap<String, Value>>(text);
            same::<Tagged>(text);
        }
        // Keys serde_json parses as numbers.
        same::<std::collections::BTreeMap<u32, u32>>(r#"{"1": 2, "30": 4}"#);
        // A name with an escape: serde_json's to read, whole.
        assert!(read_object::<Value>(r#"{"n\u0061me": 1}"#).is_none());
        assert!(read_object::<Value>("[1]").is_none());
        // The arguments are the text's own slice.
        let text = r#"{"name": "echo", "arguments": {"text": "x"}}"#;
        let call = read_object::<Call<'_>>(text).unwrap().unwrap();
        let arguments = call.arguments.unwrap().get();
        assert_eq!(arguments, r#"{"text": "x"}"#);
        assert!(text.as_bytes().as_ptr_range().contains(&arguments.as_ptr()));
    }
}
