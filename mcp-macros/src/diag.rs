//! Error collection and "did you mean" suggestions.

use std::fmt::Display;

use proc_macro2::Span;
use quote::ToTokens;

/// Every error found so far; combined into one `syn::Error` (one `compile_error!` each).
#[derive(Default)]
pub(crate) struct Errors {
    first: Option<syn::Error>,
}

impl Errors {
    pub(crate) fn push(&mut self, error: syn::Error) {
        match &mut self.first {
            Some(first) => first.combine(error),
            None => self.first = Some(error),
        }
    }

    /// An error spanned on one token.
    pub(crate) fn at(&mut self, span: Span, message: impl Display) {
        self.push(syn::Error::new(span, message));
    }

    /// An error spanned on a node, from its first to its last token.
    pub(crate) fn on(&mut self, tokens: impl ToTokens, message: impl Display) {
        self.push(syn::Error::new_spanned(tokens, message));
    }

    pub(crate) fn into_error(self) -> Option<syn::Error> {
        self.first
    }
}

/// The candidate closest to `found`, if it is close enough to be a likely typo.
pub(crate) fn closest<'a>(
    found: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Option<&'a str> {
    let limit = match found.chars().count() {
        0..=4 => 1,
        5..=8 => 2,
        _ => 3,
    };
    candidates
        .into_iter()
        .map(|c| (distance(found, c), c))
        .filter(|&(d, c)| d <= limit || (found.len() >= 3 && c.starts_with(found)))
        .min_by_key(|&(d, _)| d)
        .map(|(_, c)| c)
}

/// "did you mean `x`?" when a candidate is close, else the list of candidates.
pub(crate) fn suggestion(found: &str, candidates: &[&str]) -> String {
    match closest(found, candidates.iter().copied()) {
        Some(c) => format!("did you mean `{c}`?"),
        None if candidates.is_empty() => String::new(),
        None => format!(
            "expected one of: {}",
            candidates
                .iter()
                .map(|c| format!("`{c}`"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

/// Optimal string alignment distance: edits, with a swap of two neighbours counting once.
fn distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let width = b.len() + 1;
    let mut d = vec![0usize; (a.len() + 1) * width];
    for i in 0..=a.len() {
        d[i * width] = i;
    }
    for (j, cell) in d.iter_mut().enumerate().take(width) {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut best = (d[(i - 1) * width + j] + 1)
                .min(d[i * width + j - 1] + 1)
                .min(d[(i - 1) * width + j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                best = best.min(d[(i - 2) * width + j - 2] + 1);
            }
            d[i * width + j] = best;
        }
    }
    d[a.len() * width + b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typos_find_their_key() {
        let keys = ["name", "title", "read_only", "mime_type", "description"];
        assert_eq!(closest("nmae", keys), Some("name"));
        assert_eq!(closest("read_onyl", keys), Some("read_only"));
        assert_eq!(closest("mime", keys), Some("mime_type"));
        assert_eq!(closest("desc", keys), Some("description"));
        assert_eq!(closest("colour", keys), None);
        assert_eq!(distance("ab", "ba"), 1);
        assert_eq!(distance("", "abc"), 3);
    }
}
