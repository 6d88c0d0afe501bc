#!/usr/bin/env python3
"""Fails when the top-level modules of a crate depend on each other in a cycle.

A module's dependencies are the `crate::NAME` paths in its files (its own file or folder),
comments left out. The crate's layers, as docs/design.md draws them, must stay a DAG:

    scripts/check-layers.py mcp-server/src
"""
import os
import re
import sys


def modules(src):
    """Maps each top-level module name to the text of its files."""
    found = {}
    for entry in sorted(os.listdir(src)):
        path = os.path.join(src, entry)
        if entry.endswith(".rs") and entry not in ("lib.rs", "main.rs"):
            found[entry[:-3]] = read(path)
        elif os.path.isdir(path):
            found[entry] = "".join(
                read(os.path.join(d, f))
                for d, _, files in os.walk(path)
                for f in files
                if f.endswith(".rs")
            )
    return found


def read(path):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    return re.sub(r"//[^\n]*", "", text)


def cycles(graph):
    """The strongly connected components of more than one module (Tarjan)."""
    index, low, stack, on_stack, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def main(src):
    mods = modules(src)
    graph = {
        name: {dep for dep in re.findall(r"\bcrate::([a-z_]+)", text) if dep in mods and dep != name}
        for name, text in mods.items()
    }
    found = cycles(graph)
    for component in found:
        edges = [f"{a} -> {b}" for a in component for b in sorted(graph[a]) if b in component]
        print(f"{src}: module cycle among {', '.join(component)}: {'; '.join(edges)}")
    if found:
        return 1
    print(f"{src}: {len(mods)} top-level modules, no cycles")
    return 0


if __name__ == "__main__":
    sys.exit(max(main(src) for src in sys.argv[1:] or ["mcp-server/src"]))
