use ferromcp::prelude::*;

struct Db;

struct S;

#[ferromcp::server]
impl S {
    /// A note; `db` is named after no variable, so it is an extractor, and `Db` is none.
    #[resource(uri = "notes://{id}")]
    fn note(&self, id: u64, db: Db) -> String {
        let _ = db;
        id.to_string()
    }
}

fn main() {}
