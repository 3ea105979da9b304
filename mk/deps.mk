# SPDX-License-Identifier: MIT
# What pmutest needs from Debian: mk/deps.sh holds the one list and installs
# what is missing (as root) in one apt-get transaction, or names the command.
#   deps        what `make` and `make run` need
#   deps-test   that and what `make test`'s steps need, before any step runs
.PHONY: deps deps-test
deps:
	@mk/deps.sh
deps-test:
	@mk/deps.sh --test
