//! Matching stays linear in the worst cases: counted work, not timing.

use super::{Rng, metered, t};
use crate::uri_template::{MAX_EXPRESSIONS, MAX_URI_LEN, Value};

/// A 64 KiB string of characters drawn from `alphabet`.
fn noise(rng: &mut Rng, alphabet: &[u8], len: usize) -> String {
    (0..len)
        .map(|_| char::from(alphabet[rng.below(alphabet.len())]))
        .collect()
}

#[test]
fn redos_regression_path_explode() {
    let tpl = t("{/id*}");
    assert!(metered(&tpl, &format!("/{}", ",".repeat(50))).is_none());
    assert!(metered(&tpl, &format!("/{}", ",".repeat(MAX_URI_LEN - 1))).is_none());
    let mut rng = Rng(7);
    let uri = noise(&mut rng, b"/,", MAX_URI_LEN);
    assert_eq!(uri.len(), MAX_URI_LEN);
    assert!(metered(&tpl, &uri).is_none());
    assert!(metered(&tpl, &"/,".repeat(MAX_URI_LEN / 2)).is_none());
    // The same shape with valid segments matches, in one pass.
    let uri = "/a".repeat(MAX_URI_LEN / 2);
    let got = metered(&tpl, &uri).unwrap();
    assert_eq!(
        got.get("id").and_then(Value::as_list).map(<[String]>::len),
        Some(MAX_URI_LEN / 2)
    );
    let got = metered(&tpl, &"/".repeat(MAX_URI_LEN)).unwrap();
    assert_eq!(
        got.get("id").and_then(Value::as_list).map(<[String]>::len),
        Some(MAX_URI_LEN)
    );
    let tpl = t("x{/id*}y");
    assert!(metered(&tpl, &format!("x{}", "/,".repeat(MAX_URI_LEN / 2 - 1))).is_none());
}

#[test]
fn adversarial_many_expressions() {
    let mut rng = Rng(11);
    let ops = ["", "+", "#", ".", "/", ";", "?", "&"];
    let adjacent: String = (0..MAX_EXPRESSIONS)
        .map(|i| format!("{{{}v{i}}}", ops[i % ops.len()]))
        .collect();
    let simple: String = (0..MAX_EXPRESSIONS).map(|i| format!("{{v{i}}}")).collect();
    let named: String = (0..MAX_EXPRESSIONS)
        .map(|i| format!("{{&v{i},w{i}}}"))
        .collect();
    let literals: String = (0..MAX_EXPRESSIONS)
        .map(|i| format!("{{v{i}}}aaaaaaab"))
        .collect();
    let plus_lit: String = (0..MAX_EXPRESSIONS)
        .map(|i| format!("{{+v{i}}}/x"))
        .collect();
    let paths: String = (0..MAX_EXPRESSIONS)
        .map(|i| format!("{{/v{i}*}}/"))
        .collect();
    let queries = format!(
        "{{?{}}}",
        (0..3000)
            .map(|i| format!("v{i}"))
            .collect::<Vec<_>>()
            .join(",")
    );
    let templates = [adjacent, simple, named, literals, plus_lit, paths, queries];
    let alphabets: [&[u8]; 6] = [b"a", b"a,", b"/,", b".;/?&=#,a", b"&v1=", b"ab/x%41"];
    for template in &templates {
        let tpl = t(template);
        for alphabet in alphabets {
            let uri = noise(&mut rng, alphabet, MAX_URI_LEN);
            let _ = metered(&tpl, &uri);
        }
        let _ = metered(&tpl, &"a".repeat(MAX_URI_LEN - 1));
        let _ = metered(&tpl, &"aaaaaaab".repeat(MAX_URI_LEN / 8));
        let _ = metered(&tpl, &format!("?{}", "v1=1&".repeat(MAX_URI_LEN / 5 - 1)));
        let _ = metered(&tpl, &format!("&q={}", "x".repeat(MAX_URI_LEN - 3)));
        let _ = metered(&tpl, &"/x".repeat(MAX_URI_LEN / 2));
    }
    // A few of these do match, in one pass.
    assert!(metered(&t(&templates[1]), &"a".repeat(MAX_URI_LEN)).is_some());
    let uri = "aaaaaaab".repeat(MAX_EXPRESSIONS);
    assert_eq!(metered(&t(&templates[3]), &uri).map(|m| m.len()), Some(0));
    let uri = "q/x".repeat(MAX_EXPRESSIONS);
    assert_eq!(
        metered(&t(&templates[4]), &uri).map(|m| m.len()),
        Some(MAX_EXPRESSIONS)
    );
}

#[test]
fn adversarial_literal_search() {
    // KMP worst cases: long literals with self-overlapping prefixes.
    let lit = "a".repeat(1000) + "b";
    let tpl = t(&format!("{{x}}{lit}{{y}}{lit}"));
    let _ = metered(&tpl, &"a".repeat(MAX_URI_LEN));
    let uri = format!("{}{lit}c{lit}", "a".repeat(30_000));
    assert!(metered(&tpl, &uri).is_some());
    let tpl = t(&format!("{{+x}}{}/{{+y}}", "ab".repeat(500)));
    let _ = metered(&tpl, &"ab".repeat(MAX_URI_LEN / 2));
    let _ = metered(&tpl, &format!("{}/", "ab".repeat(MAX_URI_LEN / 2 - 1)));
}
