#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The tables of README.md and docs/ that come from the code, never kept by hand.

A generated block sits between two markers in a Markdown page:

    <!-- gen: NAME -->
    ...what python3 testing/gen-docs.py writes...
    <!-- /gen -->

NAME is one of the generators below (a page may hold several blocks, and a
block may appear on several pages). The package table keeps the markers
testing/check-tree.sh reads (<!-- deps: mk/deps.sh --markdown --> ...
<!-- /deps -->) and is written here too, so that one command refreshes
every page.

Usage: testing/gen-docs.py [--check] [--pmusim PATH] [PAGE...]
  without --check  rewrite the blocks of each page (default: README.md and
                   docs/*.md) in place
  --check          change nothing; name each stale block and exit 1
Exit: 0 up to date (or rewritten), 1 a stale block (--check), 2 usage or a
page whose markers do not pair, or a generator that failed.
"""
from __future__ import annotations

import argparse
import re
import subprocess
import sys
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parent.parent
REGEN = "python3 testing/gen-docs.py"


class GenError(Exception):
    """A generator or a page that cannot be read: one line, exit 2."""


def run(cmd: list[str]) -> str:
    """A program's standard output; its failure is a GenError. pmusim exits 1
    when a run fails a check: that is an output too."""
    try:
        p = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=120)
    except (OSError, subprocess.TimeoutExpired) as e:
        raise GenError(f"{' '.join(cmd)}: {e}") from e
    if p.returncode not in (0, 1) or not p.stdout:
        raise GenError(f"{' '.join(cmd)}: exit {p.returncode}: {p.stderr.strip()[:200]}")
    return p.stdout


def cell(text: str) -> str:
    """Text fit for a Markdown table cell."""
    return text.replace("|", "\\|").strip()


def totals(ktap: str) -> dict[str, int]:
    m = re.search(r"^# Totals: pass:(\d+) fail:(\d+) skip:(\d+) xfail:(\d+) inferred:(\d+) total:(\d+)$",
                  ktap, re.M)
    if not m:
        raise GenError("a pmusim run printed no '# Totals:' line")
    return dict(zip(("pass", "fail", "skip", "xfail", "inferred", "total"), map(int, m.groups())))


class Gen:
    def __init__(self, pmusim: str) -> None:
        self.pmusim = pmusim
        self._profiles: list[tuple[str, str]] | None = None

    def sim(self, *args: str) -> str:
        return run([self.pmusim, *args])

    def profiles(self) -> list[tuple[str, str]]:
        if self._profiles is None:
            rows = []
            for line in self.sim("--list-profiles").splitlines():
                name, _, what = line.partition(" ")
                if name:
                    rows.append((name, what.strip()))
            self._profiles = rows
        return self._profiles

    # ---- the generators: each returns the block's lines -------------------

    def known(self) -> list[str]:
        """The known-deviations table: pmusim --list-known, one row a row."""
        rows: list[dict[str, list[str]]] = []
        for line in self.sim("--list-known").splitlines():
            if line and not line.startswith(" "):
                rows.append({"id": [line.strip()]})
                continue
            m = re.match(r"^  (\w+):\s+(.*)$", line)
            if m and rows:
                rows[-1].setdefault(m.group(1), []).append(m.group(2))
        if not rows:
            raise GenError("pmusim --list-known printed no row")
        out = [f"{len(rows)} rows (`pmusim --list-known` prints each with every check, rule and subject).", "",
               "| ID | processors; platform; host kernels; VMM | what the processor does | tests | source |",
               "|---|---|---|---|---|"]
        for r in rows:
            where = "; ".join(r.get("cpus", []) + r.get("platform", []) + r.get("hosts", [])
                              + [f"VMM: {v}" for v in r.get("vmm", [])])
            tests: list[str] = []
            for c in r.get("check", []):
                t = c.split(":", 1)[0]
                if t not in tests:
                    tests.append(t)
            out.append("| " + " | ".join([
                f"`{r['id'][0]}`", cell(where), cell(" ".join(r.get("what", []))),
                ", ".join(f"`{t}`" for t in tests), cell(" ".join(r.get("source", [])))]) + " |")
        return out

    def generations(self) -> list[str]:
        """Each gen-* profile: what it is, and how its run ends."""
        out = ["| profile | part | pass | skip | fail |", "|---|---|---|---|---|"]
        gens = [(n, w) for n, w in self.profiles() if n.startswith("gen-")]
        if not gens:
            raise GenError("pmusim --list-profiles names no gen-* profile")
        for name, what in gens:
            t = totals(self.sim("--profile", name, "--set", "compact=0"))
            out.append(f"| `{name}` | {cell(what)} | {t['pass']} | {t['skip']} | {t['fail'] + t['xfail']} |")
        return out

    def counts(self) -> list[str]:
        """How many CPUs, platforms, tests: the figures the pages quote."""
        profiles = self.profiles()
        dumps = sum(1 for _, w in profiles if w == "CPUID dump")
        gens = sum(1 for n, _ in profiles if n.startswith("gen-"))
        platforms = sum(1 for line in self.sim("--list-platforms").splitlines()
                        if line and not line.startswith(" "))
        corpus = len(list((ROOT / "data/cpuid/corpus").glob("*.txt")))
        quirks = len([line for line in self.sim("--list-quirks").splitlines() if line.strip()])
        known = len([line for line in self.sim("--list-known").splitlines()
                     if line and not line.startswith(" ")])
        run = self.sim("--set", "selftest=1", "--set", "compact=0")
        suites = len(re.findall(r"^    # Subtest: ", run, re.M))
        tests = totals(run)["total"]
        return [f"- {tests} tests in {suites} suites (self-tests included);",
                f"- {len(profiles)} simulator profiles: {dumps} real CPUID dumps, {gens} parts of "
                f"2023-2026 (`gen-*`), the rest synthetic or whole machines (`pmusim --list-profiles`);",
                f"- {corpus} more real dumps in `data/cpuid/corpus`, every one run clean by `make test`;",
                f"- {platforms} hypervisor models (`pmusim --list-platforms`);",
                f"- {quirks} simulated deviations (`pmusim --list-quirks`), {known} known-deviation rows "
                f"(`pmusim --list-known`)."]

    def options(self) -> list[str]:
        """The options, from the one place that describes them: the header of
        kernel/options.h; every key of kernel/options.c's table must be there."""
        head = (ROOT / "kernel/options.h").read_text()
        m = re.search(r"/\*\n \* Run options[^\n]*\n \*\n((?: \*[^\n]*\n)+?) \*\n \* A malformed", head)
        if not m:
            raise GenError("kernel/options.h: the option list in its header comment was not found")
        body = [line[5:] for line in m.group(1).splitlines()]
        body = [b for b in body if not b.startswith("#")]
        table = re.findall(r'^\s*\{"(\w+)", OPTION_', (ROOT / "kernel/options.c").read_text(), re.M)
        listed = {b.split()[0] for b in body if b and not b.startswith(" ")}
        if not table or set(table) != listed:
            raise GenError(f"kernel/options.h lists {sorted(listed)}, kernel/options.c's table {sorted(table)}")
        rows: list[list[str]] = []
        for b in body:
            if b and not b.startswith(" "):
                m = re.match(r"^(\S+ = \S.*?)\s{2,}(\S.*)$", b)
                if not m:
                    raise GenError(f"kernel/options.h: cannot read the option line '{b}'")
                rows.append([m.group(1), m.group(2)])
            elif rows:
                rows[-1][1] += " " + b.strip()
        return ["| option | what it does |", "|---|---|"] + [f"| `{k}` | {cell(d)} |" for k, d in rows]

    def suites(self) -> list[str]:
        """The registry: each suite, its tests and file, and the first sentence
        of the file's header comment."""
        run = self.sim("--set", "selftest=1", "--set", "compact=0")
        counts = re.findall(r"^    # Subtest: (\S+)\n    1\.\.(\d+)$", run, re.M)
        if not counts:
            raise GenError("pmusim printed no suite")
        files: dict[str, str] = {}
        for f in sorted((ROOT / "suites").glob("*.c")):
            for s in re.findall(r"^TEST(?:_FULL)?\((\w+),", f.read_text(), re.M):
                files.setdefault(s, f.name)
        out = ["| suite | tests | file | what it checks |", "|---|---|---|---|"]
        for suite, n in counts:
            name = files.get(suite)
            if name is None:
                raise GenError(f"suite {suite}: no TEST({suite}, ...) in suites/*.c")
            what = cell(first_sentence(ROOT / 'suites' / name))
            out.append(f"| `{suite}` | {n} | [`suites/{name}`](../suites/{name}) | {what} |")
        return out

    def deps(self) -> list[str]:
        return run([str(ROOT / "mk/deps.sh"), "--markdown"]).rstrip("\n").splitlines()


def first_sentence(path: Path) -> str:
    """A file's header comment up to its first colon or full stop."""
    m = re.match(r"(?:/\*[^\n]*\n)?/\*\n((?: \*[^\n]*\n)+)", path.read_text())
    if not m:
        return ""
    text = " ".join(line[2:].strip() for line in m.group(1).splitlines())
    depth = 0
    for i, ch in enumerate(text):
        depth += {"(": 1, ")": -1}.get(ch, 0)
        if depth == 0 and (ch == ":" or (ch == "." and text[i + 1:i + 2] in (" ", ""))):
            return text[:i].strip()
    return text.strip()


MARK = re.compile(r"^<!-- gen: (\w+) -->$")
DEPS_OPEN, DEPS_CLOSE = "<!-- deps: mk/deps.sh --markdown -->", "<!-- /deps -->"


def render(page: Path, gen: Gen, cache: dict[str, list[str]]) -> tuple[str, list[str]]:
    """The page with every block regenerated, and the names of its blocks."""
    lines = page.read_text().split("\n")
    out: list[str] = []
    names: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        m = MARK.match(line)
        if m:
            name, close = m.group(1), "<!-- /gen -->"
        else:
            name, close = ("deps", DEPS_CLOSE) if line == DEPS_OPEN else (None, "")
        out.append(line)
        i += 1
        if name is None:
            continue
        fn: Callable[[], list[str]] | None = getattr(gen, name, None) if not name.startswith("_") else None
        if fn is None or name in ("sim", "profiles"):
            raise GenError(f"{page.relative_to(ROOT)}:{i}: no generator '{name}'")
        j = i
        while j < len(lines) and lines[j] != close:
            if MARK.match(lines[j]) or lines[j] == DEPS_OPEN:
                break
            j += 1
        if j == len(lines) or lines[j] != close:
            raise GenError(f"{page.relative_to(ROOT)}:{i}: block '{name}' has no closing {close}")
        if name not in cache:
            cache[name] = fn()
        out.extend(cache[name])
        names.append(name)
        i = j
    return "\n".join(out), names


class OneLineParser(argparse.ArgumentParser):
    """Bad usage is one line, exit 2."""

    def error(self, message: str) -> None:  # type: ignore[override]
        print(f"gen-docs: {message} (usage: testing/gen-docs.py [--check] [--pmusim PATH] [PAGE...])",
              file=sys.stderr)
        sys.exit(2)


def main(argv: list[str]) -> int:
    ap = OneLineParser(description="Regenerate (or --check) the generated blocks of the docs.")
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--pmusim", default=str(ROOT / "build/host/pmusim"))
    ap.add_argument("pages", nargs="*")
    a = ap.parse_args(argv)
    pages = [Path(p).resolve() for p in a.pages] or [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    gen, cache = Gen(a.pmusim), {}
    stale = 0
    try:
        if not Path(a.pmusim).is_file():
            raise GenError(f"{a.pmusim}: not built (make -j2 all)")
        for page in pages:
            if not page.is_file():
                raise GenError(f"{page}: no such page")
            text, names = render(page, gen, cache)
            if text == page.read_text():
                continue
            rel = page.relative_to(ROOT)
            if a.check:
                stale += 1
                print(f"{rel}: generated block(s) {', '.join(names)} stale; regenerate: {REGEN} {rel}")
            else:
                page.write_text(text)
                print(f"{rel}: rewrote {', '.join(names)}")
    except (GenError, OSError) as e:
        print(f"gen-docs: {e}", file=sys.stderr)
        return 2
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
