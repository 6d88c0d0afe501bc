//! A compile-time syntax check of RFC 6570 URI templates, the same rules the runtime's parser
//! applies (this crate cannot depend on it): it yields the variable names, or what is wrong
//! and at which byte.

/// A syntax error: the byte offset of the offending token and what is wrong.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct TemplateError {
    pub(crate) offset: usize,
    pub(crate) message: String,
}

/// A variable as the template names it, with its modifier.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Variable {
    pub(crate) name: String,
    pub(crate) explode: bool,
}

fn err(offset: usize, message: impl Into<String>) -> TemplateError {
    TemplateError {
        offset,
        message: message.into(),
    }
}

/// The distinct variables of `template`, in order of first use.
pub(crate) fn variables(template: &str) -> Result<Vec<Variable>, TemplateError> {
    let b = template.as_bytes();
    let mut vars: Vec<Variable> = Vec::new();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'{' => i = expression(template, i, &mut vars)?,
            b'}' => return Err(err(i, "unmatched `}`")),
            b'%' => {
                pct(b, i)?;
                i += 3;
            }
            c if c < 0x80 => {
                if !literal_ascii(c) {
                    return Err(err(
                        i,
                        format!(
                            "invalid character {:?} in the URI (percent-encode it)",
                            char::from(c)
                        ),
                    ));
                }
                i += 1;
            }
            _ => {
                let ch = template[i..].chars().next().unwrap_or('\u{FFFD}');
                if ch.is_control() || ch.is_whitespace() {
                    return Err(err(
                        i,
                        format!("invalid character {ch:?} in the URI (percent-encode it)"),
                    ));
                }
                i += ch.len_utf8();
            }
        }
    }
    Ok(vars)
}

/// Parses the expression whose `{` is at `open`; returns the offset after its `}`.
fn expression(t: &str, open: usize, vars: &mut Vec<Variable>) -> Result<usize, TemplateError> {
    let b = t.as_bytes();
    let mut i = operator(b, open)?;
    loop {
        let start = i;
        let (end, c) = name_end(t, open, start)?;
        let name = &t[start..end];
        let explode;
        (i, explode) = modifier(t, open, end, c)?;
        let has_modifier = c == b':' || c == b'*';
        match vars.iter_mut().find(|v| v.name == name) {
            Some(v) => v.explode |= explode,
            None => vars.push(Variable {
                name: name.to_owned(),
                explode,
            }),
        }
        match b.get(i).copied().ok_or_else(|| unclosed(open))? {
            b',' => i += 1,
            b'}' => return Ok(i + 1),
            _ if !has_modifier => return Err(invalid_var_char(t, i)),
            _ => {
                let found = t[i..].chars().next().unwrap_or('\u{FFFD}');
                return Err(err(i, format!("expected `,` or `}}`, found {found:?}")));
            }
        }
    }
}

/// The error for the expression whose `{` at `open` is never closed.
fn unclosed(open: usize) -> TemplateError {
    err(open, "the `{` has no matching `}`")
}

/// Skips the operator after the `{` at `open`, if any; returns where the first variable
/// starts.
fn operator(b: &[u8], open: usize) -> Result<usize, TemplateError> {
    let i = open + 1;
    match b.get(i).copied().ok_or_else(|| unclosed(open))? {
        b'+' | b'#' | b'.' | b'/' | b';' | b'?' | b'&' => Ok(i + 1),
        c @ (b'=' | b',' | b'!' | b'@' | b'|') => Err(err(
            i,
            format!(
                "operator `{}` is reserved for future extensions",
                char::from(c)
            ),
        )),
        b'}' => Err(err(open, "empty expression `{}`")),
        _ => Ok(i),
    }
}

/// Scans the variable name that starts at `start` (in the expression opened at `open`);
/// returns where it ends and the byte there.
fn name_end(t: &str, open: usize, start: usize) -> Result<(usize, u8), TemplateError> {
    let b = t.as_bytes();
    let mut i = start;
    let c = loop {
        let c = b.get(i).copied().ok_or_else(|| unclosed(open))?;
        match c {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'_' => i += 1,
            b'%' => {
                pct(b, i)?;
                i += 3;
            }
            b'.' => {
                if i == start || b[i - 1] == b'.' {
                    return Err(misplaced_dot(i));
                }
                i += 1;
            }
            _ => break c,
        }
    };
    if i == start {
        return Err(match c {
            b',' | b'}' | b':' | b'*' => err(i, "empty variable name"),
            _ => invalid_var_char(t, i),
        });
    }
    if b[i - 1] == b'.' {
        return Err(misplaced_dot(i - 1));
    }
    Ok((i, c))
}

/// Reads the variable's modifier, if `c` (the byte at `i`) starts one: `:` and a prefix
/// length, or `*`; returns where the variable ends and whether it is exploded.
fn modifier(t: &str, open: usize, i: usize, c: u8) -> Result<(usize, bool), TemplateError> {
    let b = t.as_bytes();
    let mut i = i;
    let mut explode = false;
    match c {
        b':' => {
            i += 1;
            let digits = i;
            while b.get(i).is_some_and(u8::is_ascii_digit) {
                i += 1;
            }
            let n = &t[digits..i];
            if n.is_empty() && i == b.len() {
                return Err(unclosed(open));
            }
            if n.is_empty() || n.len() > 4 || n.starts_with('0') {
                return Err(err(
                    digits,
                    "invalid prefix length: expected a number from 1 to 9999",
                ));
            }
            if b.get(i) == Some(&b'*') {
                return Err(err(i, "a variable cannot have both `*` and `:` modifiers"));
            }
        }
        b'*' => {
            i += 1;
            explode = true;
            if b.get(i) == Some(&b':') {
                return Err(err(i, "a variable cannot have both `*` and `:` modifiers"));
            }
        }
        _ => {}
    }
    Ok((i, explode))
}

fn pct(b: &[u8], i: usize) -> Result<(), TemplateError> {
    let hex = |j: usize| b.get(j).is_some_and(u8::is_ascii_hexdigit);
    if hex(i + 1) && hex(i + 2) {
        Ok(())
    } else {
        Err(err(
            i,
            "invalid percent-encoding: `%` must be followed by two hex digits",
        ))
    }
}

fn misplaced_dot(i: usize) -> TemplateError {
    err(
        i,
        "misplaced `.` in a variable name: dots may only separate name characters",
    )
}

fn invalid_var_char(t: &str, i: usize) -> TemplateError {
    let found = t[i..].chars().next().unwrap_or('\u{FFFD}');
    err(
        i,
        format!(
            "invalid character {found:?} in a variable name (names are letters, digits, `_`, \
             and single dots between them)"
        ),
    )
}

/// RFC 6570 `literals`, ASCII part (`%` is handled apart).
fn literal_ascii(c: u8) -> bool {
    matches!(c, 0x21 | 0x23 | 0x24 | 0x26 | 0x28..=0x3B | 0x3D | 0x3F..=0x5B | 0x5D | 0x5F | 0x61..=0x7A | 0x7E)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(t: &str) -> Vec<String> {
        variables(t).unwrap().into_iter().map(|v| v.name).collect()
    }

    #[test]
    fn variables_in_order() {
        assert_eq!(names("notes://{id}"), ["id"]);
        assert_eq!(
            names("repo://{owner}/{repo}/issues{?state,labels}{&owner}"),
            ["owner", "repo", "state", "labels"]
        );
        assert_eq!(
            names("file:///{+path}{#frag}{/a*}{;b:3}"),
            ["path", "frag", "a", "b"]
        );
        assert!(names("notes://index").is_empty());
        assert_eq!(names("x://{a.b}/{c%20d}"), ["a.b", "c%20d"]);
    }

    #[test]
    fn errors_carry_the_offset() {
        let e = |t: &str| variables(t).unwrap_err().offset;
        assert_eq!(e("file:///{path"), 8);
        assert_eq!(e("a}"), 1);
        assert_eq!(e("x{}"), 1);
        assert_eq!(e("x{=a}"), 2);
        assert_eq!(e("x{a,}"), 4);
        assert_eq!(e("x{a-b}"), 3);
        assert_eq!(e("x{.a.}"), 4);
        assert_eq!(e("x{a:0}"), 4);
        assert_eq!(e("x{a:10000}"), 4);
        assert_eq!(e("x{a*:3}"), 4);
        assert_eq!(e("x{a:3*}"), 5);
        assert_eq!(e("a b"), 1);
        assert_eq!(e("%zz"), 0);
    }
}
