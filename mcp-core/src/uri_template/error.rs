//! Syntax errors, each with the byte offset of the offending token.

use super::{MAX_EXPRESSIONS, MAX_TEMPLATE_LEN};

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
