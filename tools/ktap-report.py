#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""ktap-report.py SUBCOMMAND ...: the pmureport command under the name LAVA
jobs, make test and users' scripts call. Python puts this file's own
directory (tools/, where the package is) first on the module path, so
nothing is set here."""

import sys

from pmureport.cli import main

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
