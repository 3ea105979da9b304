# SPDX-License-Identifier: MIT
"""`python3 -m pmureport SUBCOMMAND ...` (tools/ on the module path)."""

import sys

from .cli import main

sys.exit(main(sys.argv[1:], prog="pmureport"))
