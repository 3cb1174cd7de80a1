#!/bin/sh
# Makes a ZooKeeper server available to the tests, trying in order:
#   1. ZK_SERVERS, an ensemble that is already running;
#   2. a local installation: $ZOOKEEPER_HOME or Debian's /usr/share/zookeeper;
#   3. Debian's zookeeper package, installed with apt-get when run as root.
# Otherwise it says how to get one and exits non-zero.
set -eu

if [ -n "${ZK_SERVERS:-}" ]; then
	echo "zookeeper: using ZK_SERVERS=$ZK_SERVERS"
	exit 0
fi

have_install() {
	command -v java >/dev/null 2>&1 || return 1
	if [ -n "${ZOOKEEPER_HOME:-}" ] && [ -f "$ZOOKEEPER_HOME/bin/zkServer.sh" ]; then
		echo "zookeeper: using ZOOKEEPER_HOME=$ZOOKEEPER_HOME"
		return 0
	fi
	if [ -f /usr/share/zookeeper/bin/zkServer.sh ]; then
		echo "zookeeper: using Debian's package under /usr/share/zookeeper"
		return 0
	fi
	return 1
}

if have_install; then
	exit 0
fi

if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
	echo "zookeeper: installing Debian's zookeeper package"
	export DEBIAN_FRONTEND=noninteractive
	for attempt in 1 2 3; do
		if apt-get update -qq && apt-get install -y -qq --no-install-recommends zookeeper >/dev/null; then
			break
		fi
		echo "zookeeper: apt-get failed (attempt $attempt)" >&2
		sleep 5
	done
	if have_install; then
		exit 0
	fi
fi

cat >&2 <<'MSG'
zookeeper: no ZooKeeper server is available to the tests.
Either install one (as root on Debian or Ubuntu: apt-get install zookeeper),
or set ZOOKEEPER_HOME to an unpacked ZooKeeper release (Java required),
or start one with Docker and point the tests at it:

    docker compose up -d
    ZK_SERVERS=127.0.0.1:2181 make test
MSG
exit 1
