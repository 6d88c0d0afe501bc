//! Syntactic questions about types: is it `Option<T>`, an extractor, something a
//! request cannot be deserialized into?

use syn::{GenericArgument, PathArguments, PathSegment, Type};

/// `Paren`/`Group` wrappers removed.
fn peel(ty: &Type) -> &Type {
    match ty {
        Type::Paren(p) => peel(&p.elem),
        Type::Group(g) => peel(&g.elem),
        other => other,
    }
}

pub(crate) fn last_segment(ty: &Type) -> Option<&PathSegment> {
    match peel(ty) {
        Type::Path(p) if p.qself.is_none() => p.path.segments.last(),
        _ => None,
    }
}

/// The first generic type argument of `seg`.
fn first_type_arg(seg: &PathSegment) -> Option<&Type> {
    match &seg.arguments {
        PathArguments::AngleBracketed(a) => a.args.iter().find_map(|arg| match arg {
            GenericArgument::Type(t) => Some(t),
            _ => None,
        }),
        _ => None,
    }
}

/// `T` when `ty` is `Name<T, ...>` (by its last path segment).
pub(crate) fn unwrap_named<'a>(ty: &'a Type, name: &str) -> Option<&'a Type> {
    let seg = last_segment(ty)?;
    if seg.ident == name {
        first_type_arg(seg)
    } else {
        None
    }
}

pub(crate) fn option_inner(ty: &Type) -> Option<&Type> {
    unwrap_named(ty, "Option")
}

/// Whether the type is `String`, a primitive or an `Option`: types that cannot be
/// extractors, since the orphan rule forbids implementing `FromContext` (a foreign trait) for
/// them. The name decides only what is certain either way: an alias of one of them is left to
/// the traits, which then give the same answer.
pub(crate) fn is_never_extractor(ty: &Type) -> bool {
    const PRIMITIVES: [&str; 17] = [
        "String", "bool", "char", "u8", "u16", "u32", "u64", "u128", "usize", "i8", "i16", "i32",
        "i64", "i128", "isize", "f32", "f64",
    ];
    option_inner(ty).is_some()
        || last_segment(ty)
            .is_some_and(|s| s.arguments.is_empty() && PRIMITIVES.iter().any(|p| s.ident == p))
}

/// Whether the type is syntactically `String`.
pub(crate) fn is_string(ty: &Type) -> bool {
    last_segment(ty).is_some_and(|s| s.ident == "String" && s.arguments.is_empty())
}

/// The innermost part of `ty` that a request value cannot be deserialized into, and why.
pub(crate) fn unsupported(ty: &Type) -> Option<(&Type, &'static str)> {
    const BORROW: &str = "parameters are deserialized from the request and cannot borrow: use an \
                          owned type (`String` for `&str`, `Vec<T>` for `&[T]`)";
    match ty {
        Type::Paren(p) => unsupported(&p.elem),
        Type::Group(g) => unsupported(&g.elem),
        Type::Reference(_) => Some((ty, BORROW)),
        Type::Tuple(_) => Some((
            ty,
            "tuples have no field names for a JSON Schema: use separate parameters, or a \
             struct deriving `Deserialize` and `JsonSchema`",
        )),
        Type::ImplTrait(_) => Some((
            ty,
            "`impl Trait` cannot be deserialized from a request: use a concrete type",
        )),
        Type::TraitObject(_) => Some((
            ty,
            "trait objects cannot be deserialized from a request: use a concrete type",
        )),
        Type::FnPtr(_) | Type::Ptr(_) | Type::Never(_) | Type::Infer(_) | Type::Macro(_) => Some((
            ty,
            "unsupported parameter type: use an owned type implementing `Deserialize` and \
                 `JsonSchema` (or mark an extractor with #[extract])",
        )),
        Type::Slice(_) => Some((ty, BORROW)),
        Type::Array(a) => unsupported(&a.elem),
        Type::Path(p) => {
            if let Some(q) = &p.qself
                && let Some(found) = unsupported(&q.ty)
            {
                return Some(found);
            }
            for seg in &p.path.segments {
                match &seg.arguments {
                    PathArguments::AngleBracketed(a) => {
                        for arg in &a.args {
                            match arg {
                                GenericArgument::Type(t) => {
                                    if let Some(found) = unsupported(t) {
                                        return Some(found);
                                    }
                                }
                                GenericArgument::Lifetime(_) => return Some((ty, BORROW)),
                                _ => {}
                            }
                        }
                    }
                    PathArguments::Parenthesized(_) => {
                        return Some((
                            ty,
                            "closures cannot be deserialized from a request: use a concrete type",
                        ));
                    }
                    PathArguments::None => {}
                }
            }
            None
        }
        _ => Some((ty, "unsupported parameter type")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ty(s: &str) -> Type {
        syn::parse_str(s).unwrap()
    }

    #[test]
    fn recognises_wrappers() {
        assert!(option_inner(&ty("Option<String>")).is_some());
        assert!(option_inner(&ty("std::option::Option<u8>")).is_some());
        assert!(option_inner(&ty("Vec<u8>")).is_none());
        assert!(is_never_extractor(&ty("String")));
        assert!(is_never_extractor(&ty("Option<State<Db>>")));
        assert!(is_never_extractor(&ty("u64")));
        assert!(!is_never_extractor(&ty("ferromcp::Context")));
        assert!(!is_never_extractor(&ty("State<Db>")));
        assert!(!is_never_extractor(&ty("Ctx")));
    }

    #[test]
    fn rejects_what_cannot_be_deserialized() {
        for bad in [
            "&str",
            "(u8, u8)",
            "impl Into<String>",
            "Vec<&str>",
            "Option<(u8,)>",
            "Cow<'a, str>",
            "Box<dyn Fn()>",
            "[&str; 2]",
        ] {
            assert!(unsupported(&ty(bad)).is_some(), "{bad}");
        }
        for good in [
            "String",
            "Vec<u8>",
            "HashMap<String, i64>",
            "[u8; 4]",
            "Option<Note>",
        ] {
            assert!(unsupported(&ty(good)).is_none(), "{good}");
        }
    }
}
