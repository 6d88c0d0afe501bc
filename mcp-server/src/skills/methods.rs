//! The extension's methods (`skills/list`, `skills/get`, `resources/directory/read`) and
//! the resource handler that serves skill files through `resources/read`.

use std::sync::Arc;

use base64::Engine as _;
use ferromcp_core::Era;
use ferromcp_core::error::ErrorObject;
use ferromcp_core::types::{
    BlobResourceContents, ReadResourceResult, ResourceTemplate, TextResourceContents,
};
use ferromcp_core::uri_template::Match;
use serde::Deserialize;
use serde_json::{Value, json};

use super::Shared;
use super::skill::mime_type;
use super::visible::Seen;
use crate::context::Context;
use crate::custom::method_fn;
use crate::extension::{ExtensionError, Install};
use crate::registry::{BoxFuture, ResourceHandler};
use crate::result::{HandlerError, ResourceError};

/// The template every skill file is read through (`SKILL.md`s are listed resources too).
pub(crate) const FILES_TEMPLATE: &str = "skill://{+path}";

#[derive(Deserialize)]
struct ListParams {
    #[serde(default)]
    cursor: Option<String>,
}

#[derive(Deserialize)]
struct UriParams {
    uri: String,
    #[serde(default)]
    cursor: Option<String>,
}

/// Adds the methods, the files' template and each skill's `SKILL.md`.
pub(crate) fn install(
    shared: &Arc<Shared>,
    install: &mut Install<'_>,
) -> Result<(), ExtensionError> {
    let s = shared.clone();
    install.method(
        "skills/list",
        method_fn(move |p: ListParams, ctx: Context| {
            let s = s.clone();
            async move { list(&s, p, &ctx) }
        }),
    )?;
    let s = shared.clone();
    install.method(
        "skills/get",
        method_fn(move |p: UriParams, ctx: Context| {
            let s = s.clone();
            async move { get(&s, &p.uri, &ctx) }
        }),
    )?;
    if shared.settings.directory_read {
        let s = shared.clone();
        install.method(
            "resources/directory/read",
            method_fn(move |p: UriParams, ctx: Context| {
                let s = s.clone();
                async move { directory(&s, p, &ctx) }
            }),
        )?;
    }
    let mut template = ResourceTemplate::new(FILES_TEMPLATE, "skill-files");
    template.description = Some(
        "The files of the skills this server serves (SEP-2640): `skills/list` lists them \
         with their digests."
            .into(),
    );
    let registry = install.registry();
    registry.add_resource_template(template, Files(shared.clone()))?;
    for skill in shared.catalog().skills() {
        registry.add_resource(
            super::catalog::skill_md_resource(skill),
            Files(shared.clone()),
        )?;
    }
    Ok(())
}

/// The 2026 caching hints, in that era only.
fn with_cache(shared: &Shared, ctx: &Context, mut result: Value) -> Value {
    if ctx.era() == Era::Modern
        && let Some(object) = result.as_object_mut()
    {
        object.insert("ttlMs".into(), shared.settings.cache.ttl_ms.into());
        object.insert(
            "cacheScope".into(),
            json!(shared.settings.cache.cache_scope),
        );
    }
    result
}

fn list(shared: &Shared, params: ListParams, ctx: &Context) -> Result<Value, ErrorObject> {
    let offset = read_cursor(params.cursor.as_deref())?;
    let catalog = shared.catalog();
    let seen = Seen {
        catalog: &catalog,
        ctx,
    };
    let (skills, next) = seen.page(offset, shared.settings.page_size);
    let mut result = json!({ "skills": skills });
    if let Some(next) = next {
        result["nextCursor"] = cursor(next).into();
    }
    Ok(with_cache(shared, ctx, result))
}

/// The longest part of a client's URI an error message repeats.
const SHOWN_URI_LEN: usize = 200;

/// Refuses a URI longer than `resources/read` accepts.
fn check_len(uri: &str) -> Result<(), ErrorObject> {
    if uri.len() > ferromcp_core::uri_template::MAX_URI_LEN {
        return Err(ErrorObject::invalid_params("the URI is too long"));
    }
    Ok(())
}

/// `uri` as an error message repeats it: cut after [`SHOWN_URI_LEN`] bytes, marked `…`.
fn shown(uri: &str) -> String {
    if uri.len() <= SHOWN_URI_LEN {
        return uri.to_owned();
    }
    let mut end = SHOWN_URI_LEN;
    while !uri.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &uri[..end])
}

fn get(shared: &Shared, uri: &str, ctx: &Context) -> Result<Value, ErrorObject> {
    check_len(uri)?;
    let catalog = shared.catalog();
    let seen = Seen {
        catalog: &catalog,
        ctx,
    };
    let Some(entry) = seen.entry(uri) else {
        return Err(ErrorObject::invalid_params(format!(
            "no skill is served at {} (skills are named by the URI of their SKILL.md, as \
             skills/list gives them)",
            shown(uri)
        )));
    };
    Ok(with_cache(shared, ctx, json!({ "skill": entry })))
}

fn directory(shared: &Shared, params: UriParams, ctx: &Context) -> Result<Value, ErrorObject> {
    check_len(&params.uri)?;
    let offset = read_cursor(params.cursor.as_deref())?;
    let catalog = shared.catalog();
    let seen = Seen {
        catalog: &catalog,
        ctx,
    };
    let Some(children) = seen.directory(&params.uri) else {
        let what = if seen.file(&params.uri) {
            "is not a directory resource"
        } else {
            "is not a directory this server serves"
        };
        return Err(ErrorObject::invalid_params(format!(
            "{} {what}",
            shown(&params.uri)
        )));
    };
    let total = children.len();
    let page: Vec<_> = children
        .into_iter()
        .skip(offset)
        .take(shared.settings.page_size)
        .collect();
    let mut result = json!({ "resources": page });
    let end = offset.saturating_add(shared.settings.page_size);
    if end < total {
        result["nextCursor"] = cursor(end).into();
    }
    Ok(result)
}

fn cursor(offset: usize) -> String {
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(format!("skills:{offset}"))
}

fn read_cursor(cursor: Option<&str>) -> Result<usize, ErrorObject> {
    let Some(cursor) = cursor else {
        return Ok(0);
    };
    base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(cursor)
        .ok()
        .and_then(|bytes| String::from_utf8(bytes).ok())
        .and_then(|text| text.strip_prefix("skills:")?.parse().ok())
        .ok_or_else(|| ErrorObject::invalid_params("invalid cursor"))
}

/// Serves a skill file from the current catalog: text when it is UTF-8, else base64.
pub(crate) struct Files(pub(crate) Arc<Shared>);

impl ResourceHandler for Files {
    fn read(
        &self,
        uri: &str,
        _vars: &Match,
        ctx: Context,
    ) -> BoxFuture<Result<ReadResourceResult, HandlerError>> {
        let catalog = self.0.catalog();
        let seen = Seen {
            catalog: &catalog,
            ctx: &ctx,
        };
        let result = read(&seen, uri);
        Box::pin(std::future::ready(result))
    }
}

fn read(seen: &Seen<'_>, uri: &str) -> Result<ReadResourceResult, HandlerError> {
    let Some((_, file)) = seen.catalog.file(uri).filter(|_| seen.file(uri)) else {
        if seen.directory(uri).is_some() {
            return Err(ResourceError::invalid_params(format!(
                "{} is a directory: read it with resources/directory/read",
                shown(uri)
            ))
            .into());
        }
        if escapes(uri) {
            return Err(ResourceError::invalid_params(format!(
                "{} would leave its skill's folder: `..` segments are refused",
                shown(uri)
            ))
            .into());
        }
        return Err(ResourceError::NotFound.into());
    };
    let contents = match std::str::from_utf8(&file.bytes) {
        Ok(text) => {
            let mut text = TextResourceContents::new(uri, text);
            text.mime_type = Some(mime_type(uri, true).to_owned());
            text.into()
        }
        Err(_) => {
            let encoded = base64::engine::general_purpose::STANDARD.encode(&file.bytes);
            let mut blob = BlobResourceContents::new(uri, encoded);
            blob.mime_type = Some(mime_type(uri, false).to_owned());
            blob.into()
        }
    };
    Ok(ReadResourceResult::new(vec![contents]))
}

/// Whether `uri` has a `..` segment, percent-encoded or not (the template's path check
/// sees `{+path}` values with their `%2F`s kept).
fn escapes(uri: &str) -> bool {
    let decoded = uri
        .to_ascii_lowercase()
        .replace("%2e", ".")
        .replace("%2f", "/")
        .replace("%5c", "/");
    decoded.split(['/', '\\']).any(|segment| segment == "..")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cursors_round_trip_and_others_are_refused() {
        assert_eq!(read_cursor(Some(&cursor(42))).unwrap(), 42);
        assert_eq!(read_cursor(None).unwrap(), 0);
        let other = base64::engine::general_purpose::URL_SAFE_NO_PAD.encode("other:1");
        for bad in ["", "42", "!!", &other] {
            assert!(read_cursor(Some(bad)).is_err(), "{bad}");
        }
    }

    #[test]
    fn long_uris_are_cut_on_a_character_boundary() {
        assert_eq!(shown("skill://a"), "skill://a");
        let long = "é".repeat(SHOWN_URI_LEN);
        let cut = shown(&long);
        assert!(cut.len() <= SHOWN_URI_LEN + '…'.len_utf8(), "{}", cut.len());
        assert!(cut.ends_with('…'));
    }

    #[test]
    fn dot_dot_segments_are_seen_through_percent_encoding() {
        for bad in [
            "skill://a/../b",
            "skill://a/..%2Fb",
            "skill://a/%2e%2E/b",
            "skill://a\\..\\b",
        ] {
            assert!(escapes(bad), "{bad}");
        }
        for good in ["skill://a/b..c/d", "skill://a/v1.0..v2.0", "skill://a/.b"] {
            assert!(!escapes(good), "{good}");
        }
    }
}
