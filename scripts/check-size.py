#!/usr/bin/env python3
"""Fails when a library source file is over 600 lines or holds a function over 80 lines.

The library crates are the workspace members with a `src/lib.rs` that are published (no
`publish = false`): ferromcp, ferromcp-core, ferromcp-macros and any later one. A file's size
is `wc -l` (every line). A function runs from its `fn` line to its closing brace. Test code is
exempt from the function rule: `#[cfg(test)]` items, the files such an item names
(`#[cfg(test)] mod tests;`) and files under a `tests/` folder.

    scripts/check-size.py            # the library crates of the workspace
    scripts/check-size.py DIR...     # only these source folders

Each violation prints as `path:line fn name: N lines` or `path: N lines`. Rust is read with a
small tokenizer, so braces inside strings, raw strings, char literals and comments do not count.
"""
import os
import re
import sys

MAX_FILE_LINES = 600
MAX_FN_LINES = 80

# Functions that are data rather than logic, with the reason. Key: "path fn name".
GENERATED = {}

# Known violations being split (empty now: keep it so). This list may only shrink: an entry
# that no longer fails the rule is itself reported, so that it is removed (an entry whose file
# is gone only gets a note).
# Key: "path" for a file over the limit, "path fn name" for a function.
ALLOWED = set()


def library_sources(root):
    """The `src/` folders of the workspace's published library crates."""
    with open(os.path.join(root, "Cargo.toml"), encoding="utf-8") as f:
        manifest = f.read()
    members = re.search(r"members\s*=\s*\[([^\]]*)\]", manifest)
    found = []
    for member in re.findall(r'"([^"]+)"', members.group(1) if members else ""):
        crate = os.path.join(root, member)
        try:
            with open(os.path.join(crate, "Cargo.toml"), encoding="utf-8") as f:
                own = f.read()
        except FileNotFoundError:
            continue
        if re.search(r"^publish\s*=\s*false", own, re.M):
            continue
        if os.path.exists(os.path.join(crate, "src", "lib.rs")):
            found.append(os.path.join(member, "src"))
    return found


def tokens(text):
    """Yields (kind, value, line) for identifiers and the punctuation that matters here.

    Comments, string/char/byte literals (raw ones included), lifetimes and numbers are skipped.
    """
    i, line, n = 0, 1, len(text)
    while i < n:
        c = text[i]
        if c == "\n":
            line += 1
            i += 1
        elif c.isspace():
            i += 1
        elif text.startswith("//", i):
            end = text.find("\n", i)
            i = n if end < 0 else end
        elif text.startswith("/*", i):
            depth, i = 1, i + 2
            while i < n and depth:
                if text.startswith("/*", i):
                    depth, i = depth + 1, i + 2
                elif text.startswith("*/", i):
                    depth, i = depth - 1, i + 2
                else:
                    line += text[i] == "\n"
                    i += 1
        elif c == '"':
            i, line = skip_string(text, i + 1, line)
        elif c == "'":
            i, line = skip_quote(text, i, line)
        elif c.isalpha() or c == "_":
            start = i
            while i < n and (text[i].isalnum() or text[i] == "_"):
                i += 1
            word = text[start:i]
            if word in ("r", "br", "cr") and i < n and text[i] in '"#':
                hashes = 0
                while i + hashes < n and text[i + hashes] == "#":
                    hashes += 1
                if i + hashes < n and text[i + hashes] == '"':
                    close = '"' + "#" * hashes
                    end = text.find(close, i + hashes + 1)
                    end = n if end < 0 else end + len(close)
                    line += text.count("\n", i, end)
                    i = end
                    continue
                if word == "r" and hashes == 1:  # a raw identifier, r#name
                    start = i = i + 1
                    while i < n and (text[i].isalnum() or text[i] == "_"):
                        i += 1
                    yield ("ident", text[start:i], line)
                    continue
            if word in ("b", "c") and i < n and text[i] == '"':
                i, line = skip_string(text, i + 1, line)
                continue
            if word == "b" and i < n and text[i] == "'":
                i, line = skip_quote(text, i, line)
                continue
            yield ("ident", word, line)
        elif c.isdigit():
            while i < n and (text[i].isalnum() or text[i] == "_"):
                i += 1
        else:
            yield ("punct", c, line)
            i += 1


def skip_string(text, i, line):
    """Skips a (byte) string's body from just after its opening quote."""
    n = len(text)
    while i < n and text[i] != '"':
        if text[i] == "\\":
            i += 1
        if i < n and text[i] == "\n":
            line += 1
        i += 1
    return i + 1, line


def skip_quote(text, i, line):
    """Skips a char literal ('{', '\\n', '\\u{7b}') or a lifetime/label ('a) at a quote."""
    n = len(text)
    if i + 1 < n and text[i + 1] == "\\":
        end = text.find("'", i + 3)
        return (n if end < 0 else end + 1), line
    if i + 2 < n and text[i + 2] == "'":
        return i + 3, line + (text[i + 1] == "\n")
    i += 1
    while i < n and (text[i].isalnum() or text[i] == "_"):
        i += 1
    return i, line


class Reader:
    """Walks one file's tokens: functions, and the items `#[cfg(test)]` marks."""

    def __init__(self, text):
        self.toks = list(tokens(text))
        self.functions = []  # (name, first line, lines)
        self.test_modules = []  # names of `#[cfg(test)] mod NAME;`

    def matching(self, at):
        """The index of the token that closes the bracket at `at`."""
        depth = 0
        for j in range(at, len(self.toks)):
            kind, value, _ = self.toks[j]
            if kind == "punct" and value in "{([":
                depth += 1
            elif kind == "punct" and value in "})]":
                depth -= 1
                if depth == 0:
                    return j
        return len(self.toks) - 1

    def item_end(self, at):
        """The index of the `;` or closing `}` that ends the item starting at `at`."""
        j = at
        while j < len(self.toks):
            kind, value, _ = self.toks[j]
            if kind == "punct" and value in "([":
                j = self.matching(j) + 1
                continue
            if kind == "punct" and value == ";":
                return j
            if kind == "punct" and value == "{":
                return self.matching(j)
            j += 1
        return j

    def is_cfg_test(self, at):
        """Whether the tokens at `at` are `# [ cfg ( test ) ]`."""
        want = [("punct", "#"), ("punct", "["), ("ident", "cfg"), ("punct", "("),
                ("ident", "test"), ("punct", ")"), ("punct", "]")]
        got = [(k, v) for k, v, _ in self.toks[at:at + len(want)]]
        return got == want

    def read(self):
        j = 0
        toks = self.toks
        while j < len(toks):
            kind, value, line = toks[j]
            if kind == "punct" and value == "#" and self.is_cfg_test(j):
                item = j + 7
                while item < len(toks) and toks[item][1] == "#":  # further attributes
                    item = self.matching(item + 1) + 1
                end = self.item_end(item)
                words = [v for k, v, _ in toks[item:end] if k == "ident"]
                if end < len(toks) and toks[end][1] == ";" and "mod" in words:
                    self.test_modules.append(words[-1])
                j = end + 1
                continue
            if kind == "ident" and value == "fn" and j + 1 < len(toks) and toks[j + 1][0] == "ident":
                end = self.item_end(j)
                if end < len(toks) and toks[end][1] == "}":
                    self.functions.append((toks[j + 1][1], line, toks[end][2] - line + 1))
            j += 1
        return self


def test_files(path, modules):
    """The files that `#[cfg(test)] mod NAME;` in `path` names."""
    folder, name = os.path.split(path)
    if name not in ("lib.rs", "main.rs", "mod.rs"):
        folder = os.path.join(folder, name[:-3])
    out = set()
    for module in modules:
        out.add(os.path.normpath(os.path.join(folder, module + ".rs")))
        out.add(os.path.normpath(os.path.join(folder, module, "mod.rs")))
    return out


def violations(src):
    """Each violation under the source folder `src`, as (key, message)."""
    files = sorted(
        os.path.normpath(os.path.join(d, f))
        for d, _, names in os.walk(src)
        for f in names
        if f.endswith(".rs")
    )
    found, exempt, read = [], set(), {}
    for path in files:
        with open(path, encoding="utf-8") as f:
            text = f.read()
        lines = text.count("\n")
        if lines > MAX_FILE_LINES:
            found.append((path, f"{path}: {lines} lines (at most {MAX_FILE_LINES})"))
        read[path] = Reader(text).read()
        exempt |= test_files(path, read[path].test_modules)
    for path in files:
        if path in exempt or "tests" in path.split(os.sep):
            continue
        for name, line, count in read[path].functions:
            key = f"{path} fn {name}"
            if count > MAX_FN_LINES and key not in GENERATED:
                found.append((key, f"{path}:{line} fn {name}: {count} lines (at most {MAX_FN_LINES})"))
    return found


def main(args):
    root = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    os.chdir(root)
    sources = args or library_sources(root)
    failed, seen = False, set()
    for src in sources:
        for key, message in violations(src):
            seen.add(key)
            if key not in ALLOWED:
                print(message)
                failed = True
    if not args:
        for key in sorted(ALLOWED - seen):
            if not os.path.exists(key.split(" ")[0]):
                # Moved or removed by a change under way: a note, not a failure.
                print(f"note: {key}: no such file; remove it from ALLOWED in scripts/check-size.py")
                continue
            print(f"{key}: within the limits now; remove it from ALLOWED in scripts/check-size.py")
            failed = True
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
