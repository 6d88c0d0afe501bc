"""Reads a `cargo build --timings` report and prints the slowest units and the share of the
SDK's proc-macro crate (and of the crates only macros need) in the build.

    python3 timings.py target/.../cargo-timings/cargo-timing.html ours|rmcp|deps
"""
import json
import re
import sys

MACROS = {"ours": "ferromcp-macros", "rmcp": "rmcp-macros", "deps": "(no SDK)"}
# Crates a derive or attribute macro pulls in; built only because some macro needs them.
MACRO_DEPS = {"syn", "quote", "proc-macro2", "darling", "darling_core", "darling_macro",
              "serde_derive", "schemars_derive", "tokio-macros", "pin-project-internal",
              "thiserror-impl", "tracing-attributes", "async-trait", "paste"}


def main():
    path, sdk = sys.argv[1], sys.argv[2]
    with open(path, encoding="utf-8") as f:
        html = f.read()
    data = re.search(r"const UNIT_DATA = (\[.*?\]);", html, re.S)
    if not data:
        sys.exit(f"{path}: no UNIT_DATA")
    units = json.loads(data.group(1))
    wall = max(u["start"] + u["duration"] for u in units)
    busy = sum(u["duration"] for u in units)
    macro = sum(u["duration"] for u in units if u["name"] == MACROS[sdk])
    deps = sum(u["duration"] for u in units if u["name"] in MACRO_DEPS)
    print(f"timings {sdk}: {len(units)} units, {wall:.1f} s wall, {busy:.1f} s of unit time")
    print(f"timings {sdk}: {MACROS[sdk]} {macro:.1f} s ({100 * macro / busy:.1f}% of unit time); "
          f"macro-only crates (syn, quote, derives...) {deps:.1f} s ({100 * deps / busy:.1f}%)")
    for u in sorted(units, key=lambda u: -u["duration"])[:8]:
        target = u.get("target", "").strip() or "lib"
        print(f"timings {sdk}:   {u['duration']:6.1f} s  {u['name']} {u['version']} ({target})")


main()
