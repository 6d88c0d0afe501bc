//! No SDK: the dependency tree of ../ours with a trivial use of its derives and runtime.

#[derive(serde::Deserialize, schemars::JsonSchema, Debug)]
struct Point {
    x: i32,
    y: i32,
}

#[tokio::main]
async fn main() {
    let point: Result<Point, _> = serde_json::from_str(r#"{"x":1,"y":2}"#);
    let schema = schemars::schema_for!(Point);
    println!("{point:?} {}", schema.as_value());
}
