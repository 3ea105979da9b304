#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The checks of make test's docs step (testing/check-docs.sh), one a command.

  docs.py links PAGE...             every relative link and #anchor resolves
  docs.py code PAGE FILE...         every ```c block of PAGE is, verbatim, in a FILE
  docs.py output PAGE NAME LOG      the block after <!-- docs-run: NAME --> is LOG's
                                    lines in order ("..." stands for any lines)
  docs.py failed-tests LOG          the tests LOG reports "not ok", as suite.test
  docs.py history PAGE...           no issue number, wave or session wording
  docs.py layering                  every #include of a folder is one the map of
                                    docs/architecture.md allows it
Each prints what is wrong, one line an item, and exits 1 if anything is;
2 for bad usage or a file it cannot read.
"""
from __future__ import annotations

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
FENCE = re.compile(r"^(\s*)```")


def prose(text: str) -> str:
    """The text outside code fences and inline code."""
    out, inside = [], False
    for line in text.split("\n"):
        if FENCE.match(line):
            inside = not inside
            continue
        if not inside:
            out.append(re.sub(r"`[^`]*`", "", line))
    return "\n".join(out)


def slug(heading: str) -> str:
    """GitHub's anchor of a heading."""
    h = re.sub(r"`", "", heading.strip().lower())
    h = re.sub(r"[^\w\- ]", "", h)
    return h.replace(" ", "-")


def anchors(page: Path) -> set[str]:
    seen: dict[str, int] = {}
    out = set()
    for line in prose(page.read_text()).split("\n"):
        m = re.match(r"^#{1,6} (.*)$", line)
        if m:
            s = slug(m.group(1))
            n = seen.get(s, 0)
            seen[s] = n + 1
            out.add(s if n == 0 else f"{s}-{n}")
    return out


def links(pages: list[str]) -> list[str]:
    bad = []
    for p in pages:
        page = Path(p)
        text = re.sub(r"<!--.*?-->", "", page.read_text(), flags=re.S)
        for n, line in enumerate(prose(text).split("\n"), 1):
            for target in re.findall(r"\]\(([^)\s]+)\)", line):
                if re.match(r"^[a-z]+:", target):
                    continue  # http(s), mailto: not fetched
                path, _, frag = target.partition("#")
                dest = (page.parent / path).resolve() if path else page.resolve()
                if not dest.exists():
                    bad.append(f"{p}: link to {target}: no such file")
                elif frag and dest.suffix == ".md" and frag not in anchors(dest):
                    bad.append(f"{p}: link to {target}: no heading '#{frag}' in {dest.relative_to(ROOT)}")
    return bad


def code(page: str, files: list[str]) -> list[str]:
    text = Path(page).read_text()
    sources = [Path(f).read_text() for f in files]
    blocks = re.findall(r"^```c\n(.*?)^```$", text, re.M | re.S)
    if not blocks:
        return [f"{page}: no ```c block"]
    return [f"{page}: C block {i} (first line '{b.splitlines()[0]}') is in none of {', '.join(files)}"
            for i, b in enumerate(blocks, 1) if not any(b in s for s in sources)]


def output(page: str, name: str, log: str) -> list[str]:
    text = Path(page).read_text()
    m = re.search(r"<!-- docs-run: " + re.escape(name) + r" -->\n.*?^```\w*\n(.*?)^```$", text, re.M | re.S)
    if not m:
        return [f"{page}: no block after <!-- docs-run: {name} -->"]
    actual = Path(log).read_text().split("\n")
    at = 0
    for want in m.group(1).rstrip("\n").split("\n"):
        if want.strip() == "...":
            continue
        if want.startswith("$ "):
            continue  # the command, shown as typed
        try:
            at = actual.index(want, at) + 1
        except ValueError:
            return [f"{page}: block '{name}': '{want.strip()}' is not in what the command printed (in that order)"]
    return []


def failed_tests(log: str) -> list[str]:
    suite, out = "", []
    for line in Path(log).read_text().split("\n"):
        m = re.match(r"^    # Subtest: (\S+)$", line)
        if m:
            suite = m.group(1)
        m = re.match(r"^    not ok \d+ (\S+)", line)
        if m:
            out.append(f"{suite}.{m.group(1)}")
    return sorted(set(out))


HISTORY = re.compile(r"\b[Ii]ssue [0-9]+|\b[Ww]aves?\b|\b[Ss]essions?\b")


def history(pages: list[str]) -> list[str]:
    bad = []
    for p in pages:
        for n, line in enumerate(Path(p).read_text().split("\n"), 1):
            m = HISTORY.search(line)
            if m:
                bad.append(f"{p}:{n}: '{m.group(0)}': say the feature, not the history (CHANGES.md keeps it)")
    return bad


def layering() -> list[str]:
    arch = (ROOT / "docs/architecture.md").read_text()
    m = re.search(r"<!-- layering: [^>]*-->\n(.*?)<!-- /layering -->", arch, re.S)
    if not m:
        return ["docs/architecture.md: no <!-- layering --> table"]
    allowed: dict[str, list[str]] = {}
    for row in m.group(1).splitlines()[2:]:
        cells = [c.strip() for c in row.strip("|").split("|")]
        if len(cells) == 3 and cells[2] and cells[2] != "any":
            folder = cells[0].strip("`")
            allowed[folder] = re.findall(r"`([\w/]+/)`", cells[2])
    where: dict[str, set[str]] = {}
    for h in ROOT.glob("**/*.h"):
        rel = h.relative_to(ROOT)
        if rel.parts[0] in ("build", ".git"):
            continue
        where.setdefault(h.name, set()).add(str(rel.parent) + "/")
    bad = []
    for folder, ok in sorted(allowed.items()):
        for src in sorted((ROOT / folder).glob("**/*.[ch]")):
            for n, line in enumerate(src.read_text().split("\n"), 1):
                inc = re.match(r'^#include "([^"]+)"', line)
                if not inc:
                    continue
                homes = where.get(Path(inc.group(1)).name, set())
                if homes and not any(h.startswith(a) for h in homes for a in ok):
                    bad.append(f"{src.relative_to(ROOT)}:{n}: includes {inc.group(1)} ({', '.join(sorted(homes))}); "
                               f"docs/architecture.md lets {folder} include {', '.join(ok)}")
    return bad


def main(argv: list[str]) -> int:
    cmds = {"links": (1, None), "code": (2, None), "output": (3, 3), "failed-tests": (1, 1),
            "history": (1, None), "layering": (0, 0)}
    if not argv or argv[0] not in cmds:
        print(__doc__.strip().split("\n\n")[0], file=sys.stderr)
        return 2
    lo, hi = cmds[argv[0]]
    args = argv[1:]
    if len(args) < lo or (hi is not None and len(args) > hi):
        print(f"docs.py {argv[0]}: wrong number of arguments", file=sys.stderr)
        return 2
    try:
        if argv[0] == "failed-tests":
            print("\n".join(failed_tests(args[0])))
            return 0
        bad = {"links": lambda: links(args), "code": lambda: code(args[0], args[1:]),
               "output": lambda: output(*args), "history": lambda: history(args),
               "layering": layering}[argv[0]]()
    except OSError as e:
        print(f"docs.py {argv[0]}: {e}", file=sys.stderr)
        return 2
    for b in bad:
        print(b)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
