//! `UriTemplate::matches`: how `resources/read` finds the template a URI belongs to. A
//! server tries its templates in turn, so the non-matching case costs as much as the
//! matching one.

// Like tests, benchmarks stop loudly on a broken setup.
#![allow(clippy::expect_used)]

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use ferromcp_core::uri_template::UriTemplate;

fn matching(c: &mut Criterion) {
    let cases = [
        (
            "simple",
            "test://template/{id}/data",
            "test://template/12345/data",
            "test://template/12345/meta",
        ),
        (
            "reserved",
            "file:///{+path}",
            "file:///home/me/projects/mcp/src/uri_template/matcher.rs",
            "http://home/me/projects/mcp/src/uri_template/matcher.rs",
        ),
        (
            "query",
            "repo://{owner}/{repo}/issues{?state,labels}",
            "repo://octo%20cat/hello-world/issues?labels=bug,ui&state=open",
            "repo://octo%20cat/hello-world/pulls?labels=bug,ui&state=open",
        ),
    ];
    let mut group = c.benchmark_group("uri_template_matches");
    for (name, template, hit, miss) in cases {
        let template = UriTemplate::parse(template).expect("a valid template");
        assert!(template.matches(hit).is_some(), "{hit}");
        assert!(template.matches(miss).is_none(), "{miss}");
        group.bench_function(format!("{name}_hit"), |b| {
            b.iter(|| template.matches(black_box(hit)))
        });
        group.bench_function(format!("{name}_miss"), |b| {
            b.iter(|| template.matches(black_box(miss)))
        });
    }
    group.finish();
}

criterion_group!(benches, matching);
criterion_main!(benches);
