# SPDX-License-Identifier: MIT
# shellcheck shell=bash
# Step bodies of the Python checks: flake8 on every Python file, mypy on
# the report package (tools/pmureport) and its wrapper. Sourced by
# testing/run-tests.sh; LOGS is its log directory.

# flake8 with the repository's .flake8 on every Python file of the tree (the
# package, its wrapper and unit tests, the step scripts, the LAVA helpers);
# mypy --strict and the flags of
# tools/pyproject.toml, with Debian's python3-mypy (the Debian interpreter,
# whatever python3 names here).
py_lint() {
	command -v flake8 >/dev/null ||
		{ echo "skipped: flake8 is missing (mk/deps.sh --test installs it as root)"; return 0; }
	local files
	mapfile -t files < <(find tools testing lava -name '*.py' -not -path '*/__pycache__/*' | sort)
	findings flake8 flake8 "${files[@]}"
}
py_types() {
	/usr/bin/python3 -c 'import mypy' 2>/dev/null ||
		{ echo "skipped: python3-mypy is missing (mk/deps.sh --test installs it as root)"; return 0; }
	findings mypy /usr/bin/python3 -m mypy --config-file tools/pyproject.toml --no-error-summary \
		--cache-dir "$LOGS/.mypy-cache" tools/pmureport tools/ktap-report.py
}
