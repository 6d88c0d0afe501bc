//! `to_string` against serde_json, byte for byte.

use super::escape::LARGE;
use super::*;
use serde_json::{Value, json, value::RawValue};
use std::collections::BTreeMap;

fn same<T: Serialize + ?Sized>(value: &T) {
    assert_eq!(
        to_string(value).unwrap(),
        serde_json::to_string(value).unwrap()
    );
}

/// A large string leaves room for what follows it: the message is written into one
/// buffer a little larger than itself, not one doubled by the first byte after it.
#[test]
fn a_large_string_leaves_room_after_it() {
    for len in [LARGE, 100_000, 1 << 20] {
        let value =
            json!({"content": [{"type": "text", "text": "x".repeat(len)}], "isError": false});
        let text = to_string(&value).unwrap();
        assert_eq!(text, serde_json::to_string(&value).unwrap());
        assert!(
            text.capacity() <= text.len() + text.len() / 8 + 512,
            "{len}: {} for {}",
            text.capacity(),
            text.len()
        );
    }
}

#[test]
fn every_byte_value_escapes_as_serde_json_escapes_it() {
    for b in 0u8..128 {
        let c = char::from(b);
        same(&c);
        // At each offset of a word, so the byte lands in every lane and in the tail.
        for pad in 0..17 {
            let s = format!("{}{c}{}", "a".repeat(pad), "b".repeat(16 - pad));
            same(&s);
            same(&json!({ s.clone(): s }));
        }
    }
}

#[test]
fn every_pair_of_ascii_bytes_in_every_lane() {
    // A borrow in the word test marks the byte after a match (a space after a control,
    // `#` after `"`, `]` after `\`): each pair, at each offset, must still come out right.
    for x in 0u8..128 {
        for y in 0u8..128 {
            let pair = [char::from(x), char::from(y)];
            for pad in [0, 3, 6, 7] {
                let s: String = std::iter::repeat_n('a', pad)
                    .chain(pair)
                    .chain(std::iter::repeat_n('z', 10 - pad))
                    .collect();
                assert_eq!(to_string(&s).ok(), serde_json::to_string(&s).ok(), "{s:?}");
            }
        }
    }
}

#[test]
fn strings_of_every_length_with_escapes_and_multibyte_text() {
    let pieces = [
        "a",
        "é",
        "\u{1F600}",
        "\"",
        "\\",
        "\n",
        "\u{7f}",
        "\u{0}",
        "\u{1f}",
        "ÿ",
    ];
    let mut s = String::new();
    for n in 0..300 {
        s.push_str(pieces[(n * 7 + n / 3) % pieces.len()]);
        same(&s);
    }
    same(&"x".repeat(100_000));
    // A byte with the high bit set next to each special byte (the borrow cases).
    for special in ['"', '\\', '\u{1}', ' ', '!', '#', '[', ']'] {
        same(&format!("\u{80}{special}\u{ff}{special}ééééééé{special}"));
    }
}

#[derive(serde::Serialize)]
enum Shape {
    Unit,
    Newtype(u8),
    Tuple(i32, String),
    Struct { x: f64, y: Option<bool> },
}

#[derive(serde::Serialize)]
struct Everything<'a> {
    b: bool,
    ints: (i8, i16, i32, i64, i128, u8, u16, u32, u64, u128),
    floats: Vec<f64>,
    single: Vec<f32>,
    ch: char,
    #[serde(with = "serde_bytes_like")]
    bytes: &'a [u8],
    none: Option<u8>,
    unit: (),
    shapes: Vec<Shape>,
    keyed: BTreeMap<i64, &'a str>,
    by_bool: BTreeMap<bool, u8>,
    by_char: BTreeMap<char, u8>,
    raw: &'a RawValue,
    value: Value,
    #[serde(skip_serializing_if = "Option::is_none")]
    skipped: Option<u8>,
    empty_seq: Vec<u8>,
    empty_map: BTreeMap<String, u8>,
}

mod serde_bytes_like {
    pub(super) fn serialize<S: serde::Serializer>(v: &[u8], s: S) -> Result<S::Ok, S::Error> {
        s.serialize_bytes(v)
    }
}

#[test]
fn nested_values_numbers_keys_enums_and_raw_values_match_serde_json() {
    let raw = RawValue::from_string(r#"{"a" : [1, 2 ,"x"]}"#.into()).unwrap();
    let value = Everything {
        b: true,
        ints: (
            i8::MIN,
            -300,
            i32::MAX,
            i64::MIN,
            i128::MIN,
            255,
            0,
            7,
            u64::MAX,
            u128::MAX,
        ),
        floats: vec![
            0.0,
            -0.0,
            1.5,
            1e300,
            1e-7,
            f64::NAN,
            f64::INFINITY,
            0.1 + 0.2,
        ],
        single: vec![0.1, f32::MAX, f32::NEG_INFINITY],
        ch: '"',
        bytes: &[0, 1, 255],
        none: None,
        unit: (),
        shapes: vec![
            Shape::Unit,
            Shape::Newtype(3),
            Shape::Tuple(-1, "t\t".into()),
            Shape::Struct {
                x: 2.5,
                y: Some(false),
            },
            Shape::Struct { x: -0.0, y: None },
        ],
        keyed: [(-1, "minus"), (10, "ten")].into(),
        by_bool: [(true, 1), (false, 0)].into(),
        by_char: [('\n', 1), ('k', 2)].into(),
        raw: &raw,
        value: json!({"z": [null, true, {"deep": ["\u{2028}", 1.0e10, -5]}], "": {}}),
        skipped: None,
        empty_seq: vec![],
        empty_map: BTreeMap::new(),
    };
    same(&value);
    same(&[Shape::Unit]);
    same(&Option::<Shape>::None);
}

#[test]
fn keys_serde_json_refuses_are_refused() {
    let by_unit: BTreeMap<(), u8> = [((), 1)].into();
    assert!(serde_json::to_string(&by_unit).is_err());
    assert!(to_string(&by_unit).is_err());
    let mut by_float: Vec<(f64, u8)> = vec![(1.5, 1)];
    let map = |v: &Vec<(f64, u8)>| {
        struct M<'a>(&'a [(f64, u8)]);
        impl Serialize for M<'_> {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.collect_map(self.0.iter().map(|(k, v)| (k, v)))
            }
        }
        (to_string(&M(v)).ok(), serde_json::to_string(&M(v)).ok())
    };
    let (ours, theirs) = map(&by_float);
    assert_eq!(ours, theirs);
    assert_eq!(ours.as_deref(), Some(r#"{"1.5":1}"#));
    by_float[0].0 = f64::NAN;
    assert_eq!(map(&by_float), (None, None));
}
