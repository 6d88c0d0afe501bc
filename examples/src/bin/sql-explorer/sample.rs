//! The sample shop database: customers, products, orders and their items, generated
//! deterministically (same rows on every machine), as one SQL script that both SQLite and
//! PostgreSQL run unchanged.

use std::fmt::Write as _;

/// How many rows each table gets.
pub const CUSTOMERS: usize = 60;
/// See [`CUSTOMERS`].
pub const PRODUCTS: usize = 40;
/// See [`CUSTOMERS`].
pub const ORDERS: usize = 250;

const SCHEMA: &str = "
CREATE TABLE customers (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    email TEXT NOT NULL UNIQUE,
    country TEXT NOT NULL,
    created_on DATE NOT NULL
);
CREATE TABLE products (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    category TEXT NOT NULL,
    price NUMERIC(10, 2) NOT NULL CHECK (price > 0),
    stock INTEGER NOT NULL
);
CREATE TABLE orders (
    id INTEGER PRIMARY KEY,
    customer_id INTEGER NOT NULL REFERENCES customers (id),
    ordered_on DATE NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('pending', 'shipped', 'delivered', 'cancelled'))
);
CREATE TABLE order_items (
    order_id INTEGER NOT NULL REFERENCES orders (id),
    product_id INTEGER NOT NULL REFERENCES products (id),
    quantity INTEGER NOT NULL CHECK (quantity > 0),
    unit_price NUMERIC(10, 2) NOT NULL,
    PRIMARY KEY (order_id, product_id)
);
CREATE INDEX orders_customer_id ON orders (customer_id);
CREATE INDEX orders_ordered_on ON orders (ordered_on);
CREATE INDEX order_items_product_id ON order_items (product_id);
";

const FIRST: [&str; 12] = [
    "Ada", "Grace", "Alan", "Edsger", "Barbara", "Donald", "Frances", "John", "Margaret", "Ken",
    "Radia", "Niklaus",
];
const LAST: [&str; 10] = [
    "Lovelace", "Hopper", "Turing", "Dijkstra", "Liskov", "Knuth", "Allen", "Backus", "Hamilton",
    "O'Neil",
];
const COUNTRIES: [&str; 6] = ["DE", "FR", "GB", "JP", "NL", "US"];
const CATEGORIES: [(&str, [&str; 5]); 4] = [
    ("books", ["Atlas", "Cookbook", "Novel", "Poems", "Handbook"]),
    ("garden", ["Rake", "Hose", "Shears", "Planter", "Seeds"]),
    ("kitchen", ["Kettle", "Whisk", "Pan", "Knife", "Grater"]),
    ("toys", ["Kite", "Puzzle", "Yo-yo", "Robot", "Blocks"]),
];
const STATUSES: [&str; 4] = ["pending", "shipped", "delivered", "cancelled"];

/// A small linear congruential generator: deterministic, and good enough for sample data.
struct Lcg(u64);

impl Lcg {
    fn below(&mut self, n: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        // The high bits are the well-mixed ones.
        ((self.0 >> 33) % n as u64) as usize
    }
}

fn quoted(s: &str) -> String {
    format!("'{}'", s.replace('\'', "''"))
}

/// Day `n` (from 0) of the leap year 2024 as `YYYY-MM-DD`.
fn day(n: usize) -> String {
    const MONTHS: [usize; 12] = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
    let mut rest = n % 366;
    for (month, days) in MONTHS.iter().enumerate() {
        if rest < *days {
            return format!("2024-{:02}-{:02}", month + 1, rest + 1);
        }
        rest -= days;
    }
    "2024-12-31".to_owned()
}

/// Cents as a decimal literal: `1999` → `19.99`.
fn money(cents: usize) -> String {
    format!("{}.{:02}", cents / 100, cents % 100)
}

/// The schema, its rows and indexes, as one script of `;`-separated statements.
pub fn script() -> String {
    let mut rng = Lcg(0x5eed);
    let mut sql = String::from(SCHEMA);

    let customers: Vec<String> = (1..=CUSTOMERS)
        .map(|id| {
            let first = FIRST[rng.below(FIRST.len())];
            let last = LAST[rng.below(LAST.len())];
            let email = format!(
                "{}.{}{id}@example.com",
                first.to_lowercase(),
                last.to_lowercase().replace('\'', "")
            );
            format!(
                "({id}, {}, {}, {}, {})",
                quoted(&format!("{first} {last}")),
                quoted(&email),
                quoted(COUNTRIES[rng.below(COUNTRIES.len())]),
                quoted(&day(rng.below(200)))
            )
        })
        .collect();
    insert(&mut sql, "customers", &customers);

    let mut prices = Vec::with_capacity(PRODUCTS);
    let products: Vec<String> = (1..=PRODUCTS)
        .map(|id| {
            let (category, names) = CATEGORIES[(id - 1) % CATEGORIES.len()];
            let name = format!("{} {}", names[(id - 1) / CATEGORIES.len() % 5], id);
            let cents = 199 + rng.below(120) * 50;
            prices.push(cents);
            format!(
                "({id}, {}, {}, {}, {})",
                quoted(&name),
                quoted(category),
                money(cents),
                rng.below(80)
            )
        })
        .collect();
    insert(&mut sql, "products", &products);

    let mut orders = Vec::with_capacity(ORDERS);
    let mut items = Vec::new();
    for id in 1..=ORDERS {
        orders.push(format!(
            "({id}, {}, {}, {})",
            1 + rng.below(CUSTOMERS),
            quoted(&day(200 + rng.below(160))),
            quoted(STATUSES[rng.below(STATUSES.len())])
        ));
        // One to four distinct products per order.
        let first = rng.below(PRODUCTS);
        let step = 1 + rng.below(7);
        for k in 0..1 + rng.below(4) {
            let product = (first + k * step) % PRODUCTS;
            items.push(format!(
                "({id}, {}, {}, {})",
                product + 1,
                1 + rng.below(3),
                money(prices[product])
            ));
        }
    }
    insert(&mut sql, "orders", &orders);
    insert(&mut sql, "order_items", &items);
    sql
}

fn insert(sql: &mut String, table: &str, rows: &[String]) {
    for chunk in rows.chunks(100) {
        let _ = writeln!(sql, "INSERT INTO {table} VALUES\n{};", chunk.join(",\n"));
    }
}
