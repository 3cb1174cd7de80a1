#!/bin/sh
# Runs every fuzz target of the module for a while each: scripts/fuzz.sh [duration]
set -eu
time="${1:-3s}"
for pkg in $(go list ./...); do
	for target in $(go test -list '^Fuzz' "$pkg" | grep '^Fuzz' || true); do
		echo "fuzz: $pkg $target ($time)"
		if ! out=$(go test -run '^$' -fuzz "^${target}\$" -fuzztime "$time" "$pkg" 2>&1); then
			printf '%s\n' "$out"
			exit 1
		fi
	done
done
