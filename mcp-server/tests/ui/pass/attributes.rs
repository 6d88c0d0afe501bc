//! The method attributes work without being imported, with an explicit import (which then
//! counts as used), and under `#[cfg]`, which removes a method and everything generated for
//! it.
#![deny(warnings, unused_qualifications, unreachable_pub)]
// A test program (harness = false): an unwrap that fails is the test failing; clippy's
// allow-unwrap-in-tests does not reach a target without the test harness.
// `#[cfg(all())]` and `#[cfg(any())]` are the point: items kept and removed by `cfg`.
#![allow(clippy::unwrap_used, clippy::non_minimal_cfg)]

mod bare {
    // No import at all: `#[server]` treats the method attributes as its own.
    pub(crate) struct Bare;

    #[ferromcp::server]
    impl Bare {
        /// Adds.
        #[tool]
        fn add(&self, a: i64, b: i64) -> String {
            (a + b).to_string()
        }

        /// The version.
        #[resource(uri = "bare://version")]
        fn version(&self) -> String {
            "1".to_owned()
        }

        /// One item.
        #[resource(uri = "bare://items/{id}")]
        fn item(&self, id: u32) -> String {
            id.to_string()
        }

        /// Asks.
        #[prompt]
        fn ask(&self, topic: String) -> String {
            topic
        }

        #[completion(prompt = "ask", argument = "topic")]
        fn topics(&self, value: String) -> Vec<String> {
            vec![value]
        }
    }
}

mod explicit {
    // An explicit import stays used (no `unused_imports` under `deny(warnings)`).
    use ferromcp::tool;

    pub(crate) struct Explicit;

    #[ferromcp::server]
    impl Explicit {
        /// Echoes.
        #[tool]
        fn echo(&self, text: String) -> String {
            text
        }
    }
}

mod conditional {
    pub(crate) struct Conditional;

    #[ferromcp::server]
    impl Conditional {
        /// On every platform.
        #[tool]
        fn always(&self) -> String {
            String::new()
        }

        /// Compiled out: its name may repeat another's, and its types need not exist.
        #[cfg(any())]
        #[tool(name = "always")]
        fn never(&self, missing: NoSuchType) -> String {
            String::new()
        }

        /// Compiled in.
        #[cfg(all())]
        #[tool]
        fn kept(&self) -> String {
            String::new()
        }

        /// A resource compiled out with its URI.
        #[cfg(any())]
        #[resource(uri = "conditional://x")]
        fn gone(&self) -> String {
            String::new()
        }
    }
}

fn main() {
    let server = ferromcp::Server::new(bare::Bare).unwrap();
    assert_eq!(server.registry().tool_names(), ["add"]);
    let server = ferromcp::Server::new(explicit::Explicit).unwrap();
    assert_eq!(server.registry().tool_names(), ["echo"]);
    let server = ferromcp::Server::new(conditional::Conditional).unwrap();
    assert_eq!(server.registry().tool_names(), ["always", "kept"]);
}
