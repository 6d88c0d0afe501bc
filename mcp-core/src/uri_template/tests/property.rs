//! Generated templates: matching inverts expansion, and gives back the original values
//! when nothing is ambiguous.

use super::{Rng, metered, t};
use crate::uri_template::Value;

const OPS: [&str; 8] = ["", "+", "#", ".", "/", ";", "?", "&"];

/// Characters for values of the percent-encoding operators: anything, since everything
/// but unreserved characters is encoded (`.` aside, which `{.x}` uses as separator).
const ENCODED_ALPHABET: &[&str] = &[
    "a",
    "b",
    "z",
    "0",
    "9",
    "-",
    "_",
    "~",
    " ",
    "/",
    "?",
    "#",
    "&",
    "=",
    ",",
    ";",
    ":",
    "@",
    "!",
    "%",
    "+",
    "\u{e9}",
    "\u{2603}",
    "\u{1F600}",
    "\"",
];
/// Characters for `+`/`#` values: no reserved characters (they would be ambiguous with
/// the literals and separators around them) and no `%` (a value `%41` expands to `%41`,
/// which is also what `A` expands to).
const RESERVED_ALPHABET: &[&str] = &["a", "b", "z", "0", "9", "-", "_", "~", " ", "\u{e9}", "\""];

fn alphabet(op: &str) -> &'static [&'static str] {
    if op == "+" || op == "#" {
        RESERVED_ALPHABET
    } else {
        ENCODED_ALPHABET
    }
}

/// Characters an expansion with operator `op` can contain besides unreserved ones, `%`,
/// `,` and `=` (given the alphabets above).
fn op_chars(op: &str) -> &'static [u8] {
    match op {
        "#" => b"#",
        "." => b".",
        "/" => b"/",
        ";" => b";",
        "?" => b"?&",
        "&" => b"&",
        _ => b"",
    }
}

struct Generated {
    template: String,
    vars: Vec<(String, Value)>,
    /// What matching must give back for each variable.
    expected: Vec<(String, Option<Value>)>,
}

/// A template whose boundaries are unambiguous, with values that round-trip exactly.
fn generate_safe(rng: &mut Rng) -> Generated {
    let mut template = rng.pick(&["", "t://", "file:///", "x:"]).to_string();
    let mut vars = Vec::new();
    let mut expected = Vec::new();
    let exprs = 1 + rng.below(4);
    let mut prev_op: Option<&str> = None;
    let mut prev_explodes = false;
    let mut prev_multi = false;
    for e in 0..exprs {
        let op = *rng.pick(&OPS);
        // Separator from the previous expression: a literal, or nothing when safe.
        if let Some(prev) = prev_op {
            let first = if matches!(op, "" | "+") {
                None
            } else {
                op.as_bytes().first().copied()
            };
            let adjacent_ok = match first {
                Some(f) => {
                    !op_chars(prev).contains(&f)
                        && f != b'.'
                        && (!matches!(prev, "+" | "#") || e + 1 == exprs)
                }
                None => false,
            } || (matches!(prev, "?" | "&") && op == "&" && !prev_explodes);
            // If this expression turns out empty, the previous one runs on into what
            // follows it: that must be something it cannot contain.
            let adjacent_ok = adjacent_ok
                && (e + 1 == exprs
                    || !(matches!(prev, "+" | "#")
                        || (prev_multi && matches!(prev, "/" | ";" | "?" | "&"))));
            if !(adjacent_ok && rng.chance(40)) {
                let lits: Vec<&str> = ["/", ":", "!", "@", "$", "/x/", ":8080/", "(", "*"]
                    .into_iter()
                    .filter(|l| !op_chars(prev).contains(&l.as_bytes()[0]))
                    .collect();
                template.push_str(rng.pick::<&str>(&lits));
            }
        }
        let named = matches!(op, ";" | "?" | "&");
        let count = 1 + rng.below(3);
        let explode_at = rng.chance(40).then(|| rng.below(count));
        let mut specs = Vec::new();
        for j in 0..count {
            let name = format!("v{e}{j}");
            let explode = explode_at == Some(j);
            let prefix = (!explode && rng.chance(20)).then(|| 1 + rng.below(5));
            specs.push(match (explode, prefix) {
                (true, _) => format!("{name}*"),
                (false, Some(n)) => format!("{name}:{n}"),
                _ => name.clone(),
            });
            // Positional operators with several variables need them all defined.
            let may_be_undefined = named || count == 1;
            if may_be_undefined && rng.chance(20) {
                expected.push((name, None));
                continue;
            }
            let value = if explode {
                let maps_ok = !matches!(op, "+" | "#");
                if maps_ok && rng.chance(50) {
                    let entries = (0..1 + rng.below(3))
                        .map(|_| (format!("k{}", rng.below(10)), rng.string(alphabet(op), 4)))
                        .collect();
                    Value::Map(entries)
                } else {
                    let items = (0..1 + rng.below(3))
                        .map(|_| {
                            let mut item = rng.string(alphabet(op), 4);
                            if item.is_empty() && !named {
                                item.push('q');
                            }
                            item
                        })
                        .collect();
                    Value::List(items)
                }
            } else {
                Value::String(rng.string(alphabet(op), 6))
            };
            let want = match (&value, prefix) {
                (Value::String(v), Some(n)) => Value::String(v.chars().take(n).collect()),
                _ => value.clone(),
            };
            let want = match &want {
                Value::String(v) if v.is_empty() && count == 1 && matches!(op, "" | "+") => None,
                _ => Some(want),
            };
            expected.push((name.clone(), want));
            vars.push((name, value));
        }
        template.push_str(&format!("{{{op}{}}}", specs.join(",")));
        prev_op = Some(op);
        prev_explodes = explode_at.is_some();
        prev_multi = count > 1 || explode_at.is_some();
    }
    if rng.chance(50) {
        template.push_str(rng.pick::<&str>(&["/data", ".json", "!", "/", "#top"]));
    }
    Generated {
        template,
        vars,
        expected,
    }
}

#[test]
fn property_round_trip_unambiguous_templates() {
    let mut rng = Rng(0x5EED);
    for round in 0..5000 {
        let g = generate_safe(&mut rng);
        let tpl = t(&g.template);
        let uri = tpl.expand(&g.vars);
        let got = metered(&tpl, &uri).unwrap_or_else(|| {
            panic!(
                "round {round}: {} does not match its expansion {uri:?} of {:?}",
                g.template, g.vars
            )
        });
        assert_eq!(tpl.expand(&got), uri, "round {round}: {}", g.template);
        for (name, want) in &g.expected {
            assert_eq!(
                got.get(name),
                want.as_ref(),
                "round {round}: {name} in {} matching {uri:?} (vars {:?})",
                g.template,
                g.vars
            );
        }
    }
}

/// Any template (ambiguous ones too), any values: a match must expand back to the URI.
#[test]
fn property_matches_are_sound() {
    let mut rng = Rng(42);
    let names = ["a", "b", "c", "d"];
    let alphabet: &[&str] = &[
        "a", "b", "-", ".", "_", "~", " ", "/", "?", "#", "&", "=", ",", ";", ":", "@", "!",
        "\u{e9}", "x",
    ];
    let mut matched = 0;
    for round in 0..20_000 {
        let mut template = String::new();
        for _ in 0..1 + rng.below(4) {
            template.push_str(rng.pick::<&str>(&[
                "", "", "/", "-", ".", "a", "/x/", ":", "?", "&", "=", ",", "#",
            ]));
            let specs: Vec<String> = (0..1 + rng.below(3))
                .map(|_| {
                    let name = *rng.pick(&names);
                    match rng.below(5) {
                        0 => format!("{name}*"),
                        1 => format!("{name}:{}", 1 + rng.below(4)),
                        _ => name.to_string(),
                    }
                })
                .collect();
            template.push_str(&format!("{{{}{}}}", rng.pick(&OPS), specs.join(",")));
        }
        if rng.chance(30) {
            template.push_str(rng.pick::<&str>(&["/", "x", ".json", "?"]));
        }
        let tpl = t(&template);
        let vars: Vec<(&str, Value)> = names
            .iter()
            .filter_map(|&name| {
                let value = match rng.below(4) {
                    0 => return None,
                    1 => Value::String(rng.string(alphabet, 4)),
                    2 => Value::List((0..rng.below(3)).map(|_| rng.string(alphabet, 3)).collect()),
                    _ => Value::Map(
                        (0..rng.below(3))
                            .map(|_| (rng.string(alphabet, 2), rng.string(alphabet, 3)))
                            .collect(),
                    ),
                };
                Some((name, value))
            })
            .collect();
        let uri = tpl.expand(&vars);
        if let Some(got) = metered(&tpl, &uri) {
            matched += 1;
            assert_eq!(
                tpl.expand(&got),
                uri,
                "round {round}: {template} {vars:?} -> {got:?}"
            );
        }
        // Arbitrary mutations must not panic and stay linear.
        let mut bytes = uri.into_bytes();
        if !bytes.is_empty() {
            let i = rng.below(bytes.len());
            bytes[i] = *rng.pick(b"/%,=&?#;.a");
        }
        if let Ok(mutated) = String::from_utf8(bytes) {
            let _ = metered(&tpl, &mutated);
        }
    }
    assert!(
        matched > 6_000,
        "only {matched} of 20000 expansions matched"
    );
}
