# SPDX-License-Identifier: MIT
# The Debian package (tools/make-deb.sh, dpkg-deb):
#   make deb                    build/pmutest_VERSION_amd64.deb
#   make deb DEB_VERSION=0.1+1  another version (an upgrade to try)
# testing/test-deb.sh installs, upgrades and removes it in a throwaway root
# and runs lintian on it.

.PHONY: deb
deb: all
	tools/make-deb.sh $(if $(DEB_VERSION),--version $(DEB_VERSION))
