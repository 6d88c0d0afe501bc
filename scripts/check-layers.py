#!/usr/bin/env python3
"""Fails when the modules of a crate depend on each other in a cycle, at any depth.

Every module with submodules is checked: its submodules' dependencies on each other must
form a DAG. A module's dependencies are the paths its files name (comments left out):
`crate::a::b`, and `super::…`/`self::…` resolved from the module the path is written in
(inline modules such as `mod tests { … }` count). A path `crate::a::b::c` written in
module `a::x` is a dependency of `x` on `b` at the level of `a`; grouped imports
(`use super::{b, c::D}`) name each of their members.

    scripts/check-layers.py mcp-server/src mcp-core/src …

With no argument it checks the library of every workspace member (`cargo metadata`).

A cycle listed in ALLOWED is reported as a note rather than a failure; an entry of ALLOWED
that no longer matches a cycle fails, so the list can only shrink.
"""
import json
import os
import re
import subprocess
import sys

IDENT = r"[A-Za-z_][A-Za-z0-9_]*"
REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Known cycles, tolerated until the work named in `until` removes them: (crate source
# folder, module with submodules, the modules of the cycle) -> until. A cycle found among
# a subset of those modules is still allowed; an entry whose cycle is gone fails the run,
# so that it is deleted and the cycle cannot come back. Add nothing here: fix the cycle.
ALLOWED = {
}


def read(path):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    return re.sub(r"//[^\n]*", "", text)


class Module:
    """A module of the tree: its path from the crate root, its files, its submodules."""

    def __init__(self, path):
        self.path = path
        self.files = []
        self.children = {}


def tree(root_file):
    """The crate's module tree, read from the file layout under the root file's folder."""
    src = os.path.dirname(root_file)
    root = Module(())
    root.files.append(root_file)
    fill(root, src, skip={os.path.basename(root_file)})
    return root


def fill(module, folder, skip=()):
    if not os.path.isdir(folder):
        return
    for entry in sorted(os.listdir(folder)):
        path = os.path.join(folder, entry)
        if entry in skip or entry == "mod.rs":
            continue
        if entry.endswith(".rs"):
            name = entry[:-3]
        elif os.path.isdir(path):
            name = entry
        else:
            continue
        child = module.children.get(name)
        if child is None:
            child = module.children[name] = Module(module.path + (name,))
        if entry.endswith(".rs"):
            child.files.append(path)
        else:
            if os.path.exists(os.path.join(path, "mod.rs")):
                child.files.append(os.path.join(path, "mod.rs"))
            fill(child, path)


def walk(module):
    yield module
    for child in module.children.values():
        yield from walk(child)


def inline_modules(text):
    """(start, end, name) of each inline `mod name { … }` block of a file."""
    spans = []
    for m in re.finditer(r"\bmod\s+(" + IDENT + r")\s*\{", text):
        depth, i = 0, m.end() - 1
        while i < len(text):
            if text[i] == "{":
                depth += 1
            elif text[i] == "}":
                depth -= 1
                if depth == 0:
                    break
            i += 1
        spans.append((m.start(), i, m.group(1)))
    return spans


def group(text, i):
    """The members of a `{ … }` group opening at text[i], as lists of path segments."""
    members, depth, start = [], 0, i + 1
    j = i
    while j < len(text):
        if text[j] == "{":
            depth += 1
        elif text[j] == "}":
            depth -= 1
            if depth == 0:
                members.append(text[start:j])
                break
        elif text[j] == "," and depth == 1:
            members.append(text[start:j])
            start = j + 1
        j += 1
    out = []
    for member in members:
        member = member.strip()
        head = re.match(r"(" + IDENT + r")", member)
        if not head:
            continue
        if head.group(1) == "self":
            out.append([])
            continue
        rest = member[head.end():]
        nested = re.match(r"\s*::\s*\{", rest)
        if nested:
            for sub in group(member, head.end() + nested.end() - 1):
                out.append([head.group(1)] + sub)
        else:
            segments = re.match(r"(" + IDENT + r"(?:\s*::\s*" + IDENT + r")*)", member)
            out.append(re.split(r"\s*::\s*", segments.group(1)))
    return out


PATH = re.compile(
    r"(?<![A-Za-z0-9_:])(crate|self|super(?:\s*::\s*super)*)\s*::\s*"
    r"((?:" + IDENT + r"\s*::\s*)*)(" + IDENT + r"|\{)"
)


def references(module, text):
    """The absolute paths a module's file names."""
    spans = inline_modules(text)
    for m in PATH.finditer(text):
        here = list(module.path)
        for start, end, name in spans:
            if start < m.start() < end:
                here.append(name)
        head = m.group(1)
        if head == "crate":
            base = []
        elif head == "self":
            base = here
        else:
            ups = head.count("super")
            base = here[: max(len(here) - ups, 0)]
        prefix = [s for s in re.split(r"\s*::\s*", m.group(2)) if s]
        if m.group(3) == "{":
            for member in group(text, m.end() - 1):
                yield base + prefix + member
        else:
            yield base + prefix + [m.group(3)]


def graphs(root):
    """For each module with submodules, its submodules' dependencies on each other."""
    levels = {m.path: {name: set() for name in m.children} for m in walk(root) if m.children}
    index = {m.path: m for m in walk(root)}
    for module in walk(root):
        for path in module.files:
            for target in references(module, read(path)):
                source = module.path
                k = 0
                while k < len(source) and k < len(target) and source[k] == target[k]:
                    k += 1
                if k >= len(source) or k >= len(target):
                    continue
                parent = index.get(tuple(source[:k]))
                if parent is not None and target[k] in parent.children:
                    levels[parent.path][source[k]].add(target[k])
    return levels


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


def one_cycle(graph, component):
    """One closed walk through the component, to name in the message."""
    members = set(component)
    start = component[0]
    path, seen = [start], {start}
    node = start
    while True:
        nxt = sorted(w for w in graph[node] if w in members)
        back = [w for w in nxt if w in seen]
        if back:
            w = back[0]
            return path[path.index(w):] + [w]
        node = nxt[0]
        path.append(node)
        seen.add(node)


def allowance(folder, where, component):
    """The ALLOWED entry that covers this cycle, or None."""
    for (crate, level, modules), until in ALLOWED.items():
        if (crate, level) == (folder, where) and set(component) <= set(modules):
            return crate, level, modules, until
    return None


def check(root_file, used):
    root = tree(root_file)
    folder = os.path.relpath(os.path.dirname(os.path.abspath(root_file)), REPO)
    failed = noted = 0
    levels = graphs(root)
    for path, graph in sorted(levels.items()):
        where = "::".join(("crate",) + path)
        for component in cycles(graph):
            edges = [f"{a} -> {b}" for a in component for b in sorted(graph[a]) if b in component]
            found = (
                f"module cycle in {where}: {' -> '.join(one_cycle(graph, component))}"
                f" (all edges among {', '.join(component)}: {'; '.join(edges)})"
            )
            allowed = allowance(folder, where, component)
            if allowed:
                used.add(allowed[:3])
                noted += 1
                print(f"{root_file}: note: allowed until {allowed[3]}: {found}")
            else:
                failed += 1
                print(f"{root_file}: {found}")
    if not failed:
        but = f" but {noted} allowed" if noted else ""
        print(f"{root_file}: {len(levels)} modules with submodules, no cycles{but}")
    return failed


def stale(folders, used):
    """The ALLOWED entries of the checked crates that no cycle matched: each fails."""
    failed = 0
    for crate, level, modules in sorted(ALLOWED, key=lambda k: (k[0], k[1], sorted(k[2]))):
        if crate in folders and (crate, level, modules) not in used:
            failed += 1
            print(
                f"{crate}: allowed cycle in {level} among {', '.join(sorted(modules))} no longer"
                " exists: delete its entry from ALLOWED in scripts/check-layers.py"
            )
    return failed


def workspace_libraries():
    meta = json.loads(
        subprocess.run(
            ["cargo", "metadata", "--no-deps", "--format-version", "1"],
            check=True,
            capture_output=True,
            text=True,
        ).stdout
    )
    return [
        t["src_path"]
        for p in meta["packages"]
        for t in p["targets"]
        if set(t["kind"]) & {"lib", "proc-macro"}
    ]


def main(args):
    roots = []
    for arg in args or workspace_libraries():
        roots.append(os.path.join(arg, "lib.rs") if os.path.isdir(arg) else arg)
    used = set()
    failed = sum(check(r, used) for r in roots)
    folders = {os.path.relpath(os.path.dirname(os.path.abspath(r)), REPO) for r in roots}
    failed += stale(folders, used)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
