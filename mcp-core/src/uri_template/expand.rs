//! Expansion of one expression, RFC 6570 section 3 to the letter.

use super::encoding::{prefix_of, push_encoded};
use super::syntax::{Expr, Modifier, Spec};
use super::value::{ValueRef, Vars};

impl Expr {
    pub(super) fn expand<V: Vars + ?Sized>(&self, vars: &V, out: &mut String) {
        let op = self.op;
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
            self.expand_value(spec, value, out);
        }
    }

    /// The text of one variable's value (after the separator before it).
    fn expand_value(&self, spec: &Spec, value: ValueRef<'_>, out: &mut String) {
        let op = self.op;
        let ar = op.allow_reserved();
        let sep = char::from(op.sep());
        match value {
            ValueRef::String(s) => {
                if op.named() {
                    out.push_str(&spec.name);
                    if s.is_empty() {
                        out.push_str(op.ifemp());
                        return;
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
