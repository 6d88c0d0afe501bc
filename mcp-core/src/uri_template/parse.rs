//! The RFC 6570 parser: template text to [`UriTemplate`], or a [`UriTemplateError`] saying
//! what is wrong and where.

use std::collections::HashMap;

use super::encoding::{is_literal_ascii, is_literal_non_ascii, is_pct_at};
use super::syntax::{Expr, Literal, Modifier, Op, Part, Spec};
use super::{MAX_EXPRESSIONS, MAX_TEMPLATE_LEN, UriTemplate, UriTemplateError};

pub(super) struct Parser<'a> {
    src: &'a str,
    b: &'a [u8],
    names: Vec<Box<str>>,
    ids: HashMap<Box<str>, usize>,
}

impl Parser<'_> {
    pub(super) fn run(source: String) -> Result<UriTemplate, UriTemplateError> {
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
        let (op, mut i) = self.operator(open)?;
        let mut specs = Vec::new();
        loop {
            let start = i;
            let (end, c) = self.var_name(start, &unclosed)?;
            let name = self.src.get(start..end).unwrap_or("");
            let (modifier, end) = self.modifier(c, end, &unclosed)?;
            i = end;
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

    /// The operator of the expression whose `{` is at `open`, and the offset after it.
    fn operator(&self, open: usize) -> Result<(Op, usize), UriTemplateError> {
        let i = open + 1;
        let &c = self
            .b
            .get(i)
            .ok_or(UriTemplateError::UnclosedExpression { offset: open })?;
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
        Ok((op, if op == Op::Simple { i } else { i + 1 }))
    }

    /// The variable name from `start`: the offset after it and the byte there.
    fn var_name(
        &self,
        start: usize,
        unclosed: &UriTemplateError,
    ) -> Result<(usize, u8), UriTemplateError> {
        let b = self.b;
        let mut i = start;
        // varname = varchar *( ["."] varchar ), varchar = ALPHA / DIGIT / "_" / pct-encoded
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
        Ok((i, c))
    }

    /// The modifier that `c` at `i` starts (`:N` or `*`), and the offset after it.
    fn modifier(
        &self,
        c: u8,
        mut i: usize,
        unclosed: &UriTemplateError,
    ) -> Result<(Modifier, usize), UriTemplateError> {
        let b = self.b;
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
                    return Err(unclosed.clone());
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
        Ok((modifier, i))
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
