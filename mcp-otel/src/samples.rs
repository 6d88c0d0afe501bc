//! What a request records: its target, the attributes its span and its duration sample
//! share, how it ended, and the duration histogram's samples, each bound to its attribute
//! set once.

use std::collections::HashMap;
use std::hash::{BuildHasher, BuildHasherDefault, Hash, Hasher};
use std::sync::RwLock;
use std::sync::atomic::{AtomicUsize, Ordering};

use ferromcp::ProtocolVersion;
use opentelemetry::metrics::{BoundHistogram, Histogram};
use opentelemetry::{KeyValue, Value};

use foldhash::fast::RandomState as MapHasher;

/// The method names the conventions list (and the 2026 ones), as static strings: an
/// attribute value that costs no allocation.
pub(crate) fn known_method(method: &str) -> Option<&'static str> {
    const KNOWN: [&str; 22] = [
        "tools/call",
        "tools/list",
        "resources/read",
        "resources/list",
        "resources/templates/list",
        "resources/subscribe",
        "resources/unsubscribe",
        "prompts/get",
        "prompts/list",
        "completion/complete",
        "initialize",
        "ping",
        "logging/setLevel",
        "server/discover",
        "subscriptions/listen",
        "tasks/get",
        "tasks/result",
        "tasks/list",
        "tasks/cancel",
        "tasks/update",
        "notifications/initialized",
        "notifications/cancelled",
    ];
    KNOWN.into_iter().find(|m| *m == method)
}

/// What a request is about: the tool or prompt it names.
#[derive(Clone, Copy)]
pub(crate) enum Target<'a> {
    Tool(&'a str),
    Prompt(&'a str),
}

/// [`Target`], owned by the request's telemetry.
pub(crate) enum Owned {
    Tool(String),
    Prompt(String),
}

impl Owned {
    pub(crate) fn borrow(&self) -> Target<'_> {
        match self {
            Owned::Tool(t) => Target::Tool(t),
            Owned::Prompt(p) => Target::Prompt(p),
        }
    }
}

/// The attributes a request's span and its duration sample share: the method, the
/// transport, and the tool or prompt (room is left for the others).
pub(crate) fn shared_attributes(
    method: &str,
    transport: &'static str,
    target: Option<Target<'_>>,
) -> Vec<KeyValue> {
    let mut attributes = Vec::with_capacity(8);
    let method = known_method(method).map_or_else(|| Value::from(method.to_owned()), Value::from);
    attributes.push(KeyValue::new("mcp.method.name", method));
    attributes.push(KeyValue::new("network.transport", transport));
    match target {
        Some(Target::Tool(tool)) => {
            attributes.push(KeyValue::new("gen_ai.operation.name", "execute_tool"));
            attributes.push(KeyValue::new("gen_ai.tool.name", tool.to_owned()));
        }
        Some(Target::Prompt(prompt)) => {
            attributes.push(KeyValue::new("gen_ai.prompt.name", prompt.to_owned()));
        }
        None => {}
    }
    attributes
}

/// How a request ended, as the duration histogram tells them apart.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Ending {
    Ok,
    /// A `tools/call` result with `isError: true`.
    ToolError,
    /// A JSON-RPC error response with this code.
    Code(i64),
}

/// The attributes of one duration sample, borrowed from the request.
#[derive(Clone, Copy)]
pub(crate) struct Sample<'a> {
    pub(crate) method: &'a str,
    pub(crate) target: Option<Target<'a>>,
    pub(crate) transport: &'static str,
    pub(crate) version: Option<ProtocolVersion>,
    pub(crate) ending: Ending,
}

impl Sample<'_> {
    /// The attributes the sample is recorded with.
    pub(crate) fn attributes(&self) -> Vec<KeyValue> {
        let mut attributes = shared_attributes(self.method, self.transport, self.target);
        self.ending_attributes(true, |kv| attributes.push(kv));
        attributes
    }

    /// The attributes known only when the request has ended: the protocol revision (unless
    /// not `with_version`) and the error, if any.
    pub(crate) fn ending_attributes(&self, with_version: bool, mut add: impl FnMut(KeyValue)) {
        if let (true, Some(version)) = (with_version, self.version) {
            add(KeyValue::new("mcp.protocol.version", version.as_str()));
        }
        match self.ending {
            Ending::Ok => {}
            Ending::ToolError => add(KeyValue::new("error.type", "tool_error")),
            Ending::Code(code) => {
                let code = code.to_string();
                add(KeyValue::new("error.type", code.clone()));
                add(KeyValue::new("rpc.response.status_code", code));
            }
        }
    }

    /// Hashes what tells samples apart, as few words as it can: equal samples must hash the
    /// same, unequal ones only rarely do, and [`Sample::is`] settles it.
    pub(crate) fn hash_into(&self, h: &mut impl Hasher) {
        h.write(self.method.as_bytes());
        let (kind, target) = match self.target {
            Some(Target::Tool(t)) => (1, t),
            Some(Target::Prompt(p)) => (2, p),
            None => (0, ""),
        };
        if kind != 0 {
            h.write(target.as_bytes());
        }
        let version = self
            .version
            .and_then(|v| ProtocolVersion::ALL.iter().position(|&known| known == v))
            .map_or(0, |i| i as u64 + 1);
        let (ending, code) = match self.ending {
            Ending::Ok => (0, 0),
            Ending::ToolError => (1, 0),
            Ending::Code(code) => (2, code),
        };
        // The transport by its length: `pipe` and `tcp` differ in it.
        let packed = kind | version << 2 | ending << 6 | (self.transport.len() as u64) << 8;
        h.write_u64(packed);
        if code != 0 {
            h.write_i64(code);
        }
    }

    pub(crate) fn is(&self, key: &SampleKey) -> bool {
        let target = match (self.target, &key.target) {
            (Some(Target::Tool(t)), Some((true, k)))
            | (Some(Target::Prompt(t)), Some((false, k))) => t == &**k,
            (None, None) => true,
            _ => false,
        };
        self.ending == key.ending
            && self.version == key.version
            && same(self.transport, key.transport)
            && target
            && *self.method == *key.method
    }

    pub(crate) fn key(&self) -> SampleKey {
        SampleKey {
            method: self.method.into(),
            target: match self.target {
                Some(Target::Tool(t)) => Some((true, t.into())),
                Some(Target::Prompt(p)) => Some((false, p.into())),
                None => None,
            },
            transport: self.transport,
            version: self.version,
            ending: self.ending,
        }
    }
}

/// A [`Sample`]'s attributes, owned.
pub(crate) struct SampleKey {
    method: Box<str>,
    /// `true` for a tool, `false` for a prompt.
    target: Option<(bool, Box<str>)>,
    transport: &'static str,
    version: Option<ProtocolVersion>,
    ending: Ending,
}

/// Whether two of the few static attribute values are the same: the same text in one
/// place, as a value of one `match` arm always is, needs no comparison of its bytes.
pub(crate) fn same(a: &'static str, b: &'static str) -> bool {
    std::ptr::eq(a, b) || a == b
}

/// How many attribute sets of the duration histogram are bound; samples with others are
/// recorded unbound (the SDK's own cardinality limit still applies to both).
pub(crate) const MAX_BOUND: usize = 1024;

/// A histogram bound to each attribute set it has recorded, up to [`MAX_BOUND`] of them:
/// the SDK looks an unbound sample's attributes up in a map keyed by the whole attribute
/// list (hashing every key and value), where a bound one records straight into its
/// buckets. Finding the bound histogram hashes the few parts of a [`Sample`] once.
///
/// Only answered requests (a result, `isError` included) are bound: their method and tool
/// or prompt exist, so their sets are as many as the server's methods, tools and prompts.
/// A request that ended in a protocol error (an unknown tool, say) is recorded unbound, as
/// the client chose its name: a bound set is never released, and with delta temporality
/// the SDK keeps a bound set's series (or the overflow series it was bound to past the
/// cardinality limit) for as long as it is bound.
pub(crate) struct BoundSamples {
    /// Each sample's hash, seeded. Chosen collisions would only lengthen a list that
    /// [`MAX_BOUND`] bounds.
    hasher: MapHasher,
    bound: RwLock<BoundMap>,
    /// How many are bound: once [`MAX_BOUND`], a new attribute set takes no write lock.
    len: AtomicUsize,
}

pub(crate) type BoundMap =
    HashMap<u64, Vec<(SampleKey, BoundHistogram<f64>)>, BuildHasherDefault<Prehashed>>;

impl Default for BoundSamples {
    fn default() -> BoundSamples {
        BoundSamples {
            hasher: MapHasher::default(),
            bound: RwLock::default(),
            len: AtomicUsize::new(0),
        }
    }
}

impl BoundSamples {
    pub(crate) fn record(&self, histogram: &Histogram<f64>, sample: &Sample<'_>, value: f64) {
        let mut h = self.hasher.build_hasher();
        sample.hash_into(&mut h);
        let hash = h.finish();
        {
            let bound = self.bound.read().unwrap_or_else(|e| e.into_inner());
            if let Some((_, b)) = bound
                .get(&hash)
                .and_then(|list| list.iter().find(|(key, _)| sample.is(key)))
            {
                b.record(value);
                return;
            }
        }
        let attributes = sample.attributes();
        if matches!(sample.ending, Ending::Code(_)) || self.len.load(Ordering::Relaxed) >= MAX_BOUND
        {
            histogram.record(value, &attributes);
            return;
        }
        let mut bound = self.bound.write().unwrap_or_else(|e| e.into_inner());
        let list = bound.entry(hash).or_default();
        // Another thread may have bound it since the read.
        if let Some((_, b)) = list.iter().find(|(key, _)| sample.is(key)) {
            b.record(value);
            return;
        }
        let b = histogram.bind(&attributes);
        b.record(value);
        list.push((sample.key(), b));
        self.len.fetch_add(1, Ordering::Relaxed);
    }
}

/// A hasher for keys that are hashes already.
#[derive(Default)]
pub(crate) struct Prehashed(u64);

impl Hasher for Prehashed {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(*b);
        }
    }

    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }
}
