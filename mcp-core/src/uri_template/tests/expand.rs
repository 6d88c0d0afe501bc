//! Expansion: every example of RFC 6570, encoding details, and the `Vars` implementations.

use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap};

use super::{list, map, s, t};
use crate::uri_template::{Value, ValueRef};

/// The variables of RFC 6570 sections 1.2 and 3.2.
fn rfc_vars() -> HashMap<&'static str, Value> {
    HashMap::from([
        ("count", list(&["one", "two", "three"])),
        ("dom", list(&["example", "com"])),
        ("dub", s("me/too")),
        ("hello", s("Hello World!")),
        ("half", s("50%")),
        ("var", s("value")),
        ("who", s("fred")),
        ("base", s("http://example.com/home/")),
        ("path", s("/foo/bar")),
        ("list", list(&["red", "green", "blue"])),
        ("keys", map(&[("semi", ";"), ("dot", "."), ("comma", ",")])),
        ("v", s("6")),
        ("x", s("1024")),
        ("y", s("768")),
        ("empty", s("")),
        ("empty_keys", Value::Map(Vec::new())),
        ("semi", s(";")),
    ])
}

fn check_expansions(cases: &[(&str, &str)]) {
    let vars = rfc_vars();
    for (template, expected) in cases {
        let tpl = t(template);
        let got = tpl.expand(&vars);
        assert_eq!(&got, expected, "expanding {template}");
        // Every RFC example also matches back, to values that expand the same, except
        // where a value contains the separator: `dot=.` in `X.semi=%3B.dot=..comma=%2C`.
        let m = tpl.matches(&got);
        if *template == "X{.keys*}" {
            assert_eq!(m, None);
            continue;
        }
        let m = m.unwrap_or_else(|| panic!("{template} does not match {got}"));
        assert_eq!(
            tpl.expand(&m),
            got,
            "re-expanding the match of {got} against {template}"
        );
    }
}

#[test]
fn rfc_section_1_2_levels() {
    check_expansions(&[
        // Level 1
        ("{var}", "value"),
        ("{hello}", "Hello%20World%21"),
        // Level 2
        ("{+var}", "value"),
        ("{+hello}", "Hello%20World!"),
        ("{+path}/here", "/foo/bar/here"),
        ("here?ref={+path}", "here?ref=/foo/bar"),
        ("X{#var}", "X#value"),
        ("X{#hello}", "X#Hello%20World!"),
        // Level 3
        ("map?{x,y}", "map?1024,768"),
        ("{x,hello,y}", "1024,Hello%20World%21,768"),
        ("{+x,hello,y}", "1024,Hello%20World!,768"),
        ("{+path,x}/here", "/foo/bar,1024/here"),
        ("{#x,hello,y}", "#1024,Hello%20World!,768"),
        ("{#path,x}/here", "#/foo/bar,1024/here"),
        ("X{.var}", "X.value"),
        ("X{.x,y}", "X.1024.768"),
        ("{/var}", "/value"),
        ("{/var,x}/here", "/value/1024/here"),
        ("{;x,y}", ";x=1024;y=768"),
        ("{;x,y,empty}", ";x=1024;y=768;empty"),
        ("{?x,y}", "?x=1024&y=768"),
        ("{?x,y,empty}", "?x=1024&y=768&empty="),
        ("?fixed=yes{&x}", "?fixed=yes&x=1024"),
        ("{&x,y,empty}", "&x=1024&y=768&empty="),
        // Level 4
        ("{var:3}", "val"),
        ("{var:30}", "value"),
        ("{list}", "red,green,blue"),
        ("{list*}", "red,green,blue"),
        ("{keys}", "semi,%3B,dot,.,comma,%2C"),
        ("{keys*}", "semi=%3B,dot=.,comma=%2C"),
        ("{+path:6}/here", "/foo/b/here"),
        ("{+list}", "red,green,blue"),
        ("{+list*}", "red,green,blue"),
        ("{+keys}", "semi,;,dot,.,comma,,"),
        ("{+keys*}", "semi=;,dot=.,comma=,"),
        ("{#path:6}/here", "#/foo/b/here"),
        ("{#list}", "#red,green,blue"),
        ("{#list*}", "#red,green,blue"),
        ("{#keys}", "#semi,;,dot,.,comma,,"),
        ("{#keys*}", "#semi=;,dot=.,comma=,"),
        ("X{.var:3}", "X.val"),
        ("X{.list}", "X.red,green,blue"),
        ("X{.list*}", "X.red.green.blue"),
        ("X{.keys}", "X.semi,%3B,dot,.,comma,%2C"),
        ("X{.keys*}", "X.semi=%3B.dot=..comma=%2C"),
        ("{/var:1,var}", "/v/value"),
        ("{/list}", "/red,green,blue"),
        ("{/list*}", "/red/green/blue"),
        ("{/list*,path:4}", "/red/green/blue/%2Ffoo"),
        ("{/keys}", "/semi,%3B,dot,.,comma,%2C"),
        ("{/keys*}", "/semi=%3B/dot=./comma=%2C"),
        ("{;hello:5}", ";hello=Hello"),
        ("{;list}", ";list=red,green,blue"),
        ("{;list*}", ";list=red;list=green;list=blue"),
        ("{;keys}", ";keys=semi,%3B,dot,.,comma,%2C"),
        ("{;keys*}", ";semi=%3B;dot=.;comma=%2C"),
        ("{?var:3}", "?var=val"),
        ("{?list}", "?list=red,green,blue"),
        ("{?list*}", "?list=red&list=green&list=blue"),
        ("{?keys}", "?keys=semi,%3B,dot,.,comma,%2C"),
        ("{?keys*}", "?semi=%3B&dot=.&comma=%2C"),
        ("{&var:3}", "&var=val"),
        ("{&list}", "&list=red,green,blue"),
        ("{&list*}", "&list=red&list=green&list=blue"),
        ("{&keys}", "&keys=semi,%3B,dot,.,comma,%2C"),
        ("{&keys*}", "&semi=%3B&dot=.&comma=%2C"),
    ]);
}

#[test]
fn rfc_section_2_4_modifiers() {
    check_expansions(&[
        ("{var}", "value"),
        ("{var:20}", "value"),
        ("{var:3}", "val"),
        ("{semi}", "%3B"),
        ("{semi:2}", "%3B"),
    ]);
}

#[test]
fn rfc_section_3_2_1_variable_expansion() {
    check_expansions(&[
        ("{count}", "one,two,three"),
        ("{count*}", "one,two,three"),
        ("{/count}", "/one,two,three"),
        ("{/count*}", "/one/two/three"),
        ("{;count}", ";count=one,two,three"),
        ("{;count*}", ";count=one;count=two;count=three"),
        ("{?count}", "?count=one,two,three"),
        ("{?count*}", "?count=one&count=two&count=three"),
        ("{&count*}", "&count=one&count=two&count=three"),
    ]);
}

#[test]
fn rfc_section_3_2_2_simple() {
    check_expansions(&[
        ("{var}", "value"),
        ("{hello}", "Hello%20World%21"),
        ("{half}", "50%25"),
        ("O{empty}X", "OX"),
        ("O{undef}X", "OX"),
        ("{x,y}", "1024,768"),
        ("{x,hello,y}", "1024,Hello%20World%21,768"),
        ("?{x,empty}", "?1024,"),
        ("?{x,undef}", "?1024"),
        ("?{undef,y}", "?768"),
        ("{var:3}", "val"),
        ("{var:30}", "value"),
        ("{list}", "red,green,blue"),
        ("{list*}", "red,green,blue"),
        ("{keys}", "semi,%3B,dot,.,comma,%2C"),
        ("{keys*}", "semi=%3B,dot=.,comma=%2C"),
    ]);
}

#[test]
fn rfc_section_3_2_3_reserved() {
    check_expansions(&[
        ("{+var}", "value"),
        ("{+hello}", "Hello%20World!"),
        ("{+half}", "50%25"),
        ("{base}index", "http%3A%2F%2Fexample.com%2Fhome%2Findex"),
        ("{+base}index", "http://example.com/home/index"),
        ("O{+empty}X", "OX"),
        ("O{+undef}X", "OX"),
        ("{+path}/here", "/foo/bar/here"),
        ("here?ref={+path}", "here?ref=/foo/bar"),
        ("up{+path}{var}/here", "up/foo/barvalue/here"),
        ("{+x,hello,y}", "1024,Hello%20World!,768"),
        ("{+path,x}/here", "/foo/bar,1024/here"),
        ("{+path:6}/here", "/foo/b/here"),
        ("{+list}", "red,green,blue"),
        ("{+list*}", "red,green,blue"),
        ("{+keys}", "semi,;,dot,.,comma,,"),
        ("{+keys*}", "semi=;,dot=.,comma=,"),
    ]);
}

#[test]
fn rfc_section_3_2_4_fragment() {
    check_expansions(&[
        ("{#var}", "#value"),
        ("{#hello}", "#Hello%20World!"),
        ("{#half}", "#50%25"),
        ("foo{#empty}", "foo#"),
        ("foo{#undef}", "foo"),
        ("{#x,hello,y}", "#1024,Hello%20World!,768"),
        ("{#path,x}/here", "#/foo/bar,1024/here"),
        ("{#path:6}/here", "#/foo/b/here"),
        ("{#list}", "#red,green,blue"),
        ("{#list*}", "#red,green,blue"),
        ("{#keys}", "#semi,;,dot,.,comma,,"),
        ("{#keys*}", "#semi=;,dot=.,comma=,"),
    ]);
}

#[test]
fn rfc_section_3_2_5_label() {
    check_expansions(&[
        ("{.who}", ".fred"),
        ("{.who,who}", ".fred.fred"),
        ("{.half,who}", ".50%25.fred"),
        ("www{.dom*}", "www.example.com"),
        ("X{.var}", "X.value"),
        ("X{.empty}", "X."),
        ("X{.undef}", "X"),
        ("X{.var:3}", "X.val"),
        ("X{.list}", "X.red,green,blue"),
        ("X{.list*}", "X.red.green.blue"),
        ("X{.keys}", "X.semi,%3B,dot,.,comma,%2C"),
        ("X{.keys*}", "X.semi=%3B.dot=..comma=%2C"),
        ("X{.empty_keys}", "X"),
        ("X{.empty_keys*}", "X"),
    ]);
}

#[test]
fn rfc_section_3_2_6_path() {
    check_expansions(&[
        ("{/who}", "/fred"),
        ("{/who,who}", "/fred/fred"),
        ("{/half,who}", "/50%25/fred"),
        ("{/who,dub}", "/fred/me%2Ftoo"),
        ("{/var}", "/value"),
        ("{/var,empty}", "/value/"),
        ("{/var,undef}", "/value"),
        ("{/var,x}/here", "/value/1024/here"),
        ("{/var:1,var}", "/v/value"),
        ("{/list}", "/red,green,blue"),
        ("{/list*}", "/red/green/blue"),
        ("{/list*,path:4}", "/red/green/blue/%2Ffoo"),
        ("{/keys}", "/semi,%3B,dot,.,comma,%2C"),
        ("{/keys*}", "/semi=%3B/dot=./comma=%2C"),
    ]);
}

#[test]
fn rfc_section_3_2_7_path_parameters() {
    check_expansions(&[
        ("{;who}", ";who=fred"),
        ("{;half}", ";half=50%25"),
        ("{;empty}", ";empty"),
        ("{;v,empty,who}", ";v=6;empty;who=fred"),
        ("{;v,bar,who}", ";v=6;who=fred"),
        ("{;x,y}", ";x=1024;y=768"),
        ("{;x,y,empty}", ";x=1024;y=768;empty"),
        ("{;x,y,undef}", ";x=1024;y=768"),
        ("{;hello:5}", ";hello=Hello"),
        ("{;list}", ";list=red,green,blue"),
        ("{;list*}", ";list=red;list=green;list=blue"),
        ("{;keys}", ";keys=semi,%3B,dot,.,comma,%2C"),
        ("{;keys*}", ";semi=%3B;dot=.;comma=%2C"),
    ]);
}

#[test]
fn rfc_section_3_2_8_query() {
    check_expansions(&[
        ("{?who}", "?who=fred"),
        ("{?half}", "?half=50%25"),
        ("{?x,y}", "?x=1024&y=768"),
        ("{?x,y,empty}", "?x=1024&y=768&empty="),
        ("{?x,y,undef}", "?x=1024&y=768"),
        ("{?var:3}", "?var=val"),
        ("{?list}", "?list=red,green,blue"),
        ("{?list*}", "?list=red&list=green&list=blue"),
        ("{?keys}", "?keys=semi,%3B,dot,.,comma,%2C"),
        ("{?keys*}", "?semi=%3B&dot=.&comma=%2C"),
    ]);
}

#[test]
fn rfc_section_3_2_9_query_continuation() {
    check_expansions(&[
        ("{&who}", "&who=fred"),
        ("{&half}", "&half=50%25"),
        ("?fixed=yes{&x}", "?fixed=yes&x=1024"),
        ("{&x,y,empty}", "&x=1024&y=768&empty="),
        ("{&var:3}", "&var=val"),
        ("{&list}", "&list=red,green,blue"),
        ("{&list*}", "&list=red&list=green&list=blue"),
        ("{&keys}", "&keys=semi,%3B,dot,.,comma,%2C"),
        ("{&keys*}", "&semi=%3B&dot=.&comma=%2C"),
    ]);
}

#[test]
fn expansion_encoding_details() {
    let vars = [
        ("u", "caf\u{e9} \u{2603}"),
        ("pct", "%41%zz%"),
        ("r", "a/b?c#d[e]@f!$&'()*+,;="),
    ];
    assert_eq!(t("{u}").expand(&vars), "caf%C3%A9%20%E2%98%83");
    assert_eq!(t("{+u}").expand(&vars), "caf%C3%A9%20%E2%98%83");
    // `+` keeps valid triplets and encodes a stray `%`.
    assert_eq!(t("{pct}").expand(&vars), "%2541%25zz%25");
    assert_eq!(t("{+pct}").expand(&vars), "%41%25zz%25");
    assert_eq!(
        t("{r}").expand(&vars),
        "a%2Fb%3Fc%23d%5Be%5D%40f%21%24%26%27%28%29%2A%2B%2C%3B%3D"
    );
    assert_eq!(t("{+r}").expand(&vars), "a/b?c#d[e]@f!$&'()*+,;=");
    // Prefixes count characters, not bytes, and never split a triplet with `+`.
    assert_eq!(t("{u:4}").expand(&vars), "caf%C3%A9");
    assert_eq!(t("{+pct:2}").expand(&vars), "%41%25");
    // Non-ASCII literals are percent-encoded, pct-encoded literals kept.
    assert_eq!(t("caf\u{e9}/%20{u:1}").expand(&vars), "caf%C3%A9/%20c");
    // A prefix on a composite value is ignored.
    assert_eq!(
        t("{l:1}").expand(&[("l", list(&["abc", "def"]))]),
        "abc,def"
    );
    // Explode on a string is ignored.
    assert_eq!(t("{/u*}").expand(&[("u", "a b")]), "/a%20b");
    // Named explode map with empty values uses ifemp.
    let m = [("m", map(&[("a", ""), ("b", "1")]))];
    assert_eq!(t("{;m*}").expand(&m), ";a;b=1");
    assert_eq!(t("{?m*}").expand(&m), "?a=&b=1");
    assert_eq!(t("{/m*}").expand(&m), "/a=/b=1");
    // Named explode list with an empty item.
    let l = [("l", list(&["", "x"]))];
    assert_eq!(t("{;l*}").expand(&l), ";l;l=x");
    assert_eq!(t("{?l*}").expand(&l), "?l=&l=x");
}

#[test]
fn vars_implementations() {
    let tpl = t("{a}{/b*}");
    let mut hm: HashMap<String, Value> = HashMap::new();
    hm.insert("a".into(), s("1"));
    hm.insert("b".into(), list(&["x", "y"]));
    assert_eq!(tpl.expand(&hm), "1/x/y");
    let bt: BTreeMap<&str, &str> = BTreeMap::from([("a", "1"), ("b", "2")]);
    assert_eq!(tpl.expand(&bt), "1/2");
    let v: Vec<(String, Vec<String>)> = vec![("b".into(), vec!["p".into(), "q".into()])];
    assert_eq!(tpl.expand(&v), "/p/q");
    let slice: &[(&str, &str)] = &[("a", "z")];
    assert_eq!(tpl.expand(slice), "z");
    assert_eq!(tpl.expand(&[("a", Cow::Borrowed("c"))]), "c");
    let entries = [(String::from("k"), String::from("v"))];
    assert_eq!(tpl.expand(&[("b", ValueRef::Map(&entries))]), "/k=v");
    let empty: [(&str, &str); 0] = [];
    assert_eq!(tpl.expand(&empty), "");
    assert_eq!(ValueRef::Map(&entries).to_value(), map(&[("k", "v")]));
    assert_eq!(s("a").as_str(), Some("a"));
    assert_eq!(list(&["a"]).as_list(), Some(&[String::from("a")][..]));
    assert_eq!(map(&[("k", "v")]).as_map(), Some(&entries[..]));
    assert_eq!(s("a").as_list(), None);
}
