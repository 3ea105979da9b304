# SPDX-License-Identifier: MIT
# shellcheck shell=bash
# Step bodies of the report package's checks (tools/pmureport), its wrapper
# and its unit tests. Sourced by testing/run-tests.sh; LOGS is its log
# directory.

# flake8 with the repository's .flake8; mypy --strict and the flags of
# tools/pyproject.toml, with Debian's python3-mypy (the Debian interpreter,
# whatever python3 names here).
py_lint() {
	command -v flake8 >/dev/null ||
		{ echo "skipped: flake8 is missing (mk/deps.sh --test installs it as root)"; return 0; }
	findings flake8 flake8 tools/pmureport tools/ktap-report.py testing/unit/report
}
py_types() {
	/usr/bin/python3 -c 'import mypy' 2>/dev/null ||
		{ echo "skipped: python3-mypy is missing (mk/deps.sh --test installs it as root)"; return 0; }
	findings mypy /usr/bin/python3 -m mypy --config-file tools/pyproject.toml --no-error-summary \
		--cache-dir "$LOGS/.mypy-cache" tools/pmureport tools/ktap-report.py
}
