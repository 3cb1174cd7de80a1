#!/bin/sh
# Runs every fuzz target of the module briefly: scripts/fuzz.sh [fuzztime],
# where fuzztime is a duration (60s) or a count of inputs (20000x). A count
# keeps a loaded machine from ending a run before the seed corpus is done,
# which the fuzzer reports as a failure.
set -eu
time="${1:-20000x}"
for pkg in $(go list ./...); do
	for target in $(go test -list '^Fuzz' "$pkg" | grep '^Fuzz' || true); do
		echo "fuzz: $pkg $target ($time)"
		if ! out=$(go test -run '^$' -fuzz "^${target}\$" -fuzztime "$time" "$pkg" 2>&1); then
			printf '%s\n' "$out"
			exit 1
		fi
	done
done
