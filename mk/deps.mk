# SPDX-License-Identifier: MIT
# Tools the build needs; mk/deps.sh installs them (as root) or names the
# apt-get line that does.
deps:
	@mk/deps.sh
