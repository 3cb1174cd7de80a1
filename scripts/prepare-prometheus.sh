#!/bin/sh
# Makes Prometheus and promtool available to the monitoring tests: promtool
# checks and unit-tests the alert rules of examples/monitoring, and the
# end-to-end test starts a Prometheus of its own on loopback that scrapes
# `migrationzk monitor`. Installs Debian's prometheus package (which brings
# promtool) with apt-get when they are missing and this runs as root;
# otherwise says how to get them and exits non-zero. The package's own
# service is not used: no system-wide Prometheus is configured or started.
set -eu
PATH="$PATH:/usr/sbin:/sbin"

have_prometheus() {
	command -v prometheus >/dev/null 2>&1 && command -v promtool >/dev/null 2>&1
}

if have_prometheus; then
	echo "prometheus: using $(command -v prometheus) and $(command -v promtool)"
	exit 0
fi

if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
	echo "prometheus: installing Debian's prometheus package"
	export DEBIAN_FRONTEND=noninteractive
	for attempt in 1 2 3; do
		if apt-get update -qq && apt-get install -y -qq --no-install-recommends prometheus >/dev/null; then
			break
		fi
		echo "prometheus: apt-get failed (attempt $attempt)" >&2
		sleep 5
	done
	if have_prometheus; then
		exit 0
	fi
fi

cat >&2 <<'MSG'
prometheus: the monitoring tests need Prometheus and promtool.
Install them (as root on Debian or Ubuntu: apt-get install prometheus),
or put both binaries on PATH.
MSG
exit 1
