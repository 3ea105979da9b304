#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The report package's unit tests, one file per module of tools/pmureport
(test_reader.py for reader.py, ...), and those of the scripts that read
logs through it.

  PYTHONPATH=tools python3 testing/unit/report/run.py [test_MODULE...]

(make test's runner sets PYTHONPATH.) Runs every test_*.py here, or the
ones named; prints "N passed, N failed"; exit 0 when none failed."""

import glob
import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))


def main(names: list[str]) -> int:
    if not names:
        names = sorted(os.path.basename(p)[:-3] for p in glob.glob(os.path.join(HERE, "test_*.py")))
    loader = unittest.defaultTestLoader
    suite = loader.loadTestsFromNames([n.removesuffix(".py") for n in names])
    res = unittest.TextTestRunner(verbosity=1, stream=sys.stdout).run(suite)
    failed = len(res.failures) + len(res.errors)
    print(f"{res.testsRun - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
