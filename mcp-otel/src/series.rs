//! The duration histogram's series: one per method, tool or prompt, and transport, found
//! when a request starts, and holding the histogram bound to each revision and ending it
//! has recorded.
//!
//! A request finds its series with the names it borrows from its params, so it copies no
//! name; when it ends, the bound histogram for its revision and ending is one load away.
//! The SDK, given an unbound sample, looks its attribute list up in a map (hashing every
//! key and value); a bound one records straight into its buckets.

use std::borrow::Cow;
use std::collections::HashMap;
use std::hash::{BuildHasher, BuildHasherDefault, Hasher};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock, RwLock};

use ferromcp::ProtocolVersion;
use foldhash::fast::RandomState as MapHasher;
use opentelemetry::metrics::{BoundHistogram, Histogram};

use crate::samples::{Ending, Owned, Sample, Target, known_method};

/// How many attribute sets of the duration histogram are bound; samples with others are
/// recorded unbound (the SDK's own cardinality limit still applies to both).
pub(crate) const MAX_BOUND: usize = 1024;

/// The revisions a sample can name: none, or one of [`ProtocolVersion::ALL`].
const VERSIONS: usize = ProtocolVersion::ALL.len() + 1;

/// One series: a method, the tool or prompt it names, and a transport.
pub(crate) struct Series {
    method: Cow<'static, str>,
    target: Option<Owned>,
    transport: &'static str,
    /// Bound per revision (none first, then [`ProtocolVersion::ALL`]'s order) and ending
    /// (a result, then a tool error).
    bound: [OnceLock<BoundHistogram<f64>>; 2 * VERSIONS],
}

impl Series {
    fn new(method: &str, target: Option<Target<'_>>, transport: &'static str) -> Series {
        Series {
            method: known_method(method).map_or_else(|| method.to_owned().into(), Cow::Borrowed),
            target: target.map(Owned::from),
            transport,
            bound: std::array::from_fn(|_| OnceLock::new()),
        }
    }

    fn is(&self, method: &str, target: Option<Target<'_>>, transport: &'static str) -> bool {
        let target = match (target, &self.target) {
            (Some(Target::Tool(t)), Some(Owned::Tool(k)))
            | (Some(Target::Prompt(t)), Some(Owned::Prompt(k))) => t == k,
            (None, None) => true,
            _ => false,
        };
        target && same(self.transport, transport) && *self.method == *method
    }

    /// The sample this series records for a request that ended this way.
    pub(crate) fn sample(&self, version: Option<ProtocolVersion>, ending: Ending) -> Sample<'_> {
        Sample {
            method: &self.method,
            target: self.target.as_ref().map(Owned::borrow),
            transport: self.transport,
            version,
            ending,
        }
    }
}

/// Whether two of the few static attribute values are the same: the same text in one
/// place, as a value of one `match` arm always is, needs no comparison of its bytes.
fn same(a: &'static str, b: &'static str) -> bool {
    std::ptr::eq(a, b) || a == b
}

/// The series seen so far, and how many attribute sets they have bound.
///
/// Only answered requests (a result, `isError` included) make a series and are bound: their
/// method and tool or prompt exist, so their sets are as many as the server's methods,
/// tools and prompts. A request that ended in a protocol error (an unknown tool, say) is
/// recorded unbound, as the client chose its name: a bound set is never released, and with
/// delta temporality the SDK keeps a bound set's series (or the overflow series it was
/// bound to past the cardinality limit) for as long as it is bound.
pub(crate) struct SeriesMap {
    /// Each series' hash, seeded. Chosen collisions would only lengthen a list that
    /// [`MAX_BOUND`] bounds.
    hasher: MapHasher,
    series: RwLock<HashMap<u64, Vec<Arc<Series>>, BuildHasherDefault<Prehashed>>>,
    /// How many sets are bound (each series binds at least one): once [`MAX_BOUND`], no
    /// more are, and a new series takes no write lock.
    bound: AtomicUsize,
}

impl Default for SeriesMap {
    fn default() -> SeriesMap {
        SeriesMap {
            hasher: MapHasher::default(),
            series: RwLock::default(),
            bound: AtomicUsize::new(0),
        }
    }
}

impl SeriesMap {
    fn hash(&self, method: &str, target: Option<Target<'_>>, transport: &'static str) -> u64 {
        let mut h = self.hasher.build_hasher();
        h.write(method.as_bytes());
        let kind = match target {
            Some(Target::Tool(t)) => {
                h.write(t.as_bytes());
                1
            }
            Some(Target::Prompt(p)) => {
                h.write(p.as_bytes());
                2
            }
            None => 0,
        };
        // The transport by its length: `pipe` and `tcp` differ in it.
        h.write_u64(kind | (transport.len() as u64) << 2);
        h.finish()
    }

    /// The series of these names, when one was made.
    pub(crate) fn find(
        &self,
        method: &str,
        target: Option<Target<'_>>,
        transport: &'static str,
    ) -> Option<Arc<Series>> {
        let hash = self.hash(method, target, transport);
        let series = self.series.read().unwrap_or_else(|e| e.into_inner());
        series
            .get(&hash)?
            .iter()
            .find(|s| s.is(method, target, transport))
            .cloned()
    }

    /// The series of this answered sample's names, made now unless [`MAX_BOUND`] sets are
    /// bound already.
    fn find_or_add(&self, sample: &Sample<'_>) -> Option<Arc<Series>> {
        let (method, target, transport) = (sample.method, sample.target, sample.transport);
        if let Some(series) = self.find(method, target, transport) {
            return Some(series);
        }
        if self.bound.load(Ordering::Relaxed) >= MAX_BOUND {
            return None;
        }
        let hash = self.hash(method, target, transport);
        let mut map = self.series.write().unwrap_or_else(|e| e.into_inner());
        let list = map.entry(hash).or_default();
        // Another thread may have made it since the read.
        if let Some(series) = list.iter().find(|s| s.is(method, target, transport)) {
            return Some(series.clone());
        }
        let series = Arc::new(Series::new(method, target, transport));
        list.push(series.clone());
        Some(series)
    }

    /// Records one request's duration: into its series' bound histogram when it was
    /// answered (making the series or binding the set the first time), unbound otherwise.
    pub(crate) fn record(
        &self,
        histogram: &Histogram<f64>,
        found: Option<&Series>,
        sample: &Sample<'_>,
        value: f64,
    ) {
        let slot = match sample.ending {
            Ending::Ok => 0,
            Ending::ToolError => 1,
            Ending::Code(_) => return histogram.record(value, &sample.attributes()),
        };
        let version = match sample.version {
            None => Some(0),
            Some(v) => ProtocolVersion::ALL
                .iter()
                .position(|&k| k == v)
                .map(|i| i + 1),
        };
        let added;
        let series = match found {
            Some(series) => Some(series),
            None => {
                added = self.find_or_add(sample);
                added.as_deref()
            }
        };
        let (Some(series), Some(version)) = (series, version) else {
            return histogram.record(value, &sample.attributes());
        };
        let cell = &series.bound[version * 2 + slot];
        if let Some(bound) = cell.get() {
            return bound.record(value);
        }
        if self.bound.load(Ordering::Relaxed) >= MAX_BOUND {
            return histogram.record(value, &sample.attributes());
        }
        let mut made = false;
        let bound = cell.get_or_init(|| {
            made = true;
            histogram.bind(&series.sample(sample.version, sample.ending).attributes())
        });
        if made {
            self.bound.fetch_add(1, Ordering::Relaxed);
        }
        bound.record(value);
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
