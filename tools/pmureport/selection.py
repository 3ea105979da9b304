# SPDX-License-Identifier: MIT
"""What the run selected (kernel/options.c)."""

import re
from dataclasses import dataclass
from typing import Optional

from .ktap import Run, split_cpu

# What the run selected: "# selection: suites = a,b; tests = s.t; exclude =
# none; selftest = 0" (kernel/options.c options_describe_selection()). A log
# without the line (an older kernel) selected everything it reports.

SELECTION_RE = re.compile(r"^selection: suites = (\S{1,4000}); tests = (\S{1,4000}); "
                          r"exclude = (\S{1,4000}); selftest = ([01])$")
SELFTEST_SUITE = "selftest"


@dataclass
class Selection:
    text: str
    suites: tuple[str, ...]
    tests: tuple[str, ...]
    exclude: tuple[str, ...]
    selftest: bool

    def selects(self, name: str) -> bool:
        """Whether the kernel ran suite.test (kernel/options.c options_selects())."""
        suite, _, test = name.partition(".")
        suite = split_cpu(suite)[0]
        full = f"{suite}.{test}"
        if suite in self.exclude or full in self.exclude:
            return False
        if suite == SELFTEST_SUITE and not self.selftest and suite not in self.suites:
            return False
        if not self.suites and not self.tests:
            return True
        return suite in self.suites or suite in self.tests or full in self.tests


def selection(run: Run) -> Optional[Selection]:
    """The run's Selection, or None when the log does not state it."""
    for d in run.diagnostics:
        m = SELECTION_RE.match(d)
        if m:
            suites, tests, exclude = (tuple(n for n in g.split(",") if n and n != "none")
                                      for g in m.groups()[:3])
            return Selection(d[len("selection: "):], suites, tests, exclude, m.group(4) == "1")
    return None
