//! RFC 6570 URI templates, as MCP resource templates use them: parse, expand, and match a
//! concrete URI in linear time.
//!
//! A [`UriTemplate`] is parsed once ([`UriTemplate::parse`], [`str::parse`], or serde from a
//! JSON string) and then used both ways:
//!
//! - [`UriTemplate::expand`] fills the variables in, per RFC 6570 section 3, at every level
//!   (1 to 4): all eight operators (none, `+`, `#`, `.`, `/`, `;`, `?`, `&`), variable lists,
//!   prefix (`{var:3}`) and explode (`{list*}`) modifiers, and string, list and map values
//!   ([`Value`], or anything implementing [`VarValue`]) looked up through [`Vars`].
//! - [`UriTemplate::matches`] goes the other way: it decides whether a concrete URI is an
//!   instance of the template and extracts the (percent-decoded) variable values as a
//!   [`Match`]. This is how a server routes `resources/read` to a resource template.
//!
//! # Examples
//!
//! ```
//! use mcp_core::uri_template::{UriTemplate, Value};
//!
//! let t: UriTemplate = "repo://{owner}/{repo}/issues{?state,labels}".parse()?;
//! assert_eq!(t.variables().collect::<Vec<_>>(), ["owner", "repo", "state", "labels"]);
//!
//! // Expand: undefined variables simply disappear.
//! let uri = t.expand(&[("owner", "octo cat"), ("repo", "hello"), ("state", "open")]);
//! assert_eq!(uri, "repo://octo%20cat/hello/issues?state=open");
//!
//! // Match: query parameters may come in any order, and each one is optional.
//! let m = t.matches("repo://octo%20cat/hello/issues?labels=bug,ui&state=open").unwrap();
//! assert_eq!(m.get_str("owner"), Some("octo cat"));
//! assert_eq!(m.get_str("state"), Some("open"));
//! assert_eq!(m.get("labels"), Some(&Value::from(vec!["bug", "ui"])));
//! assert_eq!(t.matches("repo://octo/hello/pulls"), None);
//!
//! // Matching and expanding are inverse operations.
//! assert_eq!(t.expand(&m), "repo://octo%20cat/hello/issues?state=open&labels=bug,ui");
//!
//! // Syntax errors say what is wrong and where (a byte offset into the template).
//! let err = UriTemplate::parse("file:///{path").unwrap_err();
//! assert_eq!(err.offset(), 8);
//! assert_eq!(err.to_string(), "unclosed expression: the `{` at byte 8 has no matching `}`");
//! # Ok::<(), mcp_core::uri_template::UriTemplateError>(())
//! ```
//!
//! # Syntax
//!
//! Parsing follows the RFC 6570 grammar exactly. Literals may contain any character the RFC
//! allows (not spaces, controls, `"'<>\^`|`, nor `%` unless it starts a percent-encoded
//! triplet). A variable name is `ALPHA / DIGIT / "_" / pct-encoded` characters, with single
//! dots allowed between them. A prefix length is `1..=9999` without leading zeros, and a
//! variable cannot have both a prefix and an explode modifier. The operators `=`, `,`, `!`,
//! `@` and `|`, which the RFC reserves for future use, are rejected. A template is at most
//! [`MAX_TEMPLATE_LEN`] bytes long and has at most [`MAX_EXPRESSIONS`] expressions. Every
//! [`UriTemplateError`] carries the byte offset of the offending token.
//!
//! # Expansion
//!
//! Expansion is RFC 6570 section 3 to the letter, with two choices where the RFC leaves it
//! open: a prefix modifier applied to a list or map value is ignored (the RFC calls it "not
//! applicable"), and an empty list or map counts as undefined, as the RFC requires.
//!
//! # Matching
//!
//! Matching reads the URI once, left to right, and never backtracks. It runs in
//! `O(len(uri) + len(template))` time whatever the input: there are no regular expressions,
//! and each byte of the URI is examined a bounded number of times. URIs longer than
//! [`MAX_URI_LEN`] never match. The rules:
//!
//! 1. **Literals** must appear byte for byte (no case folding, no normalisation). A literal
//!    with non-ASCII characters may appear either raw (an IRI) or percent-encoded, as
//!    expansion writes it.
//! 2. **What an expression may contain.** Every expression covers a *region* of the URI made
//!    of unreserved characters, percent-encoded triplets, raw non-ASCII characters, and the
//!    punctuation its own expansion can produce: its operator's leading character (`#`, `.`,
//!    `/`, `;`, `?`, `&`) at the start, its separator if it has several variables or an
//!    exploded one, `,` (the join character of list values) if it has a non-exploded
//!    variable, and `=` for the named operators (`;`, `?`, `&`) and exploded maps. `{+var}`
//!    and `{#var}` may also contain every reserved character (`:/?#[]@!$&'()*+,;=`). So
//!    `{var}` stops at `/`, `?` or `#`, while `{+path}` runs on through them.
//! 3. **Where a region ends** depends on what follows the expression in the template:
//!    - nothing: the region is the rest of the URI;
//!    - the template's final literal: the URI must end with that literal, which is set aside
//!      first, so that no expression can reach into it (`{+path}/edit` matches `a/b/edit`
//!      with `path = "a/b"`, `{name}.txt` matches `my.file.txt` with `name = "my.file"`);
//!    - any other literal: the region ends at the *first* occurrence of that literal, which
//!      must come before the first character the expression may not contain (occurrences
//!      that would cut a percent-encoded triplet in two are skipped). In `{a}.{b}.txt`
//!      matching `x.y.z.txt`, `a` is `x` and `b` is `y.z`. The occurrence may be immediate
//!      and leave the expression empty: in `{/a}/{b}` the `/` after `{/a}` is found at once,
//!      so write `/{a}/{b}` or `{/a,b}` instead;
//!    - another expression, with no literal between them (an ambiguous case the RFC leaves
//!      open): the first expression is greedy. It runs until the first character it may not
//!      contain, or the second expression's leading character, unless that character is the
//!      first expression's own leading character or separator. A named expression also
//!      stops before a parameter that is none of its variables (when it has no exploded
//!      variable to collect it). So `{+path}{?q}` splits at the first `?`, `{name}{.ext}` at
//!      the first `.`, `{?a,b}{&c}` by parameter name, and in `{a}{b}`, where nothing marks
//!      the boundary, `a` takes everything and `b` is undefined.
//! 4. **An empty region** leaves all the expression's variables undefined (absent from the
//!    [`Match`]): `{id}` matched against the empty string gives no `id`, just as expanding
//!    an undefined `id` gives the empty string. A non-empty region of an operator with a
//!    leading character must start with that character.
//! 5. **Unnamed operators** (none, `+`, `#`, `.`, `/`): the region (after the leading
//!    character) is split at the separator when the expression has several variables or an
//!    exploded one, and the pieces are assigned in order: one to each non-exploded variable,
//!    all the pieces that the later variables do not need to the first exploded variable,
//!    and trailing variables left without a piece are undefined. More pieces than variables
//!    (without an exploded variable) is no match.
//! 6. **Named operators** (`;`, `?`, `&`): the region is a list of `name=value` parameters
//!    (`;name` for an empty value with `;`), matched to the variables by name in *any order*;
//!    variables without a parameter are undefined. A parameter that names no variable goes
//!    to the expression's exploded variable if it has one (and makes it a map), and
//!    otherwise means no match, as does a repeated parameter for a non-exploded variable or
//!    a parameter written differently from expansion (`?name` without `=`, `;name=`). In an
//!    expression *with* an exploded variable the parameters must come in template order
//!    (the exploded variable's ones where it stands), since otherwise which parameter
//!    belongs to the exploded map and which to a named variable would be a guess.
//! 7. **Values** are percent-decoded; a malformed triplet or a decoded value that is not
//!    UTF-8 is no match. In `{+var}` and `{#var}`, triplets of reserved characters (`%2F`,
//!    `%3F`, …) stay encoded: expansion passes them through, and in a URI `%2F` is not `/`.
//!    A non-exploded variable is a [`Value::String`], except with the operators that
//!    percent-encode `,` (all but `+` and `#`), where a raw `,` can only come from a list,
//!    so `{x}` against `a,b` gives the list `["a", "b"]`. An exploded variable is a
//!    [`Value::List`], or a [`Value::Map`] when its pieces are `key=value` pairs (operators
//!    that percent-encode `=`) or carry names other than its own (named operators). With
//!    these operators a raw `=` or `,` that expansion could not have written is no match.
//! 8. **A prefix** `{var:n}` does not move a region's end; the value found must be at most
//!    `n` characters long. **A variable used several times** must get the same value
//!    everywhere (a prefix occurrence must be a prefix of it), or the URI does not match.
//!
//! Matching inverts expansion. Whenever `t.matches(&t.expand(vars))` returns `Some(m)`,
//! `t.expand(&m)` is that same URI, even for ambiguous templates (the values may differ
//! where the URI cannot tell them apart, such as an empty string and an undefined variable;
//! the one exception is a `{+var}` or `{#var}` value that itself contains a triplet of an
//! unreserved or non-ASCII character, like `%41`, which expansion passes through and
//! matching decodes).
//! And when nothing is ambiguous (boundaries as in rule 3, values that do not contain their
//! own expression's separator, no undefined variable before a defined one in an unnamed
//! list), it does return `Some`, with the original values. The tests check both properties
//! on thousands of generated templates.

use std::borrow::{Borrow, Cow};
use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::hash::{BuildHasher, Hash, Hasher};
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// The longest template [`UriTemplate::parse`] accepts, in bytes (64 KiB).
pub const MAX_TEMPLATE_LEN: usize = 64 * 1024;

/// The most expressions (`{…}`) a template may have.
pub const MAX_EXPRESSIONS: usize = 1024;

/// The longest URI [`UriTemplate::matches`] considers, in bytes (64 KiB); longer URIs never
/// match.
pub const MAX_URI_LEN: usize = 64 * 1024;

// ---------------------------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------------------------

/// Why a string is not a valid URI template. Every variant knows the byte offset of the
/// offending token in the template ([`UriTemplateError::offset`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum UriTemplateError {
    /// The template is longer than [`MAX_TEMPLATE_LEN`] bytes.
    #[error(
        "URI template is {len} bytes long; the limit is {} bytes",
        MAX_TEMPLATE_LEN
    )]
    TooLong {
        /// The template's length in bytes.
        len: usize,
    },
    /// The template has more than [`MAX_EXPRESSIONS`] expressions.
    #[error("too many expressions: the `{{` at byte {offset} opens expression number {}, the limit is {}", MAX_EXPRESSIONS + 1, MAX_EXPRESSIONS)]
    TooManyExpressions {
        /// Byte offset of the first `{` over the limit.
        offset: usize,
    },
    /// A `{` without its `}`.
    #[error("unclosed expression: the `{{` at byte {offset} has no matching `}}`")]
    UnclosedExpression {
        /// Byte offset of the `{`.
        offset: usize,
    },
    /// A `}` outside any expression.
    #[error("unmatched `}}` at byte {offset}")]
    UnmatchedBrace {
        /// Byte offset of the `}`.
        offset: usize,
    },
    /// `{}`.
    #[error("empty expression `{{}}` at byte {offset}")]
    EmptyExpression {
        /// Byte offset of the `{`.
        offset: usize,
    },
    /// An operator the RFC reserves for future extensions: `=`, `,`, `!`, `@` or `|`.
    #[error("operator `{operator}` at byte {offset} is reserved for future extensions")]
    ReservedOperator {
        /// Byte offset of the operator.
        offset: usize,
        /// The operator.
        operator: char,
    },
    /// A variable name is missing (`{+}`, `{a,}`, `{,}` aside).
    #[error("empty variable name at byte {offset}")]
    EmptyVariableName {
        /// Byte offset where the name should start.
        offset: usize,
    },
    /// A character that cannot appear in a variable name.
    #[error(
        "invalid character {found:?} in variable name at byte {offset} \
         (names are letters, digits, `_`, percent-encoded triplets, and single dots between them)"
    )]
    InvalidVariableChar {
        /// Byte offset of the character.
        offset: usize,
        /// The character.
        found: char,
    },
    /// A `.` at the start or end of a variable name, or right after another `.`.
    #[error(
        "misplaced `.` in variable name at byte {offset}: dots may only separate name characters"
    )]
    MisplacedDot {
        /// Byte offset of the dot.
        offset: usize,
    },
    /// A `%` not followed by two hexadecimal digits.
    #[error("invalid percent-encoding at byte {offset}: `%` must be followed by two hex digits")]
    InvalidPercentEncoding {
        /// Byte offset of the `%`.
        offset: usize,
    },
    /// A prefix modifier that is not a number from 1 to 9999 without leading zeros.
    #[error("invalid prefix length at byte {offset}: expected a number from 1 to 9999")]
    InvalidPrefix {
        /// Byte offset where the number should start.
        offset: usize,
    },
    /// A variable with both an explode (`*`) and a prefix (`:n`) modifier.
    #[error("variable at byte {offset} combines the explode `*` and prefix `:` modifiers")]
    ExplodeWithPrefix {
        /// Byte offset of the second modifier.
        offset: usize,
    },
    /// Something other than `,` or `}` after a variable's modifier.
    #[error("expected `,` or `}}` at byte {offset}, found {found:?}")]
    UnexpectedChar {
        /// Byte offset of the character.
        offset: usize,
        /// The character.
        found: char,
    },
    /// A character that cannot appear in a literal (outside expressions): controls, space,
    /// `"`, `'`, `<`, `>`, `\`, `^`, `` ` ``, `|`, or non-characters.
    #[error("invalid character {found:?} in literal at byte {offset} (percent-encode it)")]
    InvalidLiteralChar {
        /// Byte offset of the character.
        offset: usize,
        /// The character.
        found: char,
    },
}

impl UriTemplateError {
    /// Byte offset in the template of the token the error is about. For
    /// [`UriTemplateError::TooLong`], the offset of the first byte past the limit.
    pub fn offset(&self) -> usize {
        match self {
            UriTemplateError::TooLong { .. } => MAX_TEMPLATE_LEN,
            UriTemplateError::TooManyExpressions { offset }
            | UriTemplateError::UnclosedExpression { offset }
            | UriTemplateError::UnmatchedBrace { offset }
            | UriTemplateError::EmptyExpression { offset }
            | UriTemplateError::ReservedOperator { offset, .. }
            | UriTemplateError::EmptyVariableName { offset }
            | UriTemplateError::InvalidVariableChar { offset, .. }
            | UriTemplateError::MisplacedDot { offset }
            | UriTemplateError::InvalidPercentEncoding { offset }
            | UriTemplateError::InvalidPrefix { offset }
            | UriTemplateError::ExplodeWithPrefix { offset }
            | UriTemplateError::UnexpectedChar { offset, .. }
            | UriTemplateError::InvalidLiteralChar { offset, .. } => *offset,
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Values
// ---------------------------------------------------------------------------------------------

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

// ---------------------------------------------------------------------------------------------
// Match
// ---------------------------------------------------------------------------------------------

/// The variables extracted by [`UriTemplate::matches`], in the order the template first
/// mentions them. Undefined variables are absent.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Match {
    vars: Vec<(String, Value)>,
}

impl Match {
    /// The value of `name`, if it was defined.
    pub fn get(&self, name: &str) -> Option<&Value> {
        self.vars.iter().find(|(n, _)| n == name).map(|(_, v)| v)
    }

    /// The value of `name`, if it was defined and is a string.
    pub fn get_str(&self, name: &str) -> Option<&str> {
        self.get(name).and_then(Value::as_str)
    }

    /// The defined variables and their values, in template order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = (&str, &Value)> {
        self.vars.iter().map(|(n, v)| (n.as_str(), v))
    }

    /// How many variables are defined.
    pub fn len(&self) -> usize {
        self.vars.len()
    }

    /// Whether no variable is defined.
    pub fn is_empty(&self) -> bool {
        self.vars.is_empty()
    }

    /// The defined variables and their values, in template order.
    pub fn into_vec(self) -> Vec<(String, Value)> {
        self.vars
    }
}

impl IntoIterator for Match {
    type Item = (String, Value);
    type IntoIter = std::vec::IntoIter<(String, Value)>;

    fn into_iter(self) -> Self::IntoIter {
        self.vars.into_iter()
    }
}

impl Vars for Match {
    fn get(&self, name: &str) -> Option<ValueRef<'_>> {
        Match::get(self, name).map(Value::as_value_ref)
    }
}

// ---------------------------------------------------------------------------------------------
// Character classes
// ---------------------------------------------------------------------------------------------

/// A set of ASCII bytes; bytes >= 0x80 are always members (raw IRI characters).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct ByteSet(u128);

impl ByteSet {
    const fn of(chars: &[u8]) -> ByteSet {
        let mut mask = 0u128;
        let mut i = 0;
        while i < chars.len() {
            mask |= 1 << chars[i];
            i += 1;
        }
        ByteSet(mask)
    }

    const fn union(self, other: ByteSet) -> ByteSet {
        ByteSet(self.0 | other.0)
    }

    const fn with(self, b: u8) -> ByteSet {
        ByteSet(self.0 | (1 << (b & 0x7f)))
    }

    /// ASCII membership (for encoding: non-ASCII bytes are never copied as-is).
    fn has_ascii(self, b: u8) -> bool {
        b < 0x80 && (self.0 >> b) & 1 == 1
    }

    /// Membership for matching, where raw non-ASCII is accepted.
    fn accepts(self, b: u8) -> bool {
        b >= 0x80 || (self.0 >> b) & 1 == 1
    }
}

const ALNUM: ByteSet =
    ByteSet::of(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789");
const UNRESERVED: ByteSet = ALNUM.union(ByteSet::of(b"-._~"));
const RESERVED: ByteSet = ByteSet::of(b":/?#[]@!$&'()*+,;=");
const HEX_UPPER: &[u8; 16] = b"0123456789ABCDEF";

fn hex_val(b: u8) -> Option<u8> {
    match b {
        b'0'..=b'9' => Some(b - b'0'),
        b'a'..=b'f' => Some(b - b'a' + 10),
        b'A'..=b'F' => Some(b - b'A' + 10),
        _ => None,
    }
}

/// Whether `b[i..]` starts with a percent-encoded triplet.
fn is_pct_at(b: &[u8], i: usize) -> bool {
    b.get(i) == Some(&b'%')
        && b.get(i + 1).is_some_and(u8::is_ascii_hexdigit)
        && b.get(i + 2).is_some_and(u8::is_ascii_hexdigit)
}

/// RFC 6570 `literals`, ASCII part (without `%`, which must start a triplet).
fn is_literal_ascii(c: u8) -> bool {
    matches!(c, 0x21 | 0x23 | 0x24 | 0x26 | 0x28..=0x3B | 0x3D | 0x3F..=0x5B | 0x5D | 0x5F | 0x61..=0x7A | 0x7E)
}

/// RFC 3987 `ucschar` / `iprivate`: the non-ASCII characters a literal may contain.
fn is_literal_non_ascii(ch: char) -> bool {
    let c = u32::from(ch);
    match c {
        0xA0..=0xD7FF | 0xE000..=0xFDCF | 0xFDF0..=0xFFEF => true,
        0x10000..=0x10FFFD => (c & 0xFFFF) < 0xFFFE,
        _ => false,
    }
}

fn push_pct(out: &mut String, b: u8) {
    out.push('%');
    out.push(char::from(HEX_UPPER[usize::from(b >> 4)]));
    out.push(char::from(HEX_UPPER[usize::from(b & 0x0f)]));
}

/// Appends `s`, percent-encoding every byte outside the allowed set. With `allow_reserved`,
/// reserved characters and existing pct-encoded triplets are copied as-is.
fn push_encoded(out: &mut String, s: &str, allow_reserved: bool) {
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if UNRESERVED.has_ascii(c) || (allow_reserved && RESERVED.has_ascii(c)) {
            out.push(char::from(c));
            i += 1;
        } else if allow_reserved && is_pct_at(b, i) {
            out.push('%');
            out.push(char::from(b[i + 1]));
            out.push(char::from(b[i + 2]));
            i += 3;
        } else {
            push_pct(out, c);
            i += 1;
        }
    }
}

/// The first `n` characters of `s`; with `allow_reserved`, a pct-encoded triplet counts as
/// one character so that it is never split.
fn prefix_of(s: &str, n: usize, allow_reserved: bool) -> &str {
    let b = s.as_bytes();
    let mut count = 0;
    let mut chars = s.char_indices();
    while let Some((i, ch)) = chars.next() {
        if count == n {
            return s.get(..i).unwrap_or(s);
        }
        count += 1;
        if allow_reserved && ch == '%' && is_pct_at(b, i) {
            chars.nth(1);
        }
    }
    s
}

// ---------------------------------------------------------------------------------------------
// Template structure
// ---------------------------------------------------------------------------------------------

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    Simple,
    Reserved,
    Fragment,
    Label,
    Path,
    PathParam,
    Query,
    QueryCont,
}

impl Op {
    fn first(self) -> Option<u8> {
        match self {
            Op::Simple | Op::Reserved => None,
            Op::Fragment => Some(b'#'),
            Op::Label => Some(b'.'),
            Op::Path => Some(b'/'),
            Op::PathParam => Some(b';'),
            Op::Query => Some(b'?'),
            Op::QueryCont => Some(b'&'),
        }
    }

    fn sep(self) -> u8 {
        match self {
            Op::Simple | Op::Reserved | Op::Fragment => b',',
            Op::Label => b'.',
            Op::Path => b'/',
            Op::PathParam => b';',
            Op::Query | Op::QueryCont => b'&',
        }
    }

    fn named(self) -> bool {
        matches!(self, Op::PathParam | Op::Query | Op::QueryCont)
    }

    fn ifemp(self) -> &'static str {
        match self {
            Op::Query | Op::QueryCont => "=",
            _ => "",
        }
    }

    fn allow_reserved(self) -> bool {
        matches!(self, Op::Reserved | Op::Fragment)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Modifier {
    None,
    Prefix(u16),
    Explode,
}

#[derive(Debug, Clone)]
struct Spec {
    name: Box<str>,
    /// Index into [`UriTemplate::names`].
    var: usize,
    modifier: Modifier,
}

impl Spec {
    fn explode(&self) -> bool {
        self.modifier == Modifier::Explode
    }
}

/// Name lookup for the named operators: parameter name -> positions in `Expr::specs`.
#[derive(Debug, Clone)]
struct NamedIndex {
    groups: HashMap<Box<[u8]>, usize>,
    positions: Vec<Vec<usize>>,
    max_name_len: usize,
}

#[derive(Debug, Clone)]
struct Expr {
    op: Op,
    specs: Vec<Spec>,
    /// Bytes a region of this expression may contain after the leading character.
    allowed: ByteSet,
    /// Whether the expansion may contain the separator (several variables or an explode).
    multi: bool,
    first_explode: Option<usize>,
    named: Option<NamedIndex>,
}

/// A literal and its KMP failure table.
#[derive(Debug, Clone)]
struct Pattern {
    text: Box<str>,
    fail: Box<[u32]>,
}

impl Pattern {
    fn new(text: &str) -> Pattern {
        let b = text.as_bytes();
        let mut fail = vec![0u32; b.len()];
        let mut k = 0usize;
        for i in 1..b.len() {
            while k > 0 && b[i] != b[k] {
                k = fail[k - 1] as usize;
            }
            if b[i] == b[k] {
                k += 1;
            }
            // Templates are at most 64 KiB, so this always fits.
            fail[i] = u32::try_from(k).unwrap_or(0);
        }
        Pattern {
            text: text.into(),
            fail: fail.into_boxed_slice(),
        }
    }
}

#[derive(Debug, Clone)]
struct Literal {
    /// As expansion writes it (non-ASCII percent-encoded).
    enc: Pattern,
    /// As written in the template, when that differs (non-ASCII characters).
    raw: Option<Pattern>,
}

impl Literal {
    fn new(raw: &str) -> Literal {
        let mut enc = String::with_capacity(raw.len());
        for &c in raw.as_bytes() {
            if c < 0x80 {
                enc.push(char::from(c));
            } else {
                push_pct(&mut enc, c);
            }
        }
        let raw = (enc != raw).then(|| Pattern::new(raw));
        Literal {
            enc: Pattern::new(&enc),
            raw,
        }
    }

    fn forms(&self) -> impl Iterator<Item = &Pattern> {
        std::iter::once(&self.enc).chain(self.raw.as_ref())
    }
}

#[derive(Debug, Clone)]
enum Part {
    Literal(Literal),
    Expr(Expr),
}

/// A parsed RFC 6570 URI template. See the [module documentation](self) for the syntax, the
/// expansion and the matching rules.
///
/// Equality, hashing, [`Display`](fmt::Display) and serde all use the template's text.
#[derive(Clone)]
pub struct UriTemplate {
    source: String,
    parts: Vec<Part>,
    /// Distinct variable names, in order of first appearance.
    names: Vec<Box<str>>,
}

impl UriTemplate {
    /// Parses a template.
    ///
    /// # Errors
    ///
    /// A [`UriTemplateError`] saying what is wrong and at which byte offset, if `template` is
    /// not valid RFC 6570 syntax or exceeds [`MAX_TEMPLATE_LEN`] or [`MAX_EXPRESSIONS`].
    pub fn parse(template: &str) -> Result<UriTemplate, UriTemplateError> {
        Parser::run(template.to_owned())
    }

    /// The template's text, as parsed.
    pub fn as_str(&self) -> &str {
        &self.source
    }

    /// The names of the template's variables, in order of first appearance, each once.
    pub fn variables(&self) -> impl ExactSizeIterator<Item = &str> + DoubleEndedIterator {
        self.names.iter().map(|n| &**n)
    }

    /// Whether the template has no expressions (it is a plain URI).
    pub fn is_static(&self) -> bool {
        !self.parts.iter().any(|p| matches!(p, Part::Expr(_)))
    }

    /// Expands the template with the given variables (RFC 6570 section 3). Variables that
    /// `vars` does not define are undefined; so are empty lists and maps.
    ///
    /// ```
    /// use mcp_core::uri_template::{UriTemplate, Value};
    /// use std::collections::HashMap;
    ///
    /// let t = UriTemplate::parse("file:///{+path}{?rev}")?;
    /// assert_eq!(t.expand(&[("path", "src/main.rs")]), "file:///src/main.rs");
    ///
    /// let mut vars = HashMap::new();
    /// vars.insert("path", Value::from("a b/c"));
    /// vars.insert("rev", Value::from(vec!["1", "2"]));
    /// assert_eq!(t.expand(&vars), "file:///a%20b/c?rev=1,2");
    /// # Ok::<(), mcp_core::uri_template::UriTemplateError>(())
    /// ```
    pub fn expand<V: Vars + ?Sized>(&self, vars: &V) -> String {
        let mut out = String::with_capacity(self.source.len() + 16);
        for part in &self.parts {
            match part {
                Part::Literal(lit) => out.push_str(&lit.enc.text),
                Part::Expr(expr) => expr.expand(vars, &mut out),
            }
        }
        out
    }

    /// Matches a concrete URI against the template and extracts the variables,
    /// percent-decoded; `None` if the URI is not an instance of the template. Runs in linear
    /// time; see the [module documentation](self#matching) for the rules.
    ///
    /// ```
    /// use mcp_core::uri_template::UriTemplate;
    ///
    /// let t = UriTemplate::parse("file:///{+path}")?;
    /// let m = t.matches("file:///home/me/My%20Notes.md").unwrap();
    /// assert_eq!(m.get_str("path"), Some("home/me/My Notes.md"));
    ///
    /// let t = UriTemplate::parse("test://template/{id}/data")?;
    /// assert_eq!(t.matches("test://template/42/data").unwrap().get_str("id"), Some("42"));
    /// assert!(t.matches("test://template/4/2/data").is_none());
    /// # Ok::<(), mcp_core::uri_template::UriTemplateError>(())
    /// ```
    pub fn matches(&self, uri: &str) -> Option<Match> {
        self.match_metered(uri, &mut Meter::default())
    }

    fn match_metered(&self, uri: &str, meter: &mut Meter) -> Option<Match> {
        if uri.len() > MAX_URI_LEN {
            return None;
        }
        let mut u = uri.as_bytes();
        let mut parts = &self.parts[..];
        // The template's final literal anchors at the end of the URI: strip it first, so that
        // no expression can reach into it.
        if let [init @ .., Part::Literal(last)] = parts
            && !init.is_empty()
        {
            u = u.get(..match_literal_suffix(last, u, 0, meter)?)?;
            parts = init;
        }
        let n = u.len();
        let mut bindings = Bindings::new(self.names.len());
        let mut p = 0;
        let mut i = 0;
        while let Some(part) = parts.get(i) {
            match part {
                Part::Literal(lit) => {
                    p = match_literal_at(lit, u, p, meter)?;
                    i += 1;
                }
                Part::Expr(expr) => {
                    let (end, next_p, step) = match parts.get(i + 1) {
                        None => (n, n, 1),
                        Some(Part::Literal(lit)) => {
                            let (q, after) = expr.find_literal(u, p, lit, meter)?;
                            (q, after, 2)
                        }
                        Some(Part::Expr(next)) => {
                            let end = expr.scan_greedy(u, p, expr.stop_before(next), meter);
                            (end, end, 1)
                        }
                    };
                    expr.bind(u.get(p..end)?, &mut bindings, meter)?;
                    p = next_p;
                    i += step;
                }
            }
        }
        if p != n {
            return None;
        }
        bindings.finish(&self.names)
    }
}

impl fmt::Debug for UriTemplate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("UriTemplate").field(&self.source).finish()
    }
}

impl fmt::Display for UriTemplate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.source)
    }
}

impl PartialEq for UriTemplate {
    fn eq(&self, other: &Self) -> bool {
        self.source == other.source
    }
}

impl Eq for UriTemplate {}

impl Hash for UriTemplate {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.source.hash(state);
    }
}

impl AsRef<str> for UriTemplate {
    fn as_ref(&self) -> &str {
        &self.source
    }
}

impl FromStr for UriTemplate {
    type Err = UriTemplateError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        UriTemplate::parse(s)
    }
}

impl TryFrom<&str> for UriTemplate {
    type Error = UriTemplateError;

    fn try_from(s: &str) -> Result<Self, Self::Error> {
        UriTemplate::parse(s)
    }
}

impl TryFrom<String> for UriTemplate {
    type Error = UriTemplateError;

    fn try_from(s: String) -> Result<Self, Self::Error> {
        Parser::run(s)
    }
}

impl Serialize for UriTemplate {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.source)
    }
}

impl<'de> Deserialize<'de> for UriTemplate {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let s = String::deserialize(deserializer)?;
        Parser::run(s).map_err(serde::de::Error::custom)
    }
}

// ---------------------------------------------------------------------------------------------
// Parsing
// ---------------------------------------------------------------------------------------------

struct Parser<'a> {
    src: &'a str,
    b: &'a [u8],
    names: Vec<Box<str>>,
    ids: HashMap<Box<str>, usize>,
}

impl Parser<'_> {
    fn run(source: String) -> Result<UriTemplate, UriTemplateError> {
        if source.len() > MAX_TEMPLATE_LEN {
            return Err(UriTemplateError::TooLong { len: source.len() });
        }
        let mut parser = Parser {
            src: &source,
            b: source.as_bytes(),
            names: Vec::new(),
            ids: HashMap::new(),
        };
        let parts = parser.parts()?;
        let names = parser.names;
        Ok(UriTemplate {
            source,
            parts,
            names,
        })
    }

    fn char_at(&self, i: usize) -> char {
        self.src
            .get(i..)
            .and_then(|s| s.chars().next())
            .unwrap_or(char::REPLACEMENT_CHARACTER)
    }

    fn parts(&mut self) -> Result<Vec<Part>, UriTemplateError> {
        let b = self.b;
        let mut parts = Vec::new();
        let mut expressions = 0;
        let mut lit_start = 0;
        let mut i = 0;
        while let Some(&c) = b.get(i) {
            match c {
                b'{' => {
                    if lit_start < i {
                        parts.push(Part::Literal(Literal::new(
                            self.src.get(lit_start..i).unwrap_or(""),
                        )));
                    }
                    expressions += 1;
                    if expressions > MAX_EXPRESSIONS {
                        return Err(UriTemplateError::TooManyExpressions { offset: i });
                    }
                    let (expr, end) = self.expression(i)?;
                    parts.push(Part::Expr(expr));
                    i = end;
                    lit_start = i;
                }
                b'}' => return Err(UriTemplateError::UnmatchedBrace { offset: i }),
                b'%' => {
                    if !is_pct_at(b, i) {
                        return Err(UriTemplateError::InvalidPercentEncoding { offset: i });
                    }
                    i += 3;
                }
                _ if c < 0x80 => {
                    if !is_literal_ascii(c) {
                        return Err(UriTemplateError::InvalidLiteralChar {
                            offset: i,
                            found: char::from(c),
                        });
                    }
                    i += 1;
                }
                _ => {
                    let ch = self.char_at(i);
                    if !is_literal_non_ascii(ch) {
                        return Err(UriTemplateError::InvalidLiteralChar {
                            offset: i,
                            found: ch,
                        });
                    }
                    i += ch.len_utf8();
                }
            }
        }
        if lit_start < b.len() {
            parts.push(Part::Literal(Literal::new(
                self.src.get(lit_start..).unwrap_or(""),
            )));
        }
        Ok(parts)
    }

    /// Parses the expression whose `{` is at `open`; returns it and the offset after its `}`.
    fn expression(&mut self, open: usize) -> Result<(Expr, usize), UriTemplateError> {
        let b = self.b;
        let unclosed = UriTemplateError::UnclosedExpression { offset: open };
        let mut i = open + 1;
        let &c = b.get(i).ok_or(unclosed.clone())?;
        let op = match c {
            b'+' => Op::Reserved,
            b'#' => Op::Fragment,
            b'.' => Op::Label,
            b'/' => Op::Path,
            b';' => Op::PathParam,
            b'?' => Op::Query,
            b'&' => Op::QueryCont,
            b'=' | b',' | b'!' | b'@' | b'|' => {
                return Err(UriTemplateError::ReservedOperator {
                    offset: i,
                    operator: char::from(c),
                });
            }
            b'}' => return Err(UriTemplateError::EmptyExpression { offset: open }),
            _ => Op::Simple,
        };
        if op != Op::Simple {
            i += 1;
        }
        let mut specs = Vec::new();
        loop {
            // varname = varchar *( ["."] varchar ), varchar = ALPHA / DIGIT / "_" / pct-encoded
            let start = i;
            let c = loop {
                let &c = b.get(i).ok_or(unclosed.clone())?;
                match c {
                    b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'_' => i += 1,
                    b'%' => {
                        if !is_pct_at(b, i) {
                            return Err(UriTemplateError::InvalidPercentEncoding { offset: i });
                        }
                        i += 3;
                    }
                    b'.' => {
                        if i == start || b[i - 1] == b'.' {
                            return Err(UriTemplateError::MisplacedDot { offset: i });
                        }
                        i += 1;
                    }
                    _ => break c,
                }
            };
            if i == start {
                return Err(match c {
                    b',' | b'}' | b':' | b'*' => UriTemplateError::EmptyVariableName { offset: i },
                    _ => UriTemplateError::InvalidVariableChar {
                        offset: i,
                        found: self.char_at(i),
                    },
                });
            }
            if b[i - 1] == b'.' {
                return Err(UriTemplateError::MisplacedDot { offset: i - 1 });
            }
            let name = self.src.get(start..i).unwrap_or("");
            let modifier = match c {
                b':' => {
                    i += 1;
                    let digits = i;
                    let mut len: u16 = 0;
                    while let Some(&d) = b.get(i).filter(|d| d.is_ascii_digit()) {
                        if i - digits == 4 {
                            return Err(UriTemplateError::InvalidPrefix { offset: digits });
                        }
                        len = len * 10 + u16::from(d - b'0');
                        i += 1;
                    }
                    if i == digits && i == b.len() {
                        return Err(unclosed);
                    }
                    if len == 0 || b[digits] == b'0' {
                        return Err(UriTemplateError::InvalidPrefix { offset: digits });
                    }
                    if b.get(i) == Some(&b'*') {
                        return Err(UriTemplateError::ExplodeWithPrefix { offset: i });
                    }
                    Modifier::Prefix(len)
                }
                b'*' => {
                    i += 1;
                    if b.get(i) == Some(&b':') {
                        return Err(UriTemplateError::ExplodeWithPrefix { offset: i });
                    }
                    Modifier::Explode
                }
                _ => Modifier::None,
            };
            let &c = b.get(i).ok_or(unclosed.clone())?;
            let var = self.var_id(name);
            specs.push(Spec {
                name: name.into(),
                var,
                modifier,
            });
            match c {
                b',' => i += 1,
                b'}' => {
                    i += 1;
                    break;
                }
                _ if modifier == Modifier::None => {
                    return Err(UriTemplateError::InvalidVariableChar {
                        offset: i,
                        found: self.char_at(i),
                    });
                }
                _ => {
                    return Err(UriTemplateError::UnexpectedChar {
                        offset: i,
                        found: self.char_at(i),
                    });
                }
            }
        }
        Ok((Expr::new(op, specs), i))
    }

    fn var_id(&mut self, name: &str) -> usize {
        if let Some(&id) = self.ids.get(name) {
            return id;
        }
        let id = self.names.len();
        self.names.push(name.into());
        self.ids.insert(name.into(), id);
        id
    }
}

// ---------------------------------------------------------------------------------------------
// Expansion
// ---------------------------------------------------------------------------------------------

impl Expr {
    fn new(op: Op, specs: Vec<Spec>) -> Expr {
        let first_explode = specs.iter().position(Spec::explode);
        let multi = specs.len() > 1 || first_explode.is_some();
        let mut allowed = UNRESERVED.with(b'%');
        if op.allow_reserved() {
            allowed = allowed.union(RESERVED);
        }
        if multi {
            allowed = allowed.with(op.sep());
        }
        if specs.iter().any(|s| !s.explode()) {
            allowed = allowed.with(b',');
        }
        if op.named() || first_explode.is_some() {
            allowed = allowed.with(b'=');
        }
        let named = op.named().then(|| {
            let mut groups: HashMap<Box<[u8]>, usize> = HashMap::new();
            let mut positions: Vec<Vec<usize>> = Vec::new();
            let mut max_name_len = 0;
            for (j, spec) in specs.iter().enumerate() {
                max_name_len = max_name_len.max(spec.name.len());
                let key: Box<[u8]> = spec.name.as_bytes().into();
                match groups.get(&key) {
                    Some(&g) => positions[g].push(j),
                    None => {
                        groups.insert(key, positions.len());
                        positions.push(vec![j]);
                    }
                }
            }
            NamedIndex {
                groups,
                positions,
                max_name_len,
            }
        });
        Expr {
            op,
            specs,
            allowed,
            multi,
            first_explode,
            named,
        }
    }

    fn expand<V: Vars + ?Sized>(&self, vars: &V, out: &mut String) {
        let op = self.op;
        let ar = op.allow_reserved();
        let sep = char::from(op.sep());
        let mut first = true;
        for spec in &self.specs {
            let Some(value) = vars.get(&spec.name) else {
                continue;
            };
            let empty_composite = match value {
                ValueRef::String(_) => false,
                ValueRef::List(items) => items.is_empty(),
                ValueRef::Map(entries) => entries.is_empty(),
            };
            if empty_composite {
                continue;
            }
            if first {
                if let Some(f) = op.first() {
                    out.push(char::from(f));
                }
                first = false;
            } else {
                out.push(sep);
            }
            match value {
                ValueRef::String(s) => {
                    if op.named() {
                        out.push_str(&spec.name);
                        if s.is_empty() {
                            out.push_str(op.ifemp());
                            continue;
                        }
                        out.push('=');
                    }
                    let s = match spec.modifier {
                        Modifier::Prefix(n) => prefix_of(s, usize::from(n), ar),
                        _ => s,
                    };
                    push_encoded(out, s, ar);
                }
                ValueRef::List(items) if spec.explode() => {
                    for (j, item) in items.iter().enumerate() {
                        if j > 0 {
                            out.push(sep);
                        }
                        if op.named() {
                            out.push_str(&spec.name);
                            if item.is_empty() {
                                out.push_str(op.ifemp());
                                continue;
                            }
                            out.push('=');
                        }
                        push_encoded(out, item, ar);
                    }
                }
                ValueRef::List(items) => {
                    if op.named() {
                        out.push_str(&spec.name);
                        out.push('=');
                    }
                    for (j, item) in items.iter().enumerate() {
                        if j > 0 {
                            out.push(',');
                        }
                        push_encoded(out, item, ar);
                    }
                }
                ValueRef::Map(entries) if spec.explode() => {
                    for (j, (k, v)) in entries.iter().enumerate() {
                        if j > 0 {
                            out.push(sep);
                        }
                        push_encoded(out, k, ar);
                        if op.named() && v.is_empty() {
                            out.push_str(op.ifemp());
                        } else {
                            out.push('=');
                            push_encoded(out, v, ar);
                        }
                    }
                }
                ValueRef::Map(entries) => {
                    if op.named() {
                        out.push_str(&spec.name);
                        out.push('=');
                    }
                    for (j, (k, v)) in entries.iter().enumerate() {
                        if j > 0 {
                            out.push(',');
                        }
                        push_encoded(out, k, ar);
                        out.push(',');
                        push_encoded(out, v, ar);
                    }
                }
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Matching
// ---------------------------------------------------------------------------------------------

/// Counts the work a match does (bytes examined), so that tests can assert linearity
/// without timing anything.
#[derive(Debug, Default)]
struct Meter {
    steps: usize,
}

impl Meter {
    fn tick(&mut self, n: usize) {
        self.steps = self.steps.saturating_add(n);
    }
}

/// Matches `lit` at exactly `p`; returns the offset after it.
fn match_literal_at(lit: &Literal, u: &[u8], p: usize, meter: &mut Meter) -> Option<usize> {
    for form in lit.forms() {
        let t = form.text.as_bytes();
        meter.tick(t.len());
        if u.get(p..p + t.len()) == Some(t) {
            return Some(p + t.len());
        }
    }
    None
}

/// Matches `lit` as the suffix of `u`, not before `p`; returns where it starts.
fn match_literal_suffix(lit: &Literal, u: &[u8], p: usize, meter: &mut Meter) -> Option<usize> {
    for form in lit.forms() {
        let t = form.text.as_bytes();
        meter.tick(t.len());
        if u.len() >= p + t.len() && u.ends_with(t) {
            return Some(u.len() - t.len());
        }
    }
    None
}

/// Percent-decodes `bytes`; `None` on a malformed triplet or a non-UTF-8 result. With
/// `keep_reserved`, triplets that encode reserved characters stay encoded.
fn decode(bytes: &[u8], keep_reserved: bool, meter: &mut Meter) -> Option<String> {
    meter.tick(bytes.len());
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while let Some(&c) = bytes.get(i) {
        if c == b'%' {
            let hi = hex_val(*bytes.get(i + 1)?)?;
            let lo = hex_val(*bytes.get(i + 2)?)?;
            let b = hi << 4 | lo;
            if keep_reserved && RESERVED.has_ascii(b) {
                out.extend_from_slice(&bytes[i..i + 3]);
            } else {
                out.push(b);
            }
            i += 3;
        } else {
            out.push(c);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// Splits `key=value` at the first `=`.
fn split_eq(piece: &[u8]) -> (&[u8], Option<&[u8]>) {
    match piece.iter().position(|&b| b == b'=') {
        Some(q) => (&piece[..q], Some(&piece[q + 1..])),
        None => (piece, None),
    }
}

/// What one occurrence of a variable in the URI says about it.
#[derive(Debug)]
enum Occ {
    Unseen,
    Undefined,
    Full(Value),
    /// The value, or its first `n` characters (a `{var:n}` occurrence), counting
    /// pct-encoded triplets as one character if the flag (`+` or `#` operator) is set.
    Prefix(String, u16, bool),
}

fn char_prefix(s: &str, n: u16, triplets: bool) -> &str {
    prefix_of(s, usize::from(n), triplets)
}

struct Bindings {
    occ: Vec<Occ>,
}

impl Bindings {
    fn new(vars: usize) -> Bindings {
        Bindings {
            occ: (0..vars).map(|_| Occ::Unseen).collect(),
        }
    }

    /// Records an occurrence; `None` if it contradicts an earlier one.
    fn merge(&mut self, var: usize, new: Occ, meter: &mut Meter) -> Option<()> {
        let slot = self.occ.get_mut(var)?;
        let merged = match (std::mem::replace(slot, Occ::Unseen), new) {
            (Occ::Unseen, new) => new,
            (old, Occ::Unseen) => old,
            (Occ::Undefined, Occ::Undefined) => Occ::Undefined,
            (Occ::Undefined, _) | (_, Occ::Undefined) => return None,
            (Occ::Full(a), Occ::Full(b)) => {
                meter.tick(1);
                if a != b {
                    return None;
                }
                Occ::Full(a)
            }
            (Occ::Full(Value::String(s)), Occ::Prefix(p, n, t))
            | (Occ::Prefix(p, n, t), Occ::Full(Value::String(s))) => {
                meter.tick(p.len());
                if char_prefix(&s, n, t) != p {
                    return None;
                }
                Occ::Full(Value::String(s))
            }
            (Occ::Full(_), Occ::Prefix(..)) | (Occ::Prefix(..), Occ::Full(_)) => return None,
            (Occ::Prefix(a, na, ta), Occ::Prefix(b, nb, tb)) => {
                let ((short, ns, ts), (long, nl, tl)) = if na <= nb {
                    ((a, na, ta), (b, nb, tb))
                } else {
                    ((b, nb, tb), (a, na, ta))
                };
                meter.tick(short.len());
                if char_prefix(&long, ns, ts) != short {
                    return None;
                }
                Occ::Prefix(long, nl, tl)
            }
        };
        *slot = merged;
        Some(())
    }

    fn finish(self, names: &[Box<str>]) -> Option<Match> {
        let vars = names
            .iter()
            .zip(self.occ)
            .filter_map(|(name, occ)| match occ {
                Occ::Full(v) => Some((name.to_string(), v)),
                Occ::Prefix(s, ..) => Some((name.to_string(), Value::String(s))),
                Occ::Unseen | Occ::Undefined => None,
            })
            .collect();
        Some(Match { vars })
    }
}

impl Expr {
    /// The byte at which this expression must stop when `next` follows it directly: the
    /// next expression's leading character, unless it is this one's own leading character
    /// or separator.
    fn stop_before(&self, next: &Expr) -> Option<u8> {
        let f = next.op.first()?;
        (Some(f) != self.op.first() && f != self.op.sep()).then_some(f)
    }

    /// Greedy region end for an expression followed directly by another expression.
    fn scan_greedy(&self, u: &[u8], p: usize, stop: Option<u8>, meter: &mut Meter) -> usize {
        let mut i = p;
        if let Some(f) = self.op.first() {
            meter.tick(1);
            if u.get(p) != Some(&f) {
                return p;
            }
            i += 1;
        }
        let ok = |c: u8| Some(c) != stop && self.allowed.accepts(c);
        let Some(ix) = &self.named else {
            while u.get(i).is_some_and(|&c| ok(c)) {
                meter.tick(1);
                i += 1;
            }
            return i;
        };
        // Named: `name[=value]` pieces; stop before a piece no variable of ours can claim.
        let content = i;
        let sep = self.op.sep();
        loop {
            let piece = i;
            let mut too_long = false;
            while let Some(&c) = u.get(i) {
                if c == b'=' || c == sep || !ok(c) {
                    break;
                }
                if self.first_explode.is_none() && i - piece >= ix.max_name_len {
                    too_long = true;
                    break;
                }
                meter.tick(1);
                i += 1;
            }
            let claimable = self.first_explode.is_some()
                || (!too_long && u.get(piece..i).is_some_and(|k| ix.groups.contains_key(k)));
            if !claimable {
                return if piece == content { p } else { piece - 1 };
            }
            if u.get(i) == Some(&b'=') {
                i += 1;
                while u.get(i).is_some_and(|&c| c != sep && ok(c)) {
                    meter.tick(1);
                    i += 1;
                }
            }
            if self.multi && u.get(i) == Some(&sep) && Some(sep) != stop {
                i += 1;
            } else {
                return i;
            }
        }
    }

    /// Region end for an expression followed by a literal that is not the template's last
    /// part: the first occurrence of the literal at or after `p`, which must start before
    /// the first byte the region cannot contain. Returns (literal start, literal end).
    fn find_literal(
        &self,
        u: &[u8],
        p: usize,
        lit: &Literal,
        meter: &mut Meter,
    ) -> Option<(usize, usize)> {
        lit.forms()
            .filter_map(|form| {
                let q = self.search(u, p, form, meter)?;
                Some((q, q + form.text.len()))
            })
            .min()
    }

    /// Knuth-Morris-Pratt search for `pat` from `p`, abandoned as soon as no occurrence can
    /// start inside the region.
    fn search(&self, u: &[u8], p: usize, pat: &Pattern, meter: &mut Meter) -> Option<usize> {
        let t = pat.text.as_bytes();
        let len = t.len();
        if len == 0 {
            return Some(p);
        }
        // First offset >= p that a non-empty region starting at p cannot contain.
        let mut bad = usize::MAX;
        let first = self.op.first();
        let mut k = 0usize;
        let mut i = p;
        while let Some(&c) = u.get(i) {
            if bad != usize::MAX && i >= bad + len {
                return None;
            }
            meter.tick(1);
            if bad == usize::MAX {
                let ok = match first {
                    Some(f) if i == p => c == f,
                    _ => self.allowed.accepts(c),
                };
                if !ok {
                    bad = i;
                }
            }
            while k > 0 && t[k] != c {
                meter.tick(1);
                k = pat.fail[k - 1] as usize;
            }
            if t[k] == c {
                k += 1;
            }
            if k == len {
                let q = i + 1 - len;
                if q > bad {
                    return None;
                }
                // A region cannot end inside a percent-encoded triplet (`%4|1...`): look for
                // the next occurrence instead.
                let splits_triplet = (q > p && u[q - 1] == b'%') || (q > p + 1 && u[q - 2] == b'%');
                if !splits_triplet {
                    return Some(q);
                }
                k = pat.fail[k - 1] as usize;
            }
            i += 1;
        }
        None
    }

    /// Binds the expression's variables from its region.
    fn bind(&self, region: &[u8], bindings: &mut Bindings, meter: &mut Meter) -> Option<()> {
        if region.is_empty() {
            for spec in &self.specs {
                bindings.merge(spec.var, Occ::Undefined, meter)?;
            }
            return Some(());
        }
        let content = match self.op.first() {
            Some(f) => region.strip_prefix(&[f])?,
            None => region,
        };
        meter.tick(content.len());
        if !content.iter().all(|&c| self.allowed.accepts(c)) {
            return None;
        }
        if self.named.is_some() {
            self.bind_named(content, bindings, meter)
        } else {
            self.bind_positional(content, bindings, meter)
        }
    }

    fn decode(&self, bytes: &[u8], meter: &mut Meter) -> Option<String> {
        decode(bytes, self.op.allow_reserved(), meter)
    }

    /// Whether a piece of a value is something expansion could have written: with the
    /// operators that percent-encode `,` and `=`, those can only be structure.
    fn plain(&self, piece: &[u8]) -> bool {
        self.op.allow_reserved() || !piece.iter().any(|&c| c == b',' || c == b'=')
    }

    /// The value of a non-exploded variable from its text.
    fn text_value(&self, text: &[u8], modifier: Modifier, meter: &mut Meter) -> Option<Occ> {
        if !self.op.allow_reserved() && text.contains(&b',') {
            let items = text
                .split(|&c| c == b',')
                .map(|item| {
                    if self.plain(item) {
                        self.decode(item, meter)
                    } else {
                        None
                    }
                })
                .collect::<Option<Vec<_>>>()?;
            return Some(Occ::Full(Value::List(items)));
        }
        if !self.plain(text) {
            return None;
        }
        let s = self.decode(text, meter)?;
        match modifier {
            Modifier::Prefix(n) => {
                let triplets = self.op.allow_reserved();
                (prefix_of(&s, usize::from(n), triplets).len() == s.len())
                    .then_some(Occ::Prefix(s, n, triplets))
            }
            _ => Some(Occ::Full(Value::String(s))),
        }
    }

    /// The value of an exploded variable of an unnamed operator from its pieces.
    fn exploded_value(&self, pieces: &[&[u8]], meter: &mut Meter) -> Option<Occ> {
        if pieces.is_empty() {
            return Some(Occ::Undefined);
        }
        if self.op.allow_reserved() {
            let items = pieces
                .iter()
                .map(|p| self.decode(p, meter))
                .collect::<Option<Vec<_>>>()?;
            return Some(Occ::Full(Value::List(items)));
        }
        // With the encoding operators a piece is `item` or `key=value`, never with a raw `,`
        // (so a piece that holds one belongs to no exploded variable).
        let mut eqs = Vec::with_capacity(pieces.len());
        for piece in pieces {
            meter.tick(piece.len() + 1);
            if piece.contains(&b',') {
                return None;
            }
            eqs.push(piece.iter().filter(|&&c| c == b'=').count());
        }
        if eqs.iter().all(|&e| e == 0) {
            let items = pieces
                .iter()
                .map(|p| self.decode(p, meter))
                .collect::<Option<Vec<_>>>()?;
            Some(Occ::Full(Value::List(items)))
        } else if eqs.iter().all(|&e| e == 1) {
            let entries = pieces
                .iter()
                .map(|p| {
                    let (k, v) = split_eq(p);
                    Some((self.decode(k, meter)?, self.decode(v?, meter)?))
                })
                .collect::<Option<Vec<_>>>()?;
            Some(Occ::Full(Value::Map(entries)))
        } else {
            None
        }
    }

    fn bind_positional(
        &self,
        content: &[u8],
        bindings: &mut Bindings,
        meter: &mut Meter,
    ) -> Option<()> {
        let pieces: Vec<&[u8]> = if self.multi {
            content.split(|&c| c == self.op.sep()).collect()
        } else {
            vec![content]
        };
        meter.tick(pieces.len() + self.specs.len());
        let n = pieces.len();
        let k = self.specs.len();
        // How many pieces the first exploded variable takes.
        let explode_take = match self.first_explode {
            None if n > k => return None,
            None => 0,
            Some(e) => {
                let rest = n.saturating_sub(e);
                if rest == 0 {
                    0
                } else {
                    rest.saturating_sub(k - e - 1).max(1)
                }
            }
        };
        let mut next = 0;
        for (j, spec) in self.specs.iter().enumerate() {
            let occ = if Some(j) == self.first_explode {
                let start = next.min(n);
                let taken = pieces
                    .get(start..(start + explode_take).min(n))
                    .unwrap_or(&[]);
                next += explode_take;
                self.exploded_value(taken, meter)?
            } else {
                let piece = pieces.get(next);
                next += 1;
                match (piece, spec.explode()) {
                    (None, _) => Occ::Undefined,
                    (Some(piece), true) => self.exploded_value(&[piece], meter)?,
                    (Some(piece), false) => self.text_value(piece, spec.modifier, meter)?,
                }
            };
            bindings.merge(spec.var, occ, meter)?;
        }
        (next >= n).then_some(())
    }

    fn bind_named(&self, content: &[u8], bindings: &mut Bindings, meter: &mut Meter) -> Option<()> {
        let ix = self.named.as_ref()?;
        let k = self.specs.len();
        let mut text: Vec<Option<&[u8]>> = vec![None; k];
        let mut entries: Vec<Vec<(&[u8], &[u8])>> = vec![Vec::new(); k];
        let mut cursor = vec![0usize; ix.positions.len()];
        let ifemp_is_eq = !self.op.ifemp().is_empty();
        let mut last_target = 0;
        for piece in content.split(|&c| c == self.op.sep()) {
            meter.tick(1);
            let (key, value) = split_eq(piece);
            let value = match value {
                // `?x=` and `;x` are how expansion writes an empty value; `?x` and `;x=` are not.
                Some(v) if v.is_empty() && !ifemp_is_eq => return None,
                Some(v) => v,
                None if piece.is_empty() || ifemp_is_eq => return None,
                None => &piece[piece.len()..],
            };
            meter.tick(key.len());
            let target = match ix.groups.get(key) {
                Some(&g) => {
                    let positions = &ix.positions[g];
                    let c = &mut cursor[g];
                    while let Some(&pos) = positions.get(*c) {
                        if self.specs[pos].explode() || text[pos].is_none() {
                            break;
                        }
                        *c += 1;
                    }
                    positions.get(*c).copied().or(self.first_explode)
                }
                None => self.first_explode,
            }?;
            // With an exploded variable the parameters must come in template order, or the
            // split between it and the other variables would be a guess.
            if self.first_explode.is_some() {
                if target < last_target {
                    return None;
                }
                last_target = target;
            }
            if self.specs[target].explode() {
                entries[target].push((key, value));
            } else {
                text[target] = Some(value);
            }
        }
        for (j, spec) in self.specs.iter().enumerate() {
            let occ = if spec.explode() {
                let es = &entries[j];
                meter.tick(es.len());
                if es.is_empty() {
                    Occ::Undefined
                } else if !es.iter().all(|(k, v)| self.plain(k) && self.plain(v)) {
                    return None;
                } else if es.iter().all(|(k, _)| *k == spec.name.as_bytes()) {
                    let items = es
                        .iter()
                        .map(|(_, v)| self.decode(v, meter))
                        .collect::<Option<Vec<_>>>()?;
                    Occ::Full(Value::List(items))
                } else {
                    let map = es
                        .iter()
                        .map(|(k, v)| Some((self.decode(k, meter)?, self.decode(v, meter)?)))
                        .collect::<Option<Vec<_>>>()?;
                    Occ::Full(Value::Map(map))
                }
            } else {
                match text[j] {
                    Some(t) => self.text_value(t, spec.modifier, meter)?,
                    None => Occ::Undefined,
                }
            };
            bindings.merge(spec.var, occ, meter)?;
        }
        Some(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(s: &str) -> UriTemplate {
        UriTemplate::parse(s).unwrap_or_else(|e| panic!("{s:?}: {e}"))
    }

    fn s(v: &str) -> Value {
        Value::from(v)
    }

    fn list(items: &[&str]) -> Value {
        Value::from(items.to_vec())
    }

    fn map(entries: &[(&str, &str)]) -> Value {
        Value::from(entries.to_vec())
    }

    /// The variables of RFC 6570 sections 1.2 and 3.2.
    fn rfc_vars() -> HashMap<&'static str, Value> {
        HashMap::from([
            ("count", list(&["one", "two", "three"])),
            ("dom", list(&["example", "com"])),
            ("dub", s("me/too")),
            ("hello", s("Hello World!")),
            ("half", s("50%")),
            ("var", s("value")),
            ("who", s("fred")),
            ("base", s("http://example.com/home/")),
            ("path", s("/foo/bar")),
            ("list", list(&["red", "green", "blue"])),
            ("keys", map(&[("semi", ";"), ("dot", "."), ("comma", ",")])),
            ("v", s("6")),
            ("x", s("1024")),
            ("y", s("768")),
            ("empty", s("")),
            ("empty_keys", Value::Map(Vec::new())),
            ("semi", s(";")),
        ])
    }

    fn check_expansions(cases: &[(&str, &str)]) {
        let vars = rfc_vars();
        for (template, expected) in cases {
            let tpl = t(template);
            let got = tpl.expand(&vars);
            assert_eq!(&got, expected, "expanding {template}");
            // Every RFC example also matches back, to values that expand the same, except
            // where a value contains the separator: `dot=.` in `X.semi=%3B.dot=..comma=%2C`.
            let m = tpl.matches(&got);
            if *template == "X{.keys*}" {
                assert_eq!(m, None);
                continue;
            }
            let m = m.unwrap_or_else(|| panic!("{template} does not match {got}"));
            assert_eq!(
                tpl.expand(&m),
                got,
                "re-expanding the match of {got} against {template}"
            );
        }
    }

    #[test]
    fn rfc_section_1_2_levels() {
        check_expansions(&[
            // Level 1
            ("{var}", "value"),
            ("{hello}", "Hello%20World%21"),
            // Level 2
            ("{+var}", "value"),
            ("{+hello}", "Hello%20World!"),
            ("{+path}/here", "/foo/bar/here"),
            ("here?ref={+path}", "here?ref=/foo/bar"),
            ("X{#var}", "X#value"),
            ("X{#hello}", "X#Hello%20World!"),
            // Level 3
            ("map?{x,y}", "map?1024,768"),
            ("{x,hello,y}", "1024,Hello%20World%21,768"),
            ("{+x,hello,y}", "1024,Hello%20World!,768"),
            ("{+path,x}/here", "/foo/bar,1024/here"),
            ("{#x,hello,y}", "#1024,Hello%20World!,768"),
            ("{#path,x}/here", "#/foo/bar,1024/here"),
            ("X{.var}", "X.value"),
            ("X{.x,y}", "X.1024.768"),
            ("{/var}", "/value"),
            ("{/var,x}/here", "/value/1024/here"),
            ("{;x,y}", ";x=1024;y=768"),
            ("{;x,y,empty}", ";x=1024;y=768;empty"),
            ("{?x,y}", "?x=1024&y=768"),
            ("{?x,y,empty}", "?x=1024&y=768&empty="),
            ("?fixed=yes{&x}", "?fixed=yes&x=1024"),
            ("{&x,y,empty}", "&x=1024&y=768&empty="),
            // Level 4
            ("{var:3}", "val"),
            ("{var:30}", "value"),
            ("{list}", "red,green,blue"),
            ("{list*}", "red,green,blue"),
            ("{keys}", "semi,%3B,dot,.,comma,%2C"),
            ("{keys*}", "semi=%3B,dot=.,comma=%2C"),
            ("{+path:6}/here", "/foo/b/here"),
            ("{+list}", "red,green,blue"),
            ("{+list*}", "red,green,blue"),
            ("{+keys}", "semi,;,dot,.,comma,,"),
            ("{+keys*}", "semi=;,dot=.,comma=,"),
            ("{#path:6}/here", "#/foo/b/here"),
            ("{#list}", "#red,green,blue"),
            ("{#list*}", "#red,green,blue"),
            ("{#keys}", "#semi,;,dot,.,comma,,"),
            ("{#keys*}", "#semi=;,dot=.,comma=,"),
            ("X{.var:3}", "X.val"),
            ("X{.list}", "X.red,green,blue"),
            ("X{.list*}", "X.red.green.blue"),
            ("X{.keys}", "X.semi,%3B,dot,.,comma,%2C"),
            ("X{.keys*}", "X.semi=%3B.dot=..comma=%2C"),
            ("{/var:1,var}", "/v/value"),
            ("{/list}", "/red,green,blue"),
            ("{/list*}", "/red/green/blue"),
            ("{/list*,path:4}", "/red/green/blue/%2Ffoo"),
            ("{/keys}", "/semi,%3B,dot,.,comma,%2C"),
            ("{/keys*}", "/semi=%3B/dot=./comma=%2C"),
            ("{;hello:5}", ";hello=Hello"),
            ("{;list}", ";list=red,green,blue"),
            ("{;list*}", ";list=red;list=green;list=blue"),
            ("{;keys}", ";keys=semi,%3B,dot,.,comma,%2C"),
            ("{;keys*}", ";semi=%3B;dot=.;comma=%2C"),
            ("{?var:3}", "?var=val"),
            ("{?list}", "?list=red,green,blue"),
            ("{?list*}", "?list=red&list=green&list=blue"),
            ("{?keys}", "?keys=semi,%3B,dot,.,comma,%2C"),
            ("{?keys*}", "?semi=%3B&dot=.&comma=%2C"),
            ("{&var:3}", "&var=val"),
            ("{&list}", "&list=red,green,blue"),
            ("{&list*}", "&list=red&list=green&list=blue"),
            ("{&keys}", "&keys=semi,%3B,dot,.,comma,%2C"),
            ("{&keys*}", "&semi=%3B&dot=.&comma=%2C"),
        ]);
    }

    #[test]
    fn rfc_section_2_4_modifiers() {
        check_expansions(&[
            ("{var}", "value"),
            ("{var:20}", "value"),
            ("{var:3}", "val"),
            ("{semi}", "%3B"),
            ("{semi:2}", "%3B"),
        ]);
    }

    #[test]
    fn rfc_section_3_2_1_variable_expansion() {
        check_expansions(&[
            ("{count}", "one,two,three"),
            ("{count*}", "one,two,three"),
            ("{/count}", "/one,two,three"),
            ("{/count*}", "/one/two/three"),
            ("{;count}", ";count=one,two,three"),
            ("{;count*}", ";count=one;count=two;count=three"),
            ("{?count}", "?count=one,two,three"),
            ("{?count*}", "?count=one&count=two&count=three"),
            ("{&count*}", "&count=one&count=two&count=three"),
        ]);
    }

    #[test]
    fn rfc_section_3_2_2_simple() {
        check_expansions(&[
            ("{var}", "value"),
            ("{hello}", "Hello%20World%21"),
            ("{half}", "50%25"),
            ("O{empty}X", "OX"),
            ("O{undef}X", "OX"),
            ("{x,y}", "1024,768"),
            ("{x,hello,y}", "1024,Hello%20World%21,768"),
            ("?{x,empty}", "?1024,"),
            ("?{x,undef}", "?1024"),
            ("?{undef,y}", "?768"),
            ("{var:3}", "val"),
            ("{var:30}", "value"),
            ("{list}", "red,green,blue"),
            ("{list*}", "red,green,blue"),
            ("{keys}", "semi,%3B,dot,.,comma,%2C"),
            ("{keys*}", "semi=%3B,dot=.,comma=%2C"),
        ]);
    }

    #[test]
    fn rfc_section_3_2_3_reserved() {
        check_expansions(&[
            ("{+var}", "value"),
            ("{+hello}", "Hello%20World!"),
            ("{+half}", "50%25"),
            ("{base}index", "http%3A%2F%2Fexample.com%2Fhome%2Findex"),
            ("{+base}index", "http://example.com/home/index"),
            ("O{+empty}X", "OX"),
            ("O{+undef}X", "OX"),
            ("{+path}/here", "/foo/bar/here"),
            ("here?ref={+path}", "here?ref=/foo/bar"),
            ("up{+path}{var}/here", "up/foo/barvalue/here"),
            ("{+x,hello,y}", "1024,Hello%20World!,768"),
            ("{+path,x}/here", "/foo/bar,1024/here"),
            ("{+path:6}/here", "/foo/b/here"),
            ("{+list}", "red,green,blue"),
            ("{+list*}", "red,green,blue"),
            ("{+keys}", "semi,;,dot,.,comma,,"),
            ("{+keys*}", "semi=;,dot=.,comma=,"),
        ]);
    }

    #[test]
    fn rfc_section_3_2_4_fragment() {
        check_expansions(&[
            ("{#var}", "#value"),
            ("{#hello}", "#Hello%20World!"),
            ("{#half}", "#50%25"),
            ("foo{#empty}", "foo#"),
            ("foo{#undef}", "foo"),
            ("{#x,hello,y}", "#1024,Hello%20World!,768"),
            ("{#path,x}/here", "#/foo/bar,1024/here"),
            ("{#path:6}/here", "#/foo/b/here"),
            ("{#list}", "#red,green,blue"),
            ("{#list*}", "#red,green,blue"),
            ("{#keys}", "#semi,;,dot,.,comma,,"),
            ("{#keys*}", "#semi=;,dot=.,comma=,"),
        ]);
    }

    #[test]
    fn rfc_section_3_2_5_label() {
        check_expansions(&[
            ("{.who}", ".fred"),
            ("{.who,who}", ".fred.fred"),
            ("{.half,who}", ".50%25.fred"),
            ("www{.dom*}", "www.example.com"),
            ("X{.var}", "X.value"),
            ("X{.empty}", "X."),
            ("X{.undef}", "X"),
            ("X{.var:3}", "X.val"),
            ("X{.list}", "X.red,green,blue"),
            ("X{.list*}", "X.red.green.blue"),
            ("X{.keys}", "X.semi,%3B,dot,.,comma,%2C"),
            ("X{.keys*}", "X.semi=%3B.dot=..comma=%2C"),
            ("X{.empty_keys}", "X"),
            ("X{.empty_keys*}", "X"),
        ]);
    }

    #[test]
    fn rfc_section_3_2_6_path() {
        check_expansions(&[
            ("{/who}", "/fred"),
            ("{/who,who}", "/fred/fred"),
            ("{/half,who}", "/50%25/fred"),
            ("{/who,dub}", "/fred/me%2Ftoo"),
            ("{/var}", "/value"),
            ("{/var,empty}", "/value/"),
            ("{/var,undef}", "/value"),
            ("{/var,x}/here", "/value/1024/here"),
            ("{/var:1,var}", "/v/value"),
            ("{/list}", "/red,green,blue"),
            ("{/list*}", "/red/green/blue"),
            ("{/list*,path:4}", "/red/green/blue/%2Ffoo"),
            ("{/keys}", "/semi,%3B,dot,.,comma,%2C"),
            ("{/keys*}", "/semi=%3B/dot=./comma=%2C"),
        ]);
    }

    #[test]
    fn rfc_section_3_2_7_path_parameters() {
        check_expansions(&[
            ("{;who}", ";who=fred"),
            ("{;half}", ";half=50%25"),
            ("{;empty}", ";empty"),
            ("{;v,empty,who}", ";v=6;empty;who=fred"),
            ("{;v,bar,who}", ";v=6;who=fred"),
            ("{;x,y}", ";x=1024;y=768"),
            ("{;x,y,empty}", ";x=1024;y=768;empty"),
            ("{;x,y,undef}", ";x=1024;y=768"),
            ("{;hello:5}", ";hello=Hello"),
            ("{;list}", ";list=red,green,blue"),
            ("{;list*}", ";list=red;list=green;list=blue"),
            ("{;keys}", ";keys=semi,%3B,dot,.,comma,%2C"),
            ("{;keys*}", ";semi=%3B;dot=.;comma=%2C"),
        ]);
    }

    #[test]
    fn rfc_section_3_2_8_query() {
        check_expansions(&[
            ("{?who}", "?who=fred"),
            ("{?half}", "?half=50%25"),
            ("{?x,y}", "?x=1024&y=768"),
            ("{?x,y,empty}", "?x=1024&y=768&empty="),
            ("{?x,y,undef}", "?x=1024&y=768"),
            ("{?var:3}", "?var=val"),
            ("{?list}", "?list=red,green,blue"),
            ("{?list*}", "?list=red&list=green&list=blue"),
            ("{?keys}", "?keys=semi,%3B,dot,.,comma,%2C"),
            ("{?keys*}", "?semi=%3B&dot=.&comma=%2C"),
        ]);
    }

    #[test]
    fn rfc_section_3_2_9_query_continuation() {
        check_expansions(&[
            ("{&who}", "&who=fred"),
            ("{&half}", "&half=50%25"),
            ("?fixed=yes{&x}", "?fixed=yes&x=1024"),
            ("{&x,y,empty}", "&x=1024&y=768&empty="),
            ("{&var:3}", "&var=val"),
            ("{&list}", "&list=red,green,blue"),
            ("{&list*}", "&list=red&list=green&list=blue"),
            ("{&keys}", "&keys=semi,%3B,dot,.,comma,%2C"),
            ("{&keys*}", "&semi=%3B&dot=.&comma=%2C"),
        ]);
    }

    #[test]
    fn expansion_encoding_details() {
        let vars = [
            ("u", "caf\u{e9} \u{2603}"),
            ("pct", "%41%zz%"),
            ("r", "a/b?c#d[e]@f!$&'()*+,;="),
        ];
        assert_eq!(t("{u}").expand(&vars), "caf%C3%A9%20%E2%98%83");
        assert_eq!(t("{+u}").expand(&vars), "caf%C3%A9%20%E2%98%83");
        // `+` keeps valid triplets and encodes a stray `%`.
        assert_eq!(t("{pct}").expand(&vars), "%2541%25zz%25");
        assert_eq!(t("{+pct}").expand(&vars), "%41%25zz%25");
        assert_eq!(
            t("{r}").expand(&vars),
            "a%2Fb%3Fc%23d%5Be%5D%40f%21%24%26%27%28%29%2A%2B%2C%3B%3D"
        );
        assert_eq!(t("{+r}").expand(&vars), "a/b?c#d[e]@f!$&'()*+,;=");
        // Prefixes count characters, not bytes, and never split a triplet with `+`.
        assert_eq!(t("{u:4}").expand(&vars), "caf%C3%A9");
        assert_eq!(t("{+pct:2}").expand(&vars), "%41%25");
        // Non-ASCII literals are percent-encoded, pct-encoded literals kept.
        assert_eq!(t("caf\u{e9}/%20{u:1}").expand(&vars), "caf%C3%A9/%20c");
        // A prefix on a composite value is ignored.
        assert_eq!(
            t("{l:1}").expand(&[("l", list(&["abc", "def"]))]),
            "abc,def"
        );
        // Explode on a string is ignored.
        assert_eq!(t("{/u*}").expand(&[("u", "a b")]), "/a%20b");
        // Named explode map with empty values uses ifemp.
        let m = [("m", map(&[("a", ""), ("b", "1")]))];
        assert_eq!(t("{;m*}").expand(&m), ";a;b=1");
        assert_eq!(t("{?m*}").expand(&m), "?a=&b=1");
        assert_eq!(t("{/m*}").expand(&m), "/a=/b=1");
        // Named explode list with an empty item.
        let l = [("l", list(&["", "x"]))];
        assert_eq!(t("{;l*}").expand(&l), ";l;l=x");
        assert_eq!(t("{?l*}").expand(&l), "?l=&l=x");
    }

    #[test]
    fn vars_implementations() {
        let tpl = t("{a}{/b*}");
        let mut hm: HashMap<String, Value> = HashMap::new();
        hm.insert("a".into(), s("1"));
        hm.insert("b".into(), list(&["x", "y"]));
        assert_eq!(tpl.expand(&hm), "1/x/y");
        let bt: BTreeMap<&str, &str> = BTreeMap::from([("a", "1"), ("b", "2")]);
        assert_eq!(tpl.expand(&bt), "1/2");
        let v: Vec<(String, Vec<String>)> = vec![("b".into(), vec!["p".into(), "q".into()])];
        assert_eq!(tpl.expand(&v), "/p/q");
        let slice: &[(&str, &str)] = &[("a", "z")];
        assert_eq!(tpl.expand(slice), "z");
        assert_eq!(tpl.expand(&[("a", Cow::Borrowed("c"))]), "c");
        let entries = [(String::from("k"), String::from("v"))];
        assert_eq!(tpl.expand(&[("b", ValueRef::Map(&entries))]), "/k=v");
        let empty: [(&str, &str); 0] = [];
        assert_eq!(tpl.expand(&empty), "");
        assert_eq!(ValueRef::Map(&entries).to_value(), map(&[("k", "v")]));
        assert_eq!(s("a").as_str(), Some("a"));
        assert_eq!(list(&["a"]).as_list(), Some(&[String::from("a")][..]));
        assert_eq!(map(&[("k", "v")]).as_map(), Some(&entries[..]));
        assert_eq!(s("a").as_list(), None);
    }

    // --- Parsing ------------------------------------------------------------------------------

    #[test]
    fn accessors() {
        let tpl = t("repo://{owner}/{repo}/issues{?state,labels,owner}");
        assert_eq!(
            tpl.variables().collect::<Vec<_>>(),
            ["owner", "repo", "state", "labels"]
        );
        assert_eq!(tpl.variables().len(), 4);
        assert_eq!(tpl.variables().next_back(), Some("labels"));
        assert_eq!(
            tpl.as_str(),
            "repo://{owner}/{repo}/issues{?state,labels,owner}"
        );
        assert_eq!(tpl.to_string(), tpl.as_str());
        assert!(!tpl.is_static());
        assert!(t("config://app/settings").is_static());
        assert!(t("").is_static());
        assert_eq!(t("").variables().count(), 0);
        assert_eq!(format!("{:?}", t("a{b}")), "UriTemplate(\"a{b}\")");
        let parsed: UriTemplate = "x{y}".parse().unwrap();
        assert_eq!(parsed, t("x{y}"));
        assert_ne!(parsed, t("x{z}"));
        assert_eq!(UriTemplate::try_from(String::from("x{y}")).unwrap(), parsed);
        assert_eq!(UriTemplate::try_from("x{y}").unwrap(), parsed);
    }

    #[test]
    fn serde_as_string() {
        let tpl = t("file:///{+path}");
        assert_eq!(serde_json::to_string(&tpl).unwrap(), r#""file:///{+path}""#);
        let back: UriTemplate = serde_json::from_str(r#""file:///{+path}""#).unwrap();
        assert_eq!(back, tpl);
        let err = serde_json::from_str::<UriTemplate>(r#""file:///{path""#).unwrap_err();
        assert!(err.to_string().contains("unclosed expression"), "{err}");
        assert!(serde_json::from_str::<UriTemplate>("42").is_err());
    }

    #[test]
    fn valid_syntax() {
        for ok in [
            "",
            "plain",
            "{a}",
            "{a_b.c9.D}",
            "{%41b}",
            "{a.%42}",
            "{a:1}",
            "{a:9999}",
            "{a*}",
            "{a,b*,c:12}",
            "{+a}{#b}{.c}{/d}{;e}{?f}{&g}",
            "http://example.com/~user/{x}?q=%20#frag",
            "caf\u{e9}/\u{1F600}/{x}",
            "!#$&()*+,-./:;=?@[]_~",
        ] {
            assert!(UriTemplate::parse(ok).is_ok(), "{ok:?} should parse");
        }
    }

    #[test]
    fn syntax_errors_say_what_and_where() {
        use UriTemplateError as E;
        let cases: &[(&str, E)] = &[
            ("abc{def", E::UnclosedExpression { offset: 3 }),
            ("abc{", E::UnclosedExpression { offset: 3 }),
            ("{a,", E::UnclosedExpression { offset: 0 }),
            ("{a:", E::UnclosedExpression { offset: 0 }),
            ("{a:12", E::UnclosedExpression { offset: 0 }),
            ("{a*", E::UnclosedExpression { offset: 0 }),
            ("ab}c", E::UnmatchedBrace { offset: 2 }),
            ("{a}}", E::UnmatchedBrace { offset: 3 }),
            ("x{}", E::EmptyExpression { offset: 1 }),
            (
                "{=a}",
                E::ReservedOperator {
                    offset: 1,
                    operator: '=',
                },
            ),
            (
                "{,a}",
                E::ReservedOperator {
                    offset: 1,
                    operator: ',',
                },
            ),
            (
                "{!a}",
                E::ReservedOperator {
                    offset: 1,
                    operator: '!',
                },
            ),
            (
                "{@a}",
                E::ReservedOperator {
                    offset: 1,
                    operator: '@',
                },
            ),
            (
                "{|a}",
                E::ReservedOperator {
                    offset: 1,
                    operator: '|',
                },
            ),
            ("{+}", E::EmptyVariableName { offset: 2 }),
            ("{a,}", E::EmptyVariableName { offset: 3 }),
            ("{a,,b}", E::EmptyVariableName { offset: 3 }),
            ("{?:3}", E::EmptyVariableName { offset: 2 }),
            ("{*}", E::EmptyVariableName { offset: 1 }),
            (
                "{a-b}",
                E::InvalidVariableChar {
                    offset: 2,
                    found: '-',
                },
            ),
            (
                "{a b}",
                E::InvalidVariableChar {
                    offset: 2,
                    found: ' ',
                },
            ),
            (
                "{ a}",
                E::InvalidVariableChar {
                    offset: 1,
                    found: ' ',
                },
            ),
            (
                "{a{b}}",
                E::InvalidVariableChar {
                    offset: 2,
                    found: '{',
                },
            ),
            (
                "{caf\u{e9}}",
                E::InvalidVariableChar {
                    offset: 4,
                    found: '\u{e9}',
                },
            ),
            (
                "{.a$}",
                E::InvalidVariableChar {
                    offset: 3,
                    found: '$',
                },
            ),
            ("{.a}{..b}", E::MisplacedDot { offset: 6 }),
            ("{a..b}", E::MisplacedDot { offset: 3 }),
            ("{a.}", E::MisplacedDot { offset: 2 }),
            ("{a.:3}", E::MisplacedDot { offset: 2 }),
            ("{%4}", E::InvalidPercentEncoding { offset: 1 }),
            ("{a%g1}", E::InvalidPercentEncoding { offset: 2 }),
            ("50%", E::InvalidPercentEncoding { offset: 2 }),
            ("50%zz{x}", E::InvalidPercentEncoding { offset: 2 }),
            ("{a:0}", E::InvalidPrefix { offset: 3 }),
            ("{a:012}", E::InvalidPrefix { offset: 3 }),
            ("{a:10000}", E::InvalidPrefix { offset: 3 }),
            ("{a:}", E::InvalidPrefix { offset: 3 }),
            ("{a:x}", E::InvalidPrefix { offset: 3 }),
            ("{a:3*}", E::ExplodeWithPrefix { offset: 4 }),
            ("{a*:3}", E::ExplodeWithPrefix { offset: 3 }),
            (
                "{a*b}",
                E::UnexpectedChar {
                    offset: 3,
                    found: 'b',
                },
            ),
            (
                "{a:3b}",
                E::UnexpectedChar {
                    offset: 4,
                    found: 'b',
                },
            ),
            (
                "{a**}",
                E::UnexpectedChar {
                    offset: 3,
                    found: '*',
                },
            ),
            (
                "a b",
                E::InvalidLiteralChar {
                    offset: 1,
                    found: ' ',
                },
            ),
            (
                "a\"b",
                E::InvalidLiteralChar {
                    offset: 1,
                    found: '"',
                },
            ),
            (
                "'",
                E::InvalidLiteralChar {
                    offset: 0,
                    found: '\'',
                },
            ),
            (
                "<>",
                E::InvalidLiteralChar {
                    offset: 0,
                    found: '<',
                },
            ),
            (
                "a\\",
                E::InvalidLiteralChar {
                    offset: 1,
                    found: '\\',
                },
            ),
            (
                "^",
                E::InvalidLiteralChar {
                    offset: 0,
                    found: '^',
                },
            ),
            (
                "`",
                E::InvalidLiteralChar {
                    offset: 0,
                    found: '`',
                },
            ),
            (
                "a|b",
                E::InvalidLiteralChar {
                    offset: 1,
                    found: '|',
                },
            ),
            (
                "a\nb",
                E::InvalidLiteralChar {
                    offset: 1,
                    found: '\n',
                },
            ),
            (
                "\u{7f}",
                E::InvalidLiteralChar {
                    offset: 0,
                    found: '\u{7f}',
                },
            ),
            (
                "x\u{85}",
                E::InvalidLiteralChar {
                    offset: 1,
                    found: '\u{85}',
                },
            ),
            (
                "x\u{fdd0}",
                E::InvalidLiteralChar {
                    offset: 1,
                    found: '\u{fdd0}',
                },
            ),
            (
                "x\u{1fffe}",
                E::InvalidLiteralChar {
                    offset: 1,
                    found: '\u{1fffe}',
                },
            ),
        ];
        for (template, expected) in cases {
            let err = UriTemplate::parse(template).expect_err(template);
            assert_eq!(&err, expected, "parsing {template:?}: {err}");
            assert_eq!(err.offset(), expected.offset());
        }
        assert_eq!(
            UriTemplate::parse("{a-b}").unwrap_err().to_string(),
            "invalid character '-' in variable name at byte 2 (names are letters, digits, `_`, \
             percent-encoded triplets, and single dots between them)"
        );
        assert_eq!(
            UriTemplate::parse("{a:3*}").unwrap_err().to_string(),
            "variable at byte 4 combines the explode `*` and prefix `:` modifiers"
        );
        assert_eq!(
            UriTemplate::parse("a}").unwrap_err().to_string(),
            "unmatched `}` at byte 1"
        );
        assert_eq!(
            UriTemplate::parse("{!a}").unwrap_err().to_string(),
            "operator `!` at byte 1 is reserved for future extensions"
        );
        assert_eq!(
            UriTemplate::parse("{a*b}").unwrap_err().to_string(),
            "expected `,` or `}` at byte 3, found 'b'"
        );
    }

    #[test]
    fn size_caps() {
        let long = "a".repeat(MAX_TEMPLATE_LEN + 1);
        let err = UriTemplate::parse(&long).unwrap_err();
        assert_eq!(
            err,
            UriTemplateError::TooLong {
                len: MAX_TEMPLATE_LEN + 1
            }
        );
        assert_eq!(err.offset(), MAX_TEMPLATE_LEN);
        assert!(UriTemplate::parse(&"a".repeat(MAX_TEMPLATE_LEN)).is_ok());

        let max = "{x}".repeat(MAX_EXPRESSIONS);
        assert!(UriTemplate::parse(&max).is_ok());
        let over = "{x}".repeat(MAX_EXPRESSIONS + 1);
        let err = UriTemplate::parse(&over).unwrap_err();
        assert_eq!(
            err,
            UriTemplateError::TooManyExpressions {
                offset: 3 * MAX_EXPRESSIONS
            }
        );
        assert!(err.to_string().contains("1025"), "{err}");

        let tpl = t("{+x}");
        assert!(tpl.matches(&"a".repeat(MAX_URI_LEN)).is_some());
        assert!(tpl.matches(&"a".repeat(MAX_URI_LEN + 1)).is_none());
    }

    // --- Matching -----------------------------------------------------------------------------

    fn m(template: &str, uri: &str) -> Option<Vec<(String, Value)>> {
        t(template).matches(uri).map(Match::into_vec)
    }

    fn strs(pairs: &[(&str, &str)]) -> Option<Vec<(String, Value)>> {
        Some(pairs.iter().map(|(k, v)| (k.to_string(), s(v))).collect())
    }

    #[test]
    fn mcp_templates() {
        let tpl = "test://template/{id}/data";
        assert_eq!(m(tpl, "test://template/123/data"), strs(&[("id", "123")]));
        assert_eq!(m(tpl, "test://template/a%20b/data"), strs(&[("id", "a b")]));
        assert_eq!(m(tpl, "test://template//data"), strs(&[]));
        assert_eq!(m(tpl, "test://template/1/2/data"), None);
        assert_eq!(m(tpl, "test://template/1/data/"), None);
        assert_eq!(m(tpl, "test://template/1"), None);
        assert_eq!(m(tpl, "test://templat/1/data"), None);

        let tpl = "file:///{+path}";
        assert_eq!(
            m(tpl, "file:///home/u/a%20b.txt"),
            strs(&[("path", "home/u/a b.txt")])
        );
        assert_eq!(m(tpl, "file:///a?b=1#c"), strs(&[("path", "a?b=1#c")]));
        assert_eq!(m(tpl, "file:///"), strs(&[]));
        assert_eq!(m(tpl, "file://x"), None);
        assert_eq!(m(tpl, "file:///a b"), None);

        let tpl = "notes://{id}";
        assert_eq!(m(tpl, "notes://abc-1_2.3~"), strs(&[("id", "abc-1_2.3~")]));
        assert_eq!(m(tpl, "notes://caf%C3%A9"), strs(&[("id", "caf\u{e9}")]));
        assert_eq!(m(tpl, "notes://caf\u{e9}"), strs(&[("id", "caf\u{e9}")]));
        assert_eq!(m(tpl, "notes://a/b"), None);
        assert_eq!(m(tpl, "notes://a?b"), None);
        assert_eq!(m(tpl, "notes://a#b"), None);
        assert_eq!(m(tpl, "note://a"), None);

        let tpl = "schema://tables/{table}";
        assert_eq!(m(tpl, "schema://tables/users"), strs(&[("table", "users")]));
        assert_eq!(m(tpl, "schema://tables/"), strs(&[]));
        assert_eq!(m(tpl, "schema://tables"), None);
        assert_eq!(m(tpl, "schema://tables/users/x"), None);

        let tpl = "repo://{owner}/{repo}/issues{?state,labels}";
        assert_eq!(
            m(tpl, "repo://o/r/issues"),
            strs(&[("owner", "o"), ("repo", "r")])
        );
        assert_eq!(
            m(tpl, "repo://o/r/issues?state=open"),
            strs(&[("owner", "o"), ("repo", "r"), ("state", "open")])
        );
        let both = strs(&[
            ("owner", "o"),
            ("repo", "r"),
            ("state", "open"),
            ("labels", "bug"),
        ]);
        assert_eq!(m(tpl, "repo://o/r/issues?state=open&labels=bug"), both);
        assert_eq!(m(tpl, "repo://o/r/issues?labels=bug&state=open"), both);
        assert_eq!(
            m(tpl, "repo://o/r/issues?labels=bug,ui").unwrap()[2],
            ("labels".to_string(), list(&["bug", "ui"]))
        );
        assert_eq!(
            m(tpl, "repo://o/r/issues?labels=a%2Cb").unwrap()[2],
            ("labels".to_string(), s("a,b"))
        );
        assert_eq!(
            m(tpl, "repo://o/r/issues?state="),
            strs(&[("owner", "o"), ("repo", "r"), ("state", "")])
        );
        // Unknown, repeated or malformed parameters do not match.
        assert_eq!(m(tpl, "repo://o/r/issues?page=2"), None);
        assert_eq!(m(tpl, "repo://o/r/issues?state=open&page=2"), None);
        assert_eq!(m(tpl, "repo://o/r/issues?state=open&state=closed"), None);
        assert_eq!(m(tpl, "repo://o/r/issues?state"), None);
        assert_eq!(m(tpl, "repo://o/r/issues?"), None);
        assert_eq!(m(tpl, "repo://o/r/issues?&state=a"), None);
        assert_eq!(m(tpl, "repo://o/r/issues?state=a=b"), None);
        assert_eq!(m(tpl, "repo://o/r/pulls"), None);
        assert_eq!(m(tpl, "repo://o/r/x/issues"), None);
    }

    #[test]
    fn static_templates() {
        assert_eq!(m("config://app", "config://app"), strs(&[]));
        assert_eq!(m("config://app", "config://ap"), None);
        assert_eq!(m("config://app", "config://appx"), None);
        assert_eq!(m("", ""), strs(&[]));
        assert_eq!(m("", "x"), None);
        // Non-ASCII literals match raw or percent-encoded.
        assert_eq!(m("caf\u{e9}://{x}", "caf\u{e9}://1"), strs(&[("x", "1")]));
        assert_eq!(m("caf\u{e9}://{x}", "caf%C3%A9://1"), strs(&[("x", "1")]));
        assert_eq!(
            m("{x}/caf\u{e9}/{y}", "1/caf%C3%A9/2"),
            strs(&[("x", "1"), ("y", "2")])
        );
        assert_eq!(
            m("{x}/caf\u{e9}/{y}", "1/caf\u{e9}/2"),
            strs(&[("x", "1"), ("y", "2")])
        );
        assert_eq!(m("{x}/caf\u{e9}", "1/caf\u{e9}"), strs(&[("x", "1")]));
        assert_eq!(m("{x}/caf\u{e9}", "1/caf%C3%A9"), strs(&[("x", "1")]));
    }

    #[test]
    fn percent_decoding() {
        assert_eq!(m("{x}", "a%2Fb%3f%25"), strs(&[("x", "a/b?%")]));
        assert_eq!(m("{+x}", "%E2%98%83/%41"), strs(&[("x", "\u{2603}/A")]));
        // `+` and `#` leave encoded reserved characters encoded: `%2F` is not `/`.
        assert_eq!(m("{+x}", "a%2Fb%3f%20"), strs(&[("x", "a%2Fb%3f ")]));
        assert_eq!(m("{#x}", "#%23%2C"), strs(&[("x", "%23%2C")]));
        assert_eq!(m("{+x:2}", "%2Fa"), strs(&[("x", "%2Fa")]));
        assert_eq!(m("{+x:2}", "%2Fab"), None);
        // Malformed triplets, truncated or invalid UTF-8: no match.
        assert_eq!(m("{x}", "a%zz"), None);
        assert_eq!(m("{x}", "a%4"), None);
        assert_eq!(m("{x}", "%"), None);
        assert_eq!(m("{x}", "%C3"), None);
        assert_eq!(m("{x}", "%FF%FE"), None);
        assert_eq!(m("{x}", "%C3%28"), None);
        assert_eq!(m("{?q}", "?q=%C3"), None);
        assert_eq!(m("{/p*}", "/a/%ED%A0%80"), None);
        // A region cannot end inside a triplet.
        assert_eq!(m("{x}%41", "%41"), strs(&[]));
        assert_eq!(m("{x}1{y}", "%41%31"), None);
        assert_eq!(m("{x}1{y}", "%411%31"), strs(&[("x", "A"), ("y", "1")]));
    }

    #[test]
    fn round_trips_per_operator() {
        let cases: &[(&str, &[(&str, Value)])] = &[
            ("x:{a}", &[("a", s("h\u{e9}llo w/rld?#&=,"))]),
            ("x:{a,b}", &[("a", s("1,2")), ("b", s(""))]),
            ("x:{a}", &[("a", list(&["p", "q r"]))]),
            ("x:{a*}", &[("a", list(&["p", "q"]))]),
            ("x:{a*}", &[("a", map(&[("k", "v"), ("k2", "")]))]),
            ("x:{+a}", &[("a", s("/a/b?c=d#e f"))]),
            ("x:{+a,b}", &[("a", s("p/q")), ("b", s("r"))]),
            ("x:{+a*}", &[("a", list(&["p/q", "r"]))]),
            ("x:{#a}", &[("a", s("frag/x?y"))]),
            ("x:{#a,b}", &[("a", s("1")), ("b", s("2"))]),
            ("x:{.a}", &[("a", s("json"))]),
            ("x:{.a,b}", &[("a", s("tar")), ("b", s("gz"))]),
            ("x:{.a*}", &[("a", list(&["tar", "gz"]))]),
            ("x:{/a}", &[("a", s("seg ment/with/slashes"))]),
            ("x:{/a,b}", &[("a", s("p")), ("b", s("q"))]),
            ("x:{/a*}", &[("a", list(&["p", "q", "", "r"]))]),
            ("x:{/a*}", &[("a", map(&[("k", "v"), ("w", "z")]))]),
            (
                "x:{/a,b*,c}",
                &[("a", s("1")), ("b", list(&["2", "3"])), ("c", s("4"))],
            ),
            ("x:{;a}", &[("a", s("v"))]),
            ("x:{;a,b}", &[("a", s("")), ("b", s("2"))]),
            ("x:{;a*}", &[("a", list(&["1", "", "3"]))]),
            ("x:{;a*}", &[("a", map(&[("k", "v"), ("e", "")]))]),
            ("x:{?a}", &[("a", s("a b&c=d"))]),
            ("x:{?a,b}", &[("a", s("")), ("b", s("2"))]),
            ("x:{?a*}", &[("a", list(&["1", "2"]))]),
            ("x:{?a*}", &[("a", map(&[("k", "v"), ("e", "")]))]),
            ("x:{?a,b*}", &[("a", s("1")), ("b", map(&[("k", "v")]))]),
            ("x:{?a}{&b}", &[("a", s("1")), ("b", s("2"))]),
            ("x:{&a,b}", &[("a", s("1")), ("b", list(&["x", "y"]))]),
            ("x:{a:3}", &[("a", s("abcdef"))]),
            ("x:{/a:2,a}", &[("a", s("abcdef"))]),
        ];
        for (template, vars) in cases {
            let tpl = t(template);
            let uri = tpl.expand(*vars);
            let got = tpl
                .matches(&uri)
                .unwrap_or_else(|| panic!("{template}: no match for {uri}"));
            assert_eq!(tpl.expand(&got), uri, "{template}");
            for (name, value) in *vars {
                let expected = match (value, template.contains(&format!("{name}:"))) {
                    (Value::String(v), true) => {
                        let n = template.split(&format!("{name}:")).nth(1).unwrap();
                        let n: usize = n[..1].parse().unwrap();
                        if template.contains(&format!(",{name}}}")) {
                            v.clone()
                        } else {
                            v.chars().take(n).collect()
                        }
                    }
                    (Value::String(v), false) => v.clone(),
                    _ => String::new(),
                };
                match value {
                    Value::String(_) => {
                        assert_eq!(got.get_str(name), Some(&*expected), "{template} {uri}")
                    }
                    other => assert_eq!(got.get(name), Some(other), "{template} {uri}"),
                }
            }
        }
    }

    #[test]
    fn literal_boundaries() {
        // The template's final literal anchors at the end.
        assert_eq!(m("{+path}/edit", "a/b/edit"), strs(&[("path", "a/b")]));
        assert_eq!(m("{name}.txt", "my.file.txt"), strs(&[("name", "my.file")]));
        // Other literals end the expression at their first occurrence.
        assert_eq!(
            m("{a}.{b}.txt", "x.y.z.txt"),
            strs(&[("a", "x"), ("b", "y.z")])
        );
        assert_eq!(m("{a}-{b}", "x-y-z"), strs(&[("a", "x"), ("b", "y-z")]));
        assert_eq!(
            m("{+a}/x/{+b}", "p/x/q/x/r"),
            strs(&[("a", "p"), ("b", "q/x/r")])
        );
        // ... which must come before anything the expression cannot contain.
        assert_eq!(m("{a}-{b}", "x/y-z"), None);
        // The documented `{/a}/{b}` pitfall, and its alternatives.
        assert_eq!(m("{/a}/{b}", "/v/w"), None);
        assert_eq!(m("{/a}/{b}", "/w"), strs(&[("b", "w")]));
        assert_eq!(m("/{a}/{b}", "/v/w"), strs(&[("a", "v"), ("b", "w")]));
        assert_eq!(m("{/a,b}", "/v/w"), strs(&[("a", "v"), ("b", "w")]));
        // Optional path segment before a literal.
        assert_eq!(
            m("api:{/ver}/items/{id}", "api:/v1/items/5"),
            strs(&[("ver", "v1"), ("id", "5")])
        );
        assert_eq!(
            m("api:{/ver}/items/{id}", "api:/items/5"),
            strs(&[("id", "5")])
        );
    }

    #[test]
    fn adjacent_expressions() {
        // `{+path}{?q}` splits at the first `?`.
        let tpl = "file:///{+path}{?rev,ro}";
        assert_eq!(m(tpl, "file:///a/b"), strs(&[("path", "a/b")]));
        assert_eq!(
            m(tpl, "file:///a/b?ro=1&rev=2"),
            strs(&[("path", "a/b"), ("rev", "2"), ("ro", "1")])
        );
        assert_eq!(m(tpl, "file:///a?b?rev=2"), None);
        // `{name}{.ext}` splits at the first `.`.
        assert_eq!(
            m("{name}{.ext}", "a.b.json"),
            strs(&[("name", "a"), ("ext", "b.json")])
        );
        assert_eq!(m("{name}{.ext}", "readme"), strs(&[("name", "readme")]));
        assert_eq!(
            m("{/p}{.ext}", "/x.json"),
            strs(&[("p", "x"), ("ext", "json")])
        );
        // `{?a,b}{&c}` splits by parameter name.
        let tpl = "{?a,b}{&c}";
        assert_eq!(
            m(tpl, "?b=2&a=1&c=3"),
            strs(&[("a", "1"), ("b", "2"), ("c", "3")])
        );
        assert_eq!(m(tpl, "?a=1&c=3"), strs(&[("a", "1"), ("c", "3")]));
        assert_eq!(m(tpl, "&c=3"), strs(&[("c", "3")]));
        assert_eq!(m(tpl, "?c=3"), None);
        assert_eq!(m(tpl, "?a=1&c=3&b=2"), None);
        // An exploded variable collects every parameter.
        assert_eq!(m("{?a*}{&c}", "?x=1&c=3").unwrap().len(), 1);
        // Nothing marks the boundary: the first expression takes everything.
        assert_eq!(m("{a}{b}", "xyz"), strs(&[("a", "xyz")]));
        assert_eq!(m("{a}{+b}", "xy/z"), strs(&[("a", "xy"), ("b", "/z")]));
        assert_eq!(
            m("{/a*}{/b}", "/1/2/3").unwrap(),
            vec![("a".to_string(), list(&["1", "2", "3"]))]
        );
        assert_eq!(m("{/a}{/b}", "/1/2"), strs(&[("a", "1"), ("b", "2")]));
        assert_eq!(m("{#a}{#b}", "#x#y"), strs(&[("a", "x#y")]));
        assert_eq!(m("{;a}{;b}", ";a=1;b=2"), strs(&[("a", "1"), ("b", "2")]));
        assert_eq!(m("{;a,b}{;c}", ";b=1;c=2"), strs(&[("b", "1"), ("c", "2")]));
    }

    #[test]
    fn value_shapes() {
        // Raw `,` with an encoding operator means a list; with `+`/`#` it is kept.
        assert_eq!(m("{x}", "a,b").unwrap()[0].1, list(&["a", "b"]));
        assert_eq!(m("{+x}", "a,b").unwrap()[0].1, s("a,b"));
        assert_eq!(m("{x,y}", "a,b"), strs(&[("x", "a"), ("y", "b")]));
        assert_eq!(m("{x,y}", "a,b,c"), None);
        assert_eq!(m("{x,y}", "a"), strs(&[("x", "a")]));
        assert_eq!(m("{x,y}", ",b"), strs(&[("x", ""), ("y", "b")]));
        // Exploded pieces: a list, or a map when they are all `k=v`.
        assert_eq!(m("{/x*}", "/a/b").unwrap()[0].1, list(&["a", "b"]));
        assert_eq!(
            m("{/x*}", "/a=1/b=").unwrap()[0].1,
            map(&[("a", "1"), ("b", "")])
        );
        assert_eq!(m("{/x*}", "/a=1/b"), None);
        assert_eq!(m("{/x*}", "/a=1=2"), None);
        assert_eq!(m("{+x*}", "a=1,b").unwrap()[0].1, list(&["a=1", "b"]));
        // Named explode: a list when every name is the variable's own, else a map.
        assert_eq!(m("{?x*}", "?x=1&x=2").unwrap()[0].1, list(&["1", "2"]));
        assert_eq!(
            m("{?x*}", "?x=1&y=2").unwrap()[0].1,
            map(&[("x", "1"), ("y", "2")])
        );
        assert_eq!(m("{;x*}", ";x;x=2").unwrap()[0].1, list(&["", "2"]));
        assert_eq!(m("{;x*}", ";x=;x=2"), None);
        // `=` or `,` that expansion cannot have written.
        assert_eq!(m("{?x}", "?x=a=b"), None);
        assert_eq!(m("{?x*}", "?x=a,b"), None);
        // Prefixes are checked, and repeated variables must agree.
        assert_eq!(m("{x:3}", "abc"), strs(&[("x", "abc")]));
        assert_eq!(m("{x:3}", "abcd"), None);
        assert_eq!(
            m("{x:3}", "%C3%A9%C3%A9%C3%A9"),
            strs(&[("x", "\u{e9}\u{e9}\u{e9}")])
        );
        assert_eq!(m("{x}/{x}", "a/a"), strs(&[("x", "a")]));
        assert_eq!(m("{x}/{x}", "a/b"), None);
        assert_eq!(m("{x}/{x}", "a/"), None);
        assert_eq!(m("{/x:1,x}", "/v/value"), strs(&[("x", "value")]));
        assert_eq!(m("{/x:1,x}", "/w/value"), None);
        assert_eq!(m("{/x:2}{/x:4}", "/ab/abcd"), strs(&[("x", "abcd")]));
        assert_eq!(m("{/x:2}{/x:4}", "/ab/abc"), strs(&[("x", "abc")]));
        assert_eq!(m("{/x:2}{/x:4}", "/ab/ac"), None);
        assert_eq!(m("{/x:4}{/x:2}", "/abcd/ab"), strs(&[("x", "abcd")]));
        assert_eq!(m("{/x:2}/{x}", "/ab/abcd"), None); // leftmost `/` leaves `{/x:2}` empty
        assert_eq!(m("{x:2}-{x}", "ab-abcd"), strs(&[("x", "abcd")]));
        assert_eq!(m("{x:2}-{x}", "ab-a"), None);
        assert_eq!(m("{x:2}-{x}", "ab-"), None);
        assert_eq!(m("{x:2}-{/x*}", "ab-/a"), None);
        assert_eq!(m("{?a,a}", "?a=1&a=1"), strs(&[("a", "1")]));
        assert_eq!(m("{?a,a}", "?a=1&a=2"), None);
        assert_eq!(m("{?a,a}", "?a=1"), None);
        // Match API.
        let got = t("{a}/{b*}").matches("1/x,y").unwrap();
        assert_eq!(got.len(), 2);
        assert!(!got.is_empty());
        assert_eq!(got.get_str("a"), Some("1"));
        assert_eq!(got.get_str("b"), None);
        assert_eq!(got.get("b"), Some(&list(&["x", "y"])));
        assert_eq!(got.get("c"), None);
        assert_eq!(got.iter().map(|(n, _)| n).collect::<Vec<_>>(), ["a", "b"]);
        assert_eq!(got.clone().into_iter().count(), 2);
        assert!(t("{a}").matches("").unwrap().is_empty());
    }

    // --- Linear time --------------------------------------------------------------------------

    /// Matches and returns the work done, asserting that it is linear.
    fn metered(tpl: &UriTemplate, uri: &str) -> Option<Match> {
        let mut meter = Meter::default();
        let got = tpl.match_metered(uri, &mut meter);
        let bound = 8 * (uri.len() + tpl.as_str().len()) + 64;
        assert!(
            meter.steps <= bound,
            "{} steps > {bound} matching {} bytes against a {}-byte template",
            meter.steps,
            uri.len(),
            tpl.as_str().len()
        );
        got
    }

    /// A 64 KiB string of characters drawn from `alphabet`.
    fn noise(rng: &mut Rng, alphabet: &[u8], len: usize) -> String {
        (0..len)
            .map(|_| char::from(alphabet[rng.below(alphabet.len())]))
            .collect()
    }

    #[test]
    fn redos_regression_path_explode() {
        let tpl = t("{/id*}");
        assert!(metered(&tpl, &format!("/{}", ",".repeat(50))).is_none());
        assert!(metered(&tpl, &format!("/{}", ",".repeat(MAX_URI_LEN - 1))).is_none());
        let mut rng = Rng(7);
        let uri = noise(&mut rng, b"/,", MAX_URI_LEN);
        assert_eq!(uri.len(), MAX_URI_LEN);
        assert!(metered(&tpl, &uri).is_none());
        assert!(metered(&tpl, &"/,".repeat(MAX_URI_LEN / 2)).is_none());
        // The same shape with valid segments matches, in one pass.
        let uri = "/a".repeat(MAX_URI_LEN / 2);
        let got = metered(&tpl, &uri).unwrap();
        assert_eq!(
            got.get("id").and_then(Value::as_list).map(<[String]>::len),
            Some(MAX_URI_LEN / 2)
        );
        let got = metered(&tpl, &"/".repeat(MAX_URI_LEN)).unwrap();
        assert_eq!(
            got.get("id").and_then(Value::as_list).map(<[String]>::len),
            Some(MAX_URI_LEN)
        );
        let tpl = t("x{/id*}y");
        assert!(metered(&tpl, &format!("x{}", "/,".repeat(MAX_URI_LEN / 2 - 1))).is_none());
    }

    #[test]
    fn adversarial_many_expressions() {
        let mut rng = Rng(11);
        let ops = ["", "+", "#", ".", "/", ";", "?", "&"];
        let adjacent: String = (0..MAX_EXPRESSIONS)
            .map(|i| format!("{{{}v{i}}}", ops[i % ops.len()]))
            .collect();
        let simple: String = (0..MAX_EXPRESSIONS).map(|i| format!("{{v{i}}}")).collect();
        let named: String = (0..MAX_EXPRESSIONS)
            .map(|i| format!("{{&v{i},w{i}}}"))
            .collect();
        let literals: String = (0..MAX_EXPRESSIONS)
            .map(|i| format!("{{v{i}}}aaaaaaab"))
            .collect();
        let plus_lit: String = (0..MAX_EXPRESSIONS)
            .map(|i| format!("{{+v{i}}}/x"))
            .collect();
        let paths: String = (0..MAX_EXPRESSIONS)
            .map(|i| format!("{{/v{i}*}}/"))
            .collect();
        let queries = format!(
            "{{?{}}}",
            (0..3000)
                .map(|i| format!("v{i}"))
                .collect::<Vec<_>>()
                .join(",")
        );
        let templates = [adjacent, simple, named, literals, plus_lit, paths, queries];
        let alphabets: [&[u8]; 6] = [b"a", b"a,", b"/,", b".;/?&=#,a", b"&v1=", b"ab/x%41"];
        for template in &templates {
            let tpl = t(template);
            for alphabet in alphabets {
                let uri = noise(&mut rng, alphabet, MAX_URI_LEN);
                let _ = metered(&tpl, &uri);
            }
            let _ = metered(&tpl, &"a".repeat(MAX_URI_LEN - 1));
            let _ = metered(&tpl, &"aaaaaaab".repeat(MAX_URI_LEN / 8));
            let _ = metered(&tpl, &format!("?{}", "v1=1&".repeat(MAX_URI_LEN / 5 - 1)));
            let _ = metered(&tpl, &format!("&q={}", "x".repeat(MAX_URI_LEN - 3)));
            let _ = metered(&tpl, &"/x".repeat(MAX_URI_LEN / 2));
        }
        // A few of these do match, in one pass.
        assert!(metered(&t(&templates[1]), &"a".repeat(MAX_URI_LEN)).is_some());
        let uri = "aaaaaaab".repeat(MAX_EXPRESSIONS);
        assert_eq!(metered(&t(&templates[3]), &uri).map(|m| m.len()), Some(0));
        let uri = "q/x".repeat(MAX_EXPRESSIONS);
        assert_eq!(
            metered(&t(&templates[4]), &uri).map(|m| m.len()),
            Some(MAX_EXPRESSIONS)
        );
    }

    #[test]
    fn adversarial_literal_search() {
        // KMP worst cases: long literals with self-overlapping prefixes.
        let lit = "a".repeat(1000) + "b";
        let tpl = t(&format!("{{x}}{lit}{{y}}{lit}"));
        let _ = metered(&tpl, &"a".repeat(MAX_URI_LEN));
        let uri = format!("{}{lit}c{lit}", "a".repeat(30_000));
        assert!(metered(&tpl, &uri).is_some());
        let tpl = t(&format!("{{+x}}{}/{{+y}}", "ab".repeat(500)));
        let _ = metered(&tpl, &"ab".repeat(MAX_URI_LEN / 2));
        let _ = metered(&tpl, &format!("{}/", "ab".repeat(MAX_URI_LEN / 2 - 1)));
    }

    // --- Property tests -----------------------------------------------------------------------

    /// SplitMix64: a tiny deterministic PRNG.
    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = self.0;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^ (z >> 31)
        }

        fn below(&mut self, n: usize) -> usize {
            (self.next() % n as u64) as usize
        }

        fn chance(&mut self, percent: u64) -> bool {
            self.next() % 100 < percent
        }

        fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
            &items[self.below(items.len())]
        }

        fn string(&mut self, alphabet: &[&str], max: usize) -> String {
            (0..self.below(max + 1))
                .map(|_| *self.pick(alphabet))
                .collect()
        }
    }

    const OPS: [&str; 8] = ["", "+", "#", ".", "/", ";", "?", "&"];

    /// Characters for values of the percent-encoding operators: anything, since everything
    /// but unreserved characters is encoded (`.` aside, which `{.x}` uses as separator).
    const ENCODED_ALPHABET: &[&str] = &[
        "a",
        "b",
        "z",
        "0",
        "9",
        "-",
        "_",
        "~",
        " ",
        "/",
        "?",
        "#",
        "&",
        "=",
        ",",
        ";",
        ":",
        "@",
        "!",
        "%",
        "+",
        "\u{e9}",
        "\u{2603}",
        "\u{1F600}",
        "\"",
    ];
    /// Characters for `+`/`#` values: no reserved characters (they would be ambiguous with
    /// the literals and separators around them) and no `%` (a value `%41` expands to `%41`,
    /// which is also what `A` expands to).
    const RESERVED_ALPHABET: &[&str] =
        &["a", "b", "z", "0", "9", "-", "_", "~", " ", "\u{e9}", "\""];

    fn alphabet(op: &str) -> &'static [&'static str] {
        if op == "+" || op == "#" {
            RESERVED_ALPHABET
        } else {
            ENCODED_ALPHABET
        }
    }

    /// Characters an expansion with operator `op` can contain besides unreserved ones, `%`,
    /// `,` and `=` (given the alphabets above).
    fn op_chars(op: &str) -> &'static [u8] {
        match op {
            "#" => b"#",
            "." => b".",
            "/" => b"/",
            ";" => b";",
            "?" => b"?&",
            "&" => b"&",
            _ => b"",
        }
    }

    struct Generated {
        template: String,
        vars: Vec<(String, Value)>,
        /// What matching must give back for each variable.
        expected: Vec<(String, Option<Value>)>,
    }

    /// A template whose boundaries are unambiguous, with values that round-trip exactly.
    fn generate_safe(rng: &mut Rng) -> Generated {
        let mut template = rng.pick(&["", "t://", "file:///", "x:"]).to_string();
        let mut vars = Vec::new();
        let mut expected = Vec::new();
        let exprs = 1 + rng.below(4);
        let mut prev_op: Option<&str> = None;
        let mut prev_explodes = false;
        let mut prev_multi = false;
        for e in 0..exprs {
            let op = *rng.pick(&OPS);
            // Separator from the previous expression: a literal, or nothing when safe.
            if let Some(prev) = prev_op {
                let first = if matches!(op, "" | "+") {
                    None
                } else {
                    op.as_bytes().first().copied()
                };
                let adjacent_ok = match first {
                    Some(f) => {
                        !op_chars(prev).contains(&f)
                            && f != b'.'
                            && (!matches!(prev, "+" | "#") || e + 1 == exprs)
                    }
                    None => false,
                } || (matches!(prev, "?" | "&") && op == "&" && !prev_explodes);
                // If this expression turns out empty, the previous one runs on into what
                // follows it: that must be something it cannot contain.
                let adjacent_ok = adjacent_ok
                    && (e + 1 == exprs
                        || !(matches!(prev, "+" | "#")
                            || (prev_multi && matches!(prev, "/" | ";" | "?" | "&"))));
                if !(adjacent_ok && rng.chance(40)) {
                    let lits: Vec<&str> = ["/", ":", "!", "@", "$", "/x/", ":8080/", "(", "*"]
                        .into_iter()
                        .filter(|l| !op_chars(prev).contains(&l.as_bytes()[0]))
                        .collect();
                    template.push_str(rng.pick::<&str>(&lits));
                }
            }
            let named = matches!(op, ";" | "?" | "&");
            let count = 1 + rng.below(3);
            let explode_at = rng.chance(40).then(|| rng.below(count));
            let mut specs = Vec::new();
            for j in 0..count {
                let name = format!("v{e}{j}");
                let explode = explode_at == Some(j);
                let prefix = (!explode && rng.chance(20)).then(|| 1 + rng.below(5));
                specs.push(match (explode, prefix) {
                    (true, _) => format!("{name}*"),
                    (false, Some(n)) => format!("{name}:{n}"),
                    _ => name.clone(),
                });
                // Positional operators with several variables need them all defined.
                let may_be_undefined = named || count == 1;
                if may_be_undefined && rng.chance(20) {
                    expected.push((name, None));
                    continue;
                }
                let value = if explode {
                    let maps_ok = !matches!(op, "+" | "#");
                    if maps_ok && rng.chance(50) {
                        let entries = (0..1 + rng.below(3))
                            .map(|_| (format!("k{}", rng.below(10)), rng.string(alphabet(op), 4)))
                            .collect();
                        Value::Map(entries)
                    } else {
                        let items = (0..1 + rng.below(3))
                            .map(|_| {
                                let mut item = rng.string(alphabet(op), 4);
                                if item.is_empty() && !named {
                                    item.push('q');
                                }
                                item
                            })
                            .collect();
                        Value::List(items)
                    }
                } else {
                    Value::String(rng.string(alphabet(op), 6))
                };
                let want = match (&value, prefix) {
                    (Value::String(v), Some(n)) => Value::String(v.chars().take(n).collect()),
                    _ => value.clone(),
                };
                let want = match &want {
                    Value::String(v) if v.is_empty() && count == 1 && matches!(op, "" | "+") => {
                        None
                    }
                    _ => Some(want),
                };
                expected.push((name.clone(), want));
                vars.push((name, value));
            }
            template.push_str(&format!("{{{op}{}}}", specs.join(",")));
            prev_op = Some(op);
            prev_explodes = explode_at.is_some();
            prev_multi = count > 1 || explode_at.is_some();
        }
        if rng.chance(50) {
            template.push_str(rng.pick::<&str>(&["/data", ".json", "!", "/", "#top"]));
        }
        Generated {
            template,
            vars,
            expected,
        }
    }

    #[test]
    fn property_round_trip_unambiguous_templates() {
        let mut rng = Rng(0x5EED);
        for round in 0..5000 {
            let g = generate_safe(&mut rng);
            let tpl = t(&g.template);
            let uri = tpl.expand(&g.vars);
            let got = metered(&tpl, &uri).unwrap_or_else(|| {
                panic!(
                    "round {round}: {} does not match its expansion {uri:?} of {:?}",
                    g.template, g.vars
                )
            });
            assert_eq!(tpl.expand(&got), uri, "round {round}: {}", g.template);
            for (name, want) in &g.expected {
                assert_eq!(
                    got.get(name),
                    want.as_ref(),
                    "round {round}: {name} in {} matching {uri:?} (vars {:?})",
                    g.template,
                    g.vars
                );
            }
        }
    }

    /// Any template (ambiguous ones too), any values: a match must expand back to the URI.
    #[test]
    fn property_matches_are_sound() {
        let mut rng = Rng(42);
        let names = ["a", "b", "c", "d"];
        let alphabet: &[&str] = &[
            "a", "b", "-", ".", "_", "~", " ", "/", "?", "#", "&", "=", ",", ";", ":", "@", "!",
            "\u{e9}", "x",
        ];
        let mut matched = 0;
        for round in 0..20_000 {
            let mut template = String::new();
            for _ in 0..1 + rng.below(4) {
                template.push_str(rng.pick::<&str>(&[
                    "", "", "/", "-", ".", "a", "/x/", ":", "?", "&", "=", ",", "#",
                ]));
                let specs: Vec<String> = (0..1 + rng.below(3))
                    .map(|_| {
                        let name = *rng.pick(&names);
                        match rng.below(5) {
                            0 => format!("{name}*"),
                            1 => format!("{name}:{}", 1 + rng.below(4)),
                            _ => name.to_string(),
                        }
                    })
                    .collect();
                template.push_str(&format!("{{{}{}}}", rng.pick(&OPS), specs.join(",")));
            }
            if rng.chance(30) {
                template.push_str(rng.pick::<&str>(&["/", "x", ".json", "?"]));
            }
            let tpl = t(&template);
            let vars: Vec<(&str, Value)> = names
                .iter()
                .filter_map(|&name| {
                    let value = match rng.below(4) {
                        0 => return None,
                        1 => Value::String(rng.string(alphabet, 4)),
                        2 => Value::List(
                            (0..rng.below(3)).map(|_| rng.string(alphabet, 3)).collect(),
                        ),
                        _ => Value::Map(
                            (0..rng.below(3))
                                .map(|_| (rng.string(alphabet, 2), rng.string(alphabet, 3)))
                                .collect(),
                        ),
                    };
                    Some((name, value))
                })
                .collect();
            let uri = tpl.expand(&vars);
            if let Some(got) = metered(&tpl, &uri) {
                matched += 1;
                assert_eq!(
                    tpl.expand(&got),
                    uri,
                    "round {round}: {template} {vars:?} -> {got:?}"
                );
            }
            // Arbitrary mutations must not panic and stay linear.
            let mut bytes = uri.into_bytes();
            if !bytes.is_empty() {
                let i = rng.below(bytes.len());
                bytes[i] = *rng.pick(b"/%,=&?#;.a");
            }
            if let Ok(mutated) = String::from_utf8(bytes) {
                let _ = metered(&tpl, &mutated);
            }
        }
        assert!(
            matched > 6_000,
            "only {matched} of 20000 expansions matched"
        );
    }
}
