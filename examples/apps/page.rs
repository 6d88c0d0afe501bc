//! An app's HTML page as served: the official app-side `App` class of
//! `@modelcontextprotocol/ext-apps` (vendored in `examples/apps/vendor`, see its NOTICE.md)
//! inlined where the page has its slot, since an app may fetch nothing, followed by what
//! the examples' apps share (`host.js`, and `theme.css` before the page's own style).

/// The bundle of the `App` class and its dependencies, an ES module.
const BUNDLE: &str = include_str!("vendor/ext-apps-2.0.4/app-with-deps.js");

/// What the examples' apps share, added to `globalThis.ExtApps`.
const SHARED: &str = include_str!("host.js");

/// The style the examples' apps share: the host's variables with fallbacks, the controls.
const THEME: &str = include_str!("theme.css");

/// Where a page wants the bundle: this exact, empty element.
const SLOT: &str = r#"<script type="module" data-inline="ext-apps"></script>"#;

/// `html` with the bundle in its slot, its exports set on `globalThis.ExtApps` (so
/// `ExtApps.App` in the page's own module script, which runs after it), then `host.js`.
///
/// # Errors
///
/// The page has no slot, or the bundle no final `export{...}` statement.
pub fn with_app_class(html: &str) -> Result<String, String> {
    let (before, after) = html
        .split_once(SLOT)
        .ok_or_else(|| format!("the page has no `{SLOT}` for the App class"))?;
    let before = before.replacen("<style>", &format!("<style>\n{THEME}"), 1);
    let bundle = expose(BUNDLE).ok_or("the ext-apps bundle has no final export statement")?;
    Ok(format!(
        "{before}<script type=\"module\">{bundle}</script>\n<script type=\"module\">{SHARED}</script>{after}"
    ))
}

/// The ES module `bundle` with its final `export{a as A, b}` statement replaced by
/// `globalThis.ExtApps={A:a,b:b};`, so an inline script can reach what it exports.
fn expose(bundle: &str) -> Option<String> {
    let start = bundle.rfind("export{")?;
    let list_start = start + "export{".len();
    let end = list_start + bundle[list_start..].find('}')?;
    let members: Vec<String> = bundle[list_start..end]
        .split(',')
        .map(|member| {
            let member = member.trim();
            let (local, exported) = member.split_once(" as ").unwrap_or((member, member));
            format!("{}:{}", exported.trim(), local.trim())
        })
        .collect();
    Some(format!(
        "{}globalThis.ExtApps={{{}}}{}",
        &bundle[..start],
        members.join(","),
        &bundle[end + 1..]
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_exports_become_a_global_object() {
        let exposed = expose("var qB=1,x=2;export{qB as App,x};\n").unwrap();
        assert_eq!(exposed, "var qB=1,x=2;globalThis.ExtApps={App:qB,x:x};\n");
    }

    #[test]
    fn the_vendored_bundle_exposes_the_app_class_in_the_slot() {
        let page = with_app_class(&format!("<style>p{{}}</style><p>a</p>{SLOT}<p>b</p>")).unwrap();
        assert!(page.starts_with("<style>\n  /* What the examples' apps share"));
        assert!(page.contains("</style><p>a</p><script type=\"module\">"));
        assert!(page.ends_with("</script><p>b</p>"));
        assert!(page.contains("applyHostContext(context) {"));
        assert!(page.contains("globalThis.ExtApps={"));
        assert!(page.contains(",App:"));
        assert!(!page.contains("export{"));
        // Nothing in the bundle ends the inline script early.
        assert_eq!(page.matches("</script").count(), 2);
        assert!(with_app_class("<p>no slot</p>").is_err());
    }
}
