//! Matching: the documented rules, one by one.

use super::{list, map, s, t};
use crate::uri_template::{Match, Value};

fn m(template: &str, uri: &str) -> Option<Vec<(String, Value)>> {
    t(template).matches(uri).map(Match::into_vec)
}

fn strs(pairs: &[(&str, &str)]) -> Option<Vec<(String, Value)>> {
    Some(pairs.iter().map(|(k, v)| (k.to_string(), s(v))).collect())
}

#[test]
fn mcp_templates() {
    let tpl = "test://template/{id}/data";
    assert_eq!(m(tpl, "test://template/123/data"), strs(&[("id", "123")]));
    assert_eq!(m(tpl, "test://template/a%20b/data"), strs(&[("id", "a b")]));
    assert_eq!(m(tpl, "test://template//data"), strs(&[]));
    assert_eq!(m(tpl, "test://template/1/2/data"), None);
    assert_eq!(m(tpl, "test://template/1/data/"), None);
    assert_eq!(m(tpl, "test://template/1"), None);
    assert_eq!(m(tpl, "test://templat/1/data"), None);

    let tpl = "file:///{+path}";
    assert_eq!(
        m(tpl, "file:///home/u/a%20b.txt"),
        strs(&[("path", "home/u/a b.txt")])
    );
    assert_eq!(m(tpl, "file:///a?b=1#c"), strs(&[("path", "a?b=1#c")]));
    assert_eq!(m(tpl, "file:///"), strs(&[]));
    assert_eq!(m(tpl, "file://x"), None);
    assert_eq!(m(tpl, "file:///a b"), None);

    let tpl = "notes://{id}";
    assert_eq!(m(tpl, "notes://abc-1_2.3~"), strs(&[("id", "abc-1_2.3~")]));
    assert_eq!(m(tpl, "notes://caf%C3%A9"), strs(&[("id", "caf\u{e9}")]));
    assert_eq!(m(tpl, "notes://caf\u{e9}"), strs(&[("id", "caf\u{e9}")]));
    assert_eq!(m(tpl, "notes://a/b"), None);
    assert_eq!(m(tpl, "notes://a?b"), None);
    assert_eq!(m(tpl, "notes://a#b"), None);
    assert_eq!(m(tpl, "note://a"), None);

    let tpl = "schema://tables/{table}";
    assert_eq!(m(tpl, "schema://tables/users"), strs(&[("table", "users")]));
    assert_eq!(m(tpl, "schema://tables/"), strs(&[]));
    assert_eq!(m(tpl, "schema://tables"), None);
    assert_eq!(m(tpl, "schema://tables/users/x"), None);

    let tpl = "repo://{owner}/{repo}/issues{?state,labels}";
    assert_eq!(
        m(tpl, "repo://o/r/issues"),
        strs(&[("owner", "o"), ("repo", "r")])
    );
    assert_eq!(
        m(tpl, "repo://o/r/issues?state=open"),
        strs(&[("owner", "o"), ("repo", "r"), ("state", "open")])
    );
    let both = strs(&[
        ("owner", "o"),
        ("repo", "r"),
        ("state", "open"),
        ("labels", "bug"),
    ]);
    assert_eq!(m(tpl, "repo://o/r/issues?state=open&labels=bug"), both);
    assert_eq!(m(tpl, "repo://o/r/issues?labels=bug&state=open"), both);
    assert_eq!(
        m(tpl, "repo://o/r/issues?labels=bug,ui").unwrap()[2],
        ("labels".to_string(), list(&["bug", "ui"]))
    );
    assert_eq!(
        m(tpl, "repo://o/r/issues?labels=a%2Cb").unwrap()[2],
        ("labels".to_string(), s("a,b"))
    );
    assert_eq!(
        m(tpl, "repo://o/r/issues?state="),
        strs(&[("owner", "o"), ("repo", "r"), ("state", "")])
    );
    // Unknown, repeated or malformed parameters do not match.
    assert_eq!(m(tpl, "repo://o/r/issues?page=2"), None);
    assert_eq!(m(tpl, "repo://o/r/issues?state=open&page=2"), None);
    assert_eq!(m(tpl, "repo://o/r/issues?state=open&state=closed"), None);
    assert_eq!(m(tpl, "repo://o/r/issues?state"), None);
    assert_eq!(m(tpl, "repo://o/r/issues?"), None);
    assert_eq!(m(tpl, "repo://o/r/issues?&state=a"), None);
    assert_eq!(m(tpl, "repo://o/r/issues?state=a=b"), None);
    assert_eq!(m(tpl, "repo://o/r/pulls"), None);
    assert_eq!(m(tpl, "repo://o/r/x/issues"), None);
}

#[test]
fn static_templates() {
    assert_eq!(m("config://app", "config://app"), strs(&[]));
    assert_eq!(m("config://app", "config://ap"), None);
    assert_eq!(m("config://app", "config://appx"), None);
    assert_eq!(m("", ""), strs(&[]));
    assert_eq!(m("", "x"), None);
    // Non-ASCII literals match raw or percent-encoded.
    assert_eq!(m("caf\u{e9}://{x}", "caf\u{e9}://1"), strs(&[("x", "1")]));
    assert_eq!(m("caf\u{e9}://{x}", "caf%C3%A9://1"), strs(&[("x", "1")]));
    assert_eq!(
        m("{x}/caf\u{e9}/{y}", "1/caf%C3%A9/2"),
        strs(&[("x", "1"), ("y", "2")])
    );
    assert_eq!(
        m("{x}/caf\u{e9}/{y}", "1/caf\u{e9}/2"),
        strs(&[("x", "1"), ("y", "2")])
    );
    assert_eq!(m("{x}/caf\u{e9}", "1/caf\u{e9}"), strs(&[("x", "1")]));
    assert_eq!(m("{x}/caf\u{e9}", "1/caf%C3%A9"), strs(&[("x", "1")]));
}

#[test]
fn percent_decoding() {
    assert_eq!(m("{x}", "a%2Fb%3f%25"), strs(&[("x", "a/b?%")]));
    assert_eq!(m("{+x}", "%E2%98%83/%41"), strs(&[("x", "\u{2603}/A")]));
    // `+` and `#` leave encoded reserved characters encoded: `%2F` is not `/`.
    assert_eq!(m("{+x}", "a%2Fb%3f%20"), strs(&[("x", "a%2Fb%3f ")]));
    assert_eq!(m("{#x}", "#%23%2C"), strs(&[("x", "%23%2C")]));
    assert_eq!(m("{+x:2}", "%2Fa"), strs(&[("x", "%2Fa")]));
    assert_eq!(m("{+x:2}", "%2Fab"), None);
    // Malformed triplets, truncated or invalid UTF-8: no match.
    assert_eq!(m("{x}", "a%zz"), None);
    assert_eq!(m("{x}", "a%4"), None);
    assert_eq!(m("{x}", "%"), None);
    assert_eq!(m("{x}", "%C3"), None);
    assert_eq!(m("{x}", "%FF%FE"), None);
    assert_eq!(m("{x}", "%C3%28"), None);
    assert_eq!(m("{?q}", "?q=%C3"), None);
    assert_eq!(m("{/p*}", "/a/%ED%A0%80"), None);
    // A region cannot end inside a triplet.
    assert_eq!(m("{x}%41", "%41"), strs(&[]));
    assert_eq!(m("{x}1{y}", "%41%31"), None);
    assert_eq!(m("{x}1{y}", "%411%31"), strs(&[("x", "A"), ("y", "1")]));
}

#[test]
fn round_trips_per_operator() {
    let cases: &[(&str, &[(&str, Value)])] = &[
        ("x:{a}", &[("a", s("h\u{e9}llo w/rld?#&=,"))]),
        ("x:{a,b}", &[("a", s("1,2")), ("b", s(""))]),
        ("x:{a}", &[("a", list(&["p", "q r"]))]),
        ("x:{a*}", &[("a", list(&["p", "q"]))]),
        ("x:{a*}", &[("a", map(&[("k", "v"), ("k2", "")]))]),
        ("x:{+a}", &[("a", s("/a/b?c=d#e f"))]),
        ("x:{+a,b}", &[("a", s("p/q")), ("b", s("r"))]),
        ("x:{+a*}", &[("a", list(&["p/q", "r"]))]),
        ("x:{#a}", &[("a", s("frag/x?y"))]),
        ("x:{#a,b}", &[("a", s("1")), ("b", s("2"))]),
        ("x:{.a}", &[("a", s("json"))]),
        ("x:{.a,b}", &[("a", s("tar")), ("b", s("gz"))]),
        ("x:{.a*}", &[("a", list(&["tar", "gz"]))]),
        ("x:{/a}", &[("a", s("seg ment/with/slashes"))]),
        ("x:{/a,b}", &[("a", s("p")), ("b", s("q"))]),
        ("x:{/a*}", &[("a", list(&["p", "q", "", "r"]))]),
        ("x:{/a*}", &[("a", map(&[("k", "v"), ("w", "z")]))]),
        (
            "x:{/a,b*,c}",
            &[("a", s("1")), ("b", list(&["2", "3"])), ("c", s("4"))],
        ),
        ("x:{;a}", &[("a", s("v"))]),
        ("x:{;a,b}", &[("a", s("")), ("b", s("2"))]),
        ("x:{;a*}", &[("a", list(&["1", "", "3"]))]),
        ("x:{;a*}", &[("a", map(&[("k", "v"), ("e", "")]))]),
        ("x:{?a}", &[("a", s("a b&c=d"))]),
        ("x:{?a,b}", &[("a", s("")), ("b", s("2"))]),
        ("x:{?a*}", &[("a", list(&["1", "2"]))]),
        ("x:{?a*}", &[("a", map(&[("k", "v"), ("e", "")]))]),
        ("x:{?a,b*}", &[("a", s("1")), ("b", map(&[("k", "v")]))]),
        ("x:{?a}{&b}", &[("a", s("1")), ("b", s("2"))]),
        ("x:{&a,b}", &[("a", s("1")), ("b", list(&["x", "y"]))]),
        ("x:{a:3}", &[("a", s("abcdef"))]),
        ("x:{/a:2,a}", &[("a", s("abcdef"))]),
    ];
    for (template, vars) in cases {
        let tpl = t(template);
        let uri = tpl.expand(*vars);
        let got = tpl
            .matches(&uri)
            .unwrap_or_else(|| panic!("{template}: no match for {uri}"));
        assert_eq!(tpl.expand(&got), uri, "{template}");
        for (name, value) in *vars {
            let expected = match (value, template.contains(&format!("{name}:"))) {
                (Value::String(v), true) => {
                    let n = template.split(&format!("{name}:")).nth(1).unwrap();
                    let n: usize = n[..1].parse().unwrap();
                    if template.contains(&format!(",{name}}}")) {
                        v.clone()
                    } else {
                        v.chars().take(n).collect()
                    }
                }
                (Value::String(v), false) => v.clone(),
                _ => String::new(),
            };
            match value {
                Value::String(_) => {
                    assert_eq!(got.get_str(name), Some(&*expected), "{template} {uri}")
                }
                other => assert_eq!(got.get(name), Some(other), "{template} {uri}"),
            }
        }
    }
}

#[test]
fn literal_boundaries() {
    // The template's final literal anchors at the end.
    assert_eq!(m("{+path}/edit", "a/b/edit"), strs(&[("path", "a/b")]));
    assert_eq!(m("{name}.txt", "my.file.txt"), strs(&[("name", "my.file")]));
    // Other literals end the expression at their first occurrence.
    assert_eq!(
        m("{a}.{b}.txt", "x.y.z.txt"),
        strs(&[("a", "x"), ("b", "y.z")])
    );
    assert_eq!(m("{a}-{b}", "x-y-z"), strs(&[("a", "x"), ("b", "y-z")]));
    assert_eq!(
        m("{+a}/x/{+b}", "p/x/q/x/r"),
        strs(&[("a", "p"), ("b", "q/x/r")])
    );
    // ... which must come before anything the expression cannot contain.
    assert_eq!(m("{a}-{b}", "x/y-z"), None);
    // The documented `{/a}/{b}` pitfall, and its alternatives.
    assert_eq!(m("{/a}/{b}", "/v/w"), None);
    assert_eq!(m("{/a}/{b}", "/w"), strs(&[("b", "w")]));
    assert_eq!(m("/{a}/{b}", "/v/w"), strs(&[("a", "v"), ("b", "w")]));
    assert_eq!(m("{/a,b}", "/v/w"), strs(&[("a", "v"), ("b", "w")]));
    // Optional path segment before a literal.
    assert_eq!(
        m("api:{/ver}/items/{id}", "api:/v1/items/5"),
        strs(&[("ver", "v1"), ("id", "5")])
    );
    assert_eq!(
        m("api:{/ver}/items/{id}", "api:/items/5"),
        strs(&[("id", "5")])
    );
}

#[test]
fn adjacent_expressions() {
    // `{+path}{?q}` splits at the first `?`.
    let tpl = "file:///{+path}{?rev,ro}";
    assert_eq!(m(tpl, "file:///a/b"), strs(&[("path", "a/b")]));
    assert_eq!(
        m(tpl, "file:///a/b?ro=1&rev=2"),
        strs(&[("path", "a/b"), ("rev", "2"), ("ro", "1")])
    );
    assert_eq!(m(tpl, "file:///a?b?rev=2"), None);
    // `{name}{.ext}` splits at the first `.`.
    assert_eq!(
        m("{name}{.ext}", "a.b.json"),
        strs(&[("name", "a"), ("ext", "b.json")])
    );
    assert_eq!(m("{name}{.ext}", "readme"), strs(&[("name", "readme")]));
    assert_eq!(
        m("{/p}{.ext}", "/x.json"),
        strs(&[("p", "x"), ("ext", "json")])
    );
    // `{?a,b}{&c}` splits by parameter name and order.
    let tpl = "{?a,b}{&c}";
    assert_eq!(
        m(tpl, "?a=1&b=2&c=3"),
        strs(&[("a", "1"), ("b", "2"), ("c", "3")])
    );
    assert_eq!(m(tpl, "?b=2&a=1&c=3"), None);
    assert_eq!(m("{?a,b}", "?b=2&a=1"), strs(&[("a", "1"), ("b", "2")]));
    assert_eq!(m(tpl, "?a=1&c=3"), strs(&[("a", "1"), ("c", "3")]));
    assert_eq!(m(tpl, "&c=3"), strs(&[("c", "3")]));
    assert_eq!(m(tpl, "?c=3"), None);
    assert_eq!(m(tpl, "?a=1&c=3&b=2"), None);
    // An exploded variable collects every parameter.
    assert_eq!(m("{?a*}{&c}", "?x=1&c=3").unwrap().len(), 1);
    // Nothing marks the boundary: the first expression takes everything.
    assert_eq!(m("{a}{b}", "xyz"), strs(&[("a", "xyz")]));
    assert_eq!(m("{a}{+b}", "xy/z"), strs(&[("a", "xy"), ("b", "/z")]));
    assert_eq!(
        m("{/a*}{/b}", "/1/2/3").unwrap(),
        vec![("a".to_string(), list(&["1", "2", "3"]))]
    );
    assert_eq!(m("{/a}{/b}", "/1/2"), strs(&[("a", "1"), ("b", "2")]));
    assert_eq!(m("{#a}{#b}", "#x#y"), strs(&[("a", "x#y")]));
    assert_eq!(m("{;a}{;b}", ";a=1;b=2"), strs(&[("a", "1"), ("b", "2")]));
    assert_eq!(m("{;a,b}{;c}", ";b=1;c=2"), strs(&[("b", "1"), ("c", "2")]));
    // A parameter out of order ends the region: here `a` is the exploded map's (what
    // expansion wrote for b = "&", c = {a: z, k: v}; found by the fuzzer).
    assert_eq!(
        m("{;a,b:9}{;c*}", ";b=%26;a=z;k=v"),
        Some(vec![
            ("b".to_string(), s("&")),
            ("c".to_string(), map(&[("a", "z"), ("k", "v")])),
        ])
    );
    assert_eq!(m("{;a,b}{;b}", ";b=1;b=1"), strs(&[("b", "1")]));
}

#[test]
fn value_shapes() {
    // Raw `,` with an encoding operator means a list; with `+`/`#` it is kept.
    assert_eq!(m("{x}", "a,b").unwrap()[0].1, list(&["a", "b"]));
    assert_eq!(m("{+x}", "a,b").unwrap()[0].1, s("a,b"));
    assert_eq!(m("{x,y}", "a,b"), strs(&[("x", "a"), ("y", "b")]));
    assert_eq!(m("{x,y}", "a,b,c"), None);
    assert_eq!(m("{x,y}", "a"), strs(&[("x", "a")]));
    assert_eq!(m("{x,y}", ",b"), strs(&[("x", ""), ("y", "b")]));
    // Exploded pieces: a list, or a map when they are all `k=v`.
    assert_eq!(m("{/x*}", "/a/b").unwrap()[0].1, list(&["a", "b"]));
    assert_eq!(
        m("{/x*}", "/a=1/b=").unwrap()[0].1,
        map(&[("a", "1"), ("b", "")])
    );
    assert_eq!(m("{/x*}", "/a=1/b"), None);
    assert_eq!(m("{/x*}", "/a=1=2"), None);
    assert_eq!(m("{+x*}", "a=1,b").unwrap()[0].1, list(&["a=1", "b"]));
    // Named explode: a list when every name is the variable's own, else a map.
    assert_eq!(m("{?x*}", "?x=1&x=2").unwrap()[0].1, list(&["1", "2"]));
    assert_eq!(
        m("{?x*}", "?x=1&y=2").unwrap()[0].1,
        map(&[("x", "1"), ("y", "2")])
    );
    assert_eq!(m("{;x*}", ";x;x=2").unwrap()[0].1, list(&["", "2"]));
    assert_eq!(m("{;x*}", ";x=;x=2"), None);
    // `=` or `,` that expansion cannot have written.
    assert_eq!(m("{?x}", "?x=a=b"), None);
    assert_eq!(m("{?x*}", "?x=a,b"), None);
    // Prefixes are checked, and repeated variables must agree.
    assert_eq!(m("{x:3}", "abc"), strs(&[("x", "abc")]));
    assert_eq!(m("{x:3}", "abcd"), None);
    assert_eq!(
        m("{x:3}", "%C3%A9%C3%A9%C3%A9"),
        strs(&[("x", "\u{e9}\u{e9}\u{e9}")])
    );
    assert_eq!(m("{x}/{x}", "a/a"), strs(&[("x", "a")]));
    assert_eq!(m("{x}/{x}", "a/b"), None);
    assert_eq!(m("{x}/{x}", "a/"), None);
    assert_eq!(m("{/x:1,x}", "/v/value"), strs(&[("x", "value")]));
    assert_eq!(m("{/x:1,x}", "/w/value"), None);
    assert_eq!(m("{/x:2}{/x:4}", "/ab/abcd"), strs(&[("x", "abcd")]));
    assert_eq!(m("{/x:2}{/x:4}", "/ab/abc"), strs(&[("x", "abc")]));
    assert_eq!(m("{/x:2}{/x:4}", "/ab/ac"), None);
    assert_eq!(m("{/x:4}{/x:2}", "/abcd/ab"), strs(&[("x", "abcd")]));
    assert_eq!(m("{/x:2}/{x}", "/ab/abcd"), None); // leftmost `/` leaves `{/x:2}` empty
    assert_eq!(m("{x:2}-{x}", "ab-abcd"), strs(&[("x", "abcd")]));
    assert_eq!(m("{x:2}-{x}", "ab-a"), None);
    assert_eq!(m("{x:2}-{x}", "ab-"), None);
    assert_eq!(m("{x:2}-{/x*}", "ab-/a"), None);
    assert_eq!(m("{?a,a}", "?a=1&a=1"), strs(&[("a", "1")]));
    assert_eq!(m("{?a,a}", "?a=1&a=2"), None);
    assert_eq!(m("{?a,a}", "?a=1"), None);
    // Match API.
    let got = t("{a}/{b*}").matches("1/x,y").unwrap();
    assert_eq!(got.len(), 2);
    assert!(!got.is_empty());
    assert_eq!(got.get_str("a"), Some("1"));
    assert_eq!(got.get_str("b"), None);
    assert_eq!(got.get("b"), Some(&list(&["x", "y"])));
    assert_eq!(got.get("c"), None);
    assert_eq!(got.iter().map(|(n, _)| n).collect::<Vec<_>>(), ["a", "b"]);
    assert_eq!(got.clone().into_iter().count(), 2);
    assert!(t("{a}").matches("").unwrap().is_empty());
}
