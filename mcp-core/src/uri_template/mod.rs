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
//! use ferromcp_core::uri_template::{UriTemplate, Value};
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
//! # Ok::<(), ferromcp_core::uri_template::UriTemplateError>(())
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
//!      first expression's own leading character or separator. A named expression with no
//!      exploded variable also stops before a parameter that is none of its variables, or
//!      that comes out of template order (expansion writes them in order, so that one may be
//!      the next expression's). So `{+path}{?q}` splits at the first `?`, `{name}{.ext}` at
//!      the first `.`, `{?a,b}{&c}` by parameter name and order, and in `{a}{b}`, where
//!      nothing marks the boundary, `a` takes everything and `b` is undefined.
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
//!    (`;name` for an empty value with `;`), matched to the variables by name in *any order*
//!    (unless another expression follows directly: see 3);
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
//! the exceptions are triplets of unreserved or non-ASCII characters, like `%41`, which
//! expansion passes through and matching decodes: in a `{+var}` or `{#var}` value, and in a
//! variable name that a named operator writes into the URI, as in `{&%41*}`).
//! And when nothing is ambiguous (boundaries as in rule 3, values that do not contain their
//! own expression's separator, no undefined variable before a defined one in an unnamed
//! list), it does return `Some`, with the original values. The tests check both properties
//! on thousands of generated templates.

mod encoding;
mod error;
mod expand;
mod matcher;
mod parse;
mod syntax;
mod value;

#[cfg(test)]
mod tests;

pub use error::UriTemplateError;
pub use matcher::Match;
pub use value::{Value, ValueRef, VarValue, Vars};

use std::fmt;
use std::hash::{Hash, Hasher};
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use matcher::Meter;
use parse::Parser;
use syntax::Part;

/// The longest template [`UriTemplate::parse`] accepts, in bytes (64 KiB).
pub const MAX_TEMPLATE_LEN: usize = 64 * 1024;

/// The most expressions (`{…}`) a template may have.
pub const MAX_EXPRESSIONS: usize = 1024;

/// The longest URI [`UriTemplate::matches`] considers, in bytes (64 KiB); longer URIs never
/// match.
pub const MAX_URI_LEN: usize = 64 * 1024;

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
    /// use ferromcp_core::uri_template::{UriTemplate, Value};
    /// use std::collections::HashMap;
    ///
    /// let t = UriTemplate::parse("file:///{+path}{?rev}")?;
    /// assert_eq!(t.expand(&[("path", "src/main.rs")]), "file:///src/main.rs");
    ///
    /// let mut vars = HashMap::new();
    /// vars.insert("path", Value::from("a b/c"));
    /// vars.insert("rev", Value::from(vec!["1", "2"]));
    /// assert_eq!(t.expand(&vars), "file:///a%20b/c?rev=1,2");
    /// # Ok::<(), ferromcp_core::uri_template::UriTemplateError>(())
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
    /// use ferromcp_core::uri_template::UriTemplate;
    ///
    /// let t = UriTemplate::parse("file:///{+path}")?;
    /// let m = t.matches("file:///home/me/My%20Notes.md").unwrap();
    /// assert_eq!(m.get_str("path"), Some("home/me/My Notes.md"));
    ///
    /// let t = UriTemplate::parse("test://template/{id}/data")?;
    /// assert_eq!(t.matches("test://template/42/data").unwrap().get_str("id"), Some("42"));
    /// assert!(t.matches("test://template/4/2/data").is_none());
    /// # Ok::<(), ferromcp_core::uri_template::UriTemplateError>(())
    /// ```
    pub fn matches(&self, uri: &str) -> Option<Match> {
        self.match_metered(uri, &mut Meter::default())
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
