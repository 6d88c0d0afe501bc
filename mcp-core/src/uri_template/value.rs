//! Variable values: what expansion takes ([`Vars`], [`VarValue`]) and matching gives back
//! ([`Value`]).

use std::borrow::{Borrow, Cow};
use std::collections::{BTreeMap, HashMap};
use std::hash::{BuildHasher, Hash};

#[cfg(doc)]
use super::{Match, UriTemplate};

/// A variable's value: a string, a list of strings, or an ordered map of string pairs
/// (RFC 6570 section 2.3). Used as input of [`UriTemplate::expand`] and output of
/// [`UriTemplate::matches`].
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Value {
    /// A string value.
    String(String),
    /// A list value. An empty list counts as undefined.
    List(Vec<String>),
    /// An associative array, in order. An empty map counts as undefined.
    Map(Vec<(String, String)>),
}

impl Value {
    /// The string, if this is a [`Value::String`].
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::String(s) => Some(s),
            _ => None,
        }
    }

    /// The items, if this is a [`Value::List`].
    pub fn as_list(&self) -> Option<&[String]> {
        match self {
            Value::List(items) => Some(items),
            _ => None,
        }
    }

    /// The entries, if this is a [`Value::Map`].
    pub fn as_map(&self) -> Option<&[(String, String)]> {
        match self {
            Value::Map(entries) => Some(entries),
            _ => None,
        }
    }

    /// A borrowed view of this value.
    pub fn as_value_ref(&self) -> ValueRef<'_> {
        match self {
            Value::String(s) => ValueRef::String(s),
            Value::List(items) => ValueRef::List(items),
            Value::Map(entries) => ValueRef::Map(entries),
        }
    }
}

impl From<String> for Value {
    fn from(s: String) -> Self {
        Value::String(s)
    }
}

impl From<&str> for Value {
    fn from(s: &str) -> Self {
        Value::String(s.to_owned())
    }
}

impl From<Vec<String>> for Value {
    fn from(items: Vec<String>) -> Self {
        Value::List(items)
    }
}

impl From<Vec<&str>> for Value {
    fn from(items: Vec<&str>) -> Self {
        Value::List(items.into_iter().map(str::to_owned).collect())
    }
}

impl From<Vec<(String, String)>> for Value {
    fn from(entries: Vec<(String, String)>) -> Self {
        Value::Map(entries)
    }
}

impl From<Vec<(&str, &str)>> for Value {
    fn from(entries: Vec<(&str, &str)>) -> Self {
        Value::Map(
            entries
                .into_iter()
                .map(|(k, v)| (k.to_owned(), v.to_owned()))
                .collect(),
        )
    }
}

/// A borrowed variable value, as [`Vars`] hands it to [`UriTemplate::expand`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ValueRef<'a> {
    /// A string value.
    String(&'a str),
    /// A list value. An empty list counts as undefined.
    List(&'a [String]),
    /// An associative array, in order. An empty map counts as undefined.
    Map(&'a [(String, String)]),
}

impl ValueRef<'_> {
    /// An owned copy.
    pub fn to_value(self) -> Value {
        match self {
            ValueRef::String(s) => Value::String(s.to_owned()),
            ValueRef::List(items) => Value::List(items.to_vec()),
            ValueRef::Map(entries) => Value::Map(entries.to_vec()),
        }
    }
}

/// Something usable as a variable's value in [`UriTemplate::expand`]: strings, [`Value`],
/// lists (`Vec<String>`, `[String]`) and maps (`Vec<(String, String)>`).
pub trait VarValue {
    /// A borrowed view of the value.
    fn as_value_ref(&self) -> ValueRef<'_>;
}

impl VarValue for str {
    fn as_value_ref(&self) -> ValueRef<'_> {
        ValueRef::String(self)
    }
}

impl VarValue for String {
    fn as_value_ref(&self) -> ValueRef<'_> {
        ValueRef::String(self)
    }
}

impl VarValue for Cow<'_, str> {
    fn as_value_ref(&self) -> ValueRef<'_> {
        ValueRef::String(self)
    }
}

impl VarValue for Value {
    fn as_value_ref(&self) -> ValueRef<'_> {
        Value::as_value_ref(self)
    }
}

impl VarValue for ValueRef<'_> {
    fn as_value_ref(&self) -> ValueRef<'_> {
        *self
    }
}

impl VarValue for [String] {
    fn as_value_ref(&self) -> ValueRef<'_> {
        ValueRef::List(self)
    }
}

impl VarValue for Vec<String> {
    fn as_value_ref(&self) -> ValueRef<'_> {
        ValueRef::List(self)
    }
}

impl<const N: usize> VarValue for [String; N] {
    fn as_value_ref(&self) -> ValueRef<'_> {
        ValueRef::List(self)
    }
}

impl VarValue for [(String, String)] {
    fn as_value_ref(&self) -> ValueRef<'_> {
        ValueRef::Map(self)
    }
}

impl VarValue for Vec<(String, String)> {
    fn as_value_ref(&self) -> ValueRef<'_> {
        ValueRef::Map(self)
    }
}

impl<T: VarValue + ?Sized> VarValue for &T {
    fn as_value_ref(&self) -> ValueRef<'_> {
        (**self).as_value_ref()
    }
}

/// A set of variables for [`UriTemplate::expand`]: looks a value up by name, `None` meaning
/// undefined.
///
/// Implemented for `HashMap` and `BTreeMap` with string keys, for slices, arrays and vectors
/// of `(name, value)` pairs, and for [`Match`], so that a match expands back to its URI.
pub trait Vars {
    /// The value of the variable `name`, or `None` if it is undefined.
    fn get(&self, name: &str) -> Option<ValueRef<'_>>;
}

impl<K, V, S> Vars for HashMap<K, V, S>
where
    K: Borrow<str> + Hash + Eq,
    V: VarValue,
    S: BuildHasher,
{
    fn get(&self, name: &str) -> Option<ValueRef<'_>> {
        HashMap::get(self, name).map(VarValue::as_value_ref)
    }
}

impl<K: Borrow<str> + Ord, V: VarValue> Vars for BTreeMap<K, V> {
    fn get(&self, name: &str) -> Option<ValueRef<'_>> {
        BTreeMap::get(self, name).map(VarValue::as_value_ref)
    }
}

impl<K: AsRef<str>, V: VarValue> Vars for [(K, V)] {
    fn get(&self, name: &str) -> Option<ValueRef<'_>> {
        self.iter()
            .find(|(k, _)| k.as_ref() == name)
            .map(|(_, v)| v.as_value_ref())
    }
}

impl<K: AsRef<str>, V: VarValue, const N: usize> Vars for [(K, V); N] {
    fn get(&self, name: &str) -> Option<ValueRef<'_>> {
        Vars::get(self.as_slice(), name)
    }
}

impl<K: AsRef<str>, V: VarValue> Vars for Vec<(K, V)> {
    fn get(&self, name: &str) -> Option<ValueRef<'_>> {
        Vars::get(self.as_slice(), name)
    }
}

impl<T: Vars + ?Sized> Vars for &T {
    fn get(&self, name: &str) -> Option<ValueRef<'_>> {
        (**self).get(name)
    }
}
