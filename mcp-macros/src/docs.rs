//! Descriptions from `///` doc comments: the first paragraph of a method's docs, the whole
//! doc of a parameter, and the rustdoc `# Arguments` list (`* `name` - text`).

use proc_macro2::Span;
use syn::{Attribute, Expr, ExprLit, Lit, Meta};

/// The doc comment of an item, one entry per line, with the single leading space rustdoc
/// strips removed.
pub(crate) struct Doc {
    lines: Vec<String>,
}

/// One entry of an `# Arguments` list.
pub(crate) struct ArgumentDoc {
    pub(crate) name: String,
    pub(crate) text: String,
    /// The doc attribute the entry starts in, for errors about it.
    pub(crate) span: Span,
}

impl Doc {
    pub(crate) fn of(attrs: &[Attribute]) -> Doc {
        let mut lines = Vec::new();
        for attr in attrs {
            if let Some(text) = doc_text(attr) {
                for line in text.split('\n') {
                    lines.push(line.strip_prefix(' ').unwrap_or(line).trim_end().to_owned());
                }
            }
        }
        Doc { lines }
    }

    /// The first paragraph, its lines joined with spaces; `None` when the docs are empty or
    /// start with a heading.
    pub(crate) fn summary(&self) -> Option<String> {
        let text = self
            .lines
            .iter()
            .skip_while(|l| l.trim().is_empty())
            .take_while(|l| !l.trim().is_empty() && !is_heading(l))
            .map(|l| l.trim())
            .collect::<Vec<_>>()
            .join(" ");
        (!text.is_empty()).then_some(text)
    }

    /// The whole text: lines of a paragraph joined with spaces, paragraphs with a blank line.
    pub(crate) fn text(&self) -> Option<String> {
        let mut paragraphs: Vec<String> = Vec::new();
        let mut current: Vec<&str> = Vec::new();
        for line in &self.lines {
            if line.trim().is_empty() {
                if !current.is_empty() {
                    paragraphs.push(current.join(" "));
                    current.clear();
                }
            } else {
                current.push(line.trim());
            }
        }
        if !current.is_empty() {
            paragraphs.push(current.join(" "));
        }
        let text = paragraphs.join("\n\n");
        (!text.is_empty()).then_some(text)
    }
}

/// The entries of the `# Arguments` (or `# Parameters`) section of `attrs`' docs.
pub(crate) fn arguments_section(attrs: &[Attribute]) -> Vec<ArgumentDoc> {
    let mut out: Vec<ArgumentDoc> = Vec::new();
    let mut in_section = false;
    for attr in attrs {
        let Some(text) = doc_text(attr) else { continue };
        for raw in text.split('\n') {
            let line = raw.strip_prefix(' ').unwrap_or(raw).trim_end();
            if is_heading(line) {
                let title = line.trim_start_matches('#').trim().to_ascii_lowercase();
                in_section = title == "arguments" || title == "parameters";
                continue;
            }
            if !in_section {
                continue;
            }
            let trimmed = line.trim_start();
            let bullet = trimmed
                .strip_prefix("* ")
                .or_else(|| trimmed.strip_prefix("- "));
            match bullet {
                Some(item) if line.len() - trimmed.len() < 2 => {
                    if let Some((name, text)) = split_item(item) {
                        out.push(ArgumentDoc {
                            name,
                            text,
                            span: attr_span(attr),
                        });
                    }
                }
                // An indented line continues the previous entry.
                _ if !trimmed.is_empty() && line.starts_with("  ") => {
                    if let Some(last) = out.last_mut() {
                        last.text.push(' ');
                        last.text.push_str(trimmed);
                    }
                }
                _ => {}
            }
        }
    }
    out
}

/// `` `name` - text ``, `` `name`: text ``, `name - text` or `name: text`.
fn split_item(item: &str) -> Option<(String, String)> {
    let item = item.trim();
    let (name, rest) = if let Some(rest) = item.strip_prefix('`') {
        let end = rest.find('`')?;
        (&rest[..end], &rest[end + 1..])
    } else {
        let end = item.find(|c: char| !(c.is_alphanumeric() || c == '_'))?;
        (&item[..end], &item[end..])
    };
    let rest = rest.trim_start();
    let text = ["-", ":", "—", "–"]
        .iter()
        .find_map(|sep| rest.strip_prefix(sep))?
        .trim();
    let name = name.strip_prefix("r#").unwrap_or(name);
    (!name.is_empty()).then(|| (name.to_owned(), text.to_owned()))
}

fn is_heading(line: &str) -> bool {
    let t = line.trim_start();
    t.starts_with('#') && t.trim_start_matches('#').starts_with(' ')
}

pub(crate) fn is_doc(attr: &Attribute) -> bool {
    attr.path().is_ident("doc")
}

fn doc_text(attr: &Attribute) -> Option<String> {
    if !is_doc(attr) {
        return None;
    }
    match &attr.meta {
        Meta::NameValue(nv) => match &nv.value {
            Expr::Lit(ExprLit {
                lit: Lit::Str(s), ..
            }) => Some(s.value()),
            _ => None,
        },
        _ => None,
    }
}

fn attr_span(attr: &Attribute) -> Span {
    match &attr.meta {
        Meta::NameValue(nv) => syn::spanned::Spanned::span(&nv.value),
        other => syn::spanned::Spanned::span(other),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn attrs(src: &str) -> Vec<Attribute> {
        let item: syn::ItemFn = syn::parse_str(&format!("{src}\nfn f() {{}}")).unwrap();
        item.attrs
    }

    #[test]
    fn summary_is_the_first_paragraph() {
        let a = attrs("/// Add a note\n/// to the store.\n///\n/// More text.");
        assert_eq!(Doc::of(&a).summary().unwrap(), "Add a note to the store.");
        assert_eq!(
            Doc::of(&a).text().unwrap(),
            "Add a note to the store.\n\nMore text."
        );
        assert!(Doc::of(&attrs("/// # Arguments")).summary().is_none());
    }

    #[test]
    fn arguments_list_is_read() {
        let a = attrs(
            "/// Add.\n///\n/// # Arguments\n/// * `title` - a short title\n///   that wraps\n/// - body: the text\n///\n/// # Errors\n/// * `x` - not an argument",
        );
        let args = arguments_section(&a);
        let pairs: Vec<_> = args
            .iter()
            .map(|a| (a.name.as_str(), a.text.as_str()))
            .collect();
        assert_eq!(
            pairs,
            [("title", "a short title that wraps"), ("body", "the text")]
        );
    }
}
