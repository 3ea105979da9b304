# SPDX-License-Identifier: MIT
# Tools the build needs; scripts/deps.sh installs them (as root) or names the
# apt-get line that does.
deps:
	@scripts/deps.sh
