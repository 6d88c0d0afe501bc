//! Parsing: the accessors and conversions, valid syntax, every syntax error, and the caps.

use super::t;
use crate::uri_template::{
    MAX_EXPRESSIONS, MAX_TEMPLATE_LEN, MAX_URI_LEN, UriTemplate, UriTemplateError,
};

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
