#!/usr/bin/env python3
"""Checks the rule of docs/internals.md "Engine module graph": no module in
src/engine imports a module that imports it back, directly or through others.

A module is one .rs file (a folder's mod.rs is the folder's own module). An
import is any `crate::engine::a::b` or `super::a` path outside `#[cfg(test)]`
modules, in `use` lines and in code. Prints every cycle (strongly connected
component) and exits 1 if there is one. `--graph` prints all edges."""
import collections
import os
import re
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src", "engine")


def modules():
    mods = {}
    for dp, _dn, fn in os.walk(ROOT):
        for f in fn:
            if not f.endswith(".rs"):
                continue
            p = os.path.join(dp, f)
            rel = os.path.relpath(p, ROOT)[:-3]
            is_mod = rel == "mod" or rel.endswith("/mod")
            if is_mod:
                rel = rel[:-4] if rel != "mod" else ""
            with open(p, encoding="utf-8") as fh:
                mods[rel.replace("/", "::")] = (fh.read(), is_mod)
    return mods


def strip_tests(src):
    """Drops `#[cfg(test)] mod name { ... }` blocks (brace-matched)."""
    out, i = [], 0
    pat = re.compile(r"#\[cfg\(test\)\]\s*(pub(\([a-z]+\))?\s+)?mod\s+\w+\s*\{")
    while True:
        m = pat.search(src, i)
        if not m:
            out.append(src[i:])
            return "".join(out)
        out.append(src[i : m.start()])
        depth, j = 1, m.end()
        while j < len(src) and depth:
            depth += {"{": 1, "}": -1}.get(src[j], 0)
            j += 1
        i = j


def strip_comments(src):
    src = re.sub(r"//[^\n]*", "", src)
    return re.sub(r"/\*.*?\*/", "", src, flags=re.S)


def use_tree(s, i, prefix, out):
    """Parses a use-tree at s[i:] (after `prefix::`), appends full paths."""
    m = re.compile(r"\s*").match(s, i)
    i = m.end()
    if i < len(s) and s[i] == "{":
        i += 1
        while True:
            m = re.compile(r"\s*").match(s, i)
            i = m.end()
            if i >= len(s) or s[i] == "}":
                return i + 1
            i = use_tree(s, i, prefix, out)
            m = re.compile(r"\s*,?").match(s, i)
            i = m.end()
    m = re.compile(r"[A-Za-z_][A-Za-z_0-9]*").match(s, i)
    if not m:
        out.append(prefix)
        return i
    name = m.group(0)
    i = m.end()
    path = prefix + [name]
    if s.startswith("::", i):
        return use_tree(s, i + 2, path, out)
    out.append(path)
    return i


def graph():
    mods = modules()
    names = set(mods)
    edges = collections.defaultdict(set)
    for n, (src, is_mod) in mods.items():
        src = strip_tests(strip_comments(src))
        here = n.split("::") if n else []
        # `super` of a file is its folder; of a mod.rs, the folder's parent.
        sup = here[:-1] if not is_mod else here[:-1]
        paths = []
        for m in re.finditer(r"\bcrate::engine::", src):
            use_tree(src, m.end(), [], paths)
        for m in re.finditer(r"(?<![:\w])super::", src):
            use_tree(src, m.end(), list(sup), paths)
        for p in paths:
            for k in range(len(p), 0, -1):
                c = "::".join(p[:k])
                if c in names:
                    if c != n and c != "":
                        edges[n].add(c)
                    break
    return names, edges


def sccs(names, edges):
    sys.setrecursionlimit(100000)
    idx, low, st, on, res, c = {}, {}, [], set(), [], [0]

    def visit(v):
        idx[v] = low[v] = c[0]
        c[0] += 1
        st.append(v)
        on.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in idx:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], idx[w])
        if low[v] == idx[v]:
            comp = []
            while True:
                w = st.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            res.append(sorted(comp))

    for v in sorted(names):
        if v not in idx:
            visit(v)
    return [r for r in res if len(r) > 1]


def main():
    names, edges = graph()
    if "--graph" in sys.argv:
        for a in sorted(edges):
            print(f"{a or 'engine'} -> {', '.join(sorted(edges[a]))}")
    bad = sccs(names, edges)
    for comp in bad:
        inner = [f"{a} -> {b}" for a in comp for b in sorted(edges[a]) if b in comp]
        print(f"engine-deps: cycle among {len(comp)} modules: {', '.join(comp)}")
        for e in inner:
            print(f"    {e}")
    if bad:
        sys.exit(1)
    print(f"engine-deps: {len(names)} modules, {sum(len(v) for v in edges.values())} imports, no cycle")


if __name__ == "__main__":
    main()
