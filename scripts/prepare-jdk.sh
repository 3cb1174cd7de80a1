#!/bin/sh
# Makes a JDK and Jackson available to the differential tests, which run
# Java programs by the source launcher (so a JRE is not enough: javac's
# compiler must be there) against jackson-databind, jackson-core and
# jackson-annotations in $ZKWRITER_JACKSON_DIR (default /usr/share/java).
# Installs Debian's default-jdk-headless and libjackson2-databind-java with
# apt-get when they are missing and this runs as root; otherwise says how
# to get them and exits non-zero.
set -eu
jars="${ZKWRITER_JACKSON_DIR:-/usr/share/java}"

have_jdk() {
	command -v java >/dev/null 2>&1 && command -v javac >/dev/null 2>&1 || return 1
	for jar in jackson-databind.jar jackson-core.jar jackson-annotations.jar; do
		[ -f "$jars/$jar" ] || return 1
	done
}

if have_jdk; then
	echo "jdk: using $(command -v java) and Jackson in $jars"
	exit 0
fi

if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
	echo "jdk: installing Debian's default-jdk-headless and libjackson2-databind-java"
	export DEBIAN_FRONTEND=noninteractive
	for attempt in 1 2 3; do
		if apt-get update -qq && apt-get install -y -qq --no-install-recommends default-jdk-headless libjackson2-databind-java >/dev/null; then
			break
		fi
		echo "jdk: apt-get failed (attempt $attempt)" >&2
		sleep 5
	done
	if have_jdk; then
		exit 0
	fi
fi

cat >&2 <<'MSG'
jdk: the differential tests need a JDK (java and javac) and Jackson 2.
Install them (as root on Debian or Ubuntu:
apt-get install default-jdk-headless libjackson2-databind-java), or set
ZKWRITER_JACKSON_DIR to a directory holding jackson-databind.jar,
jackson-core.jar and jackson-annotations.jar.
MSG
exit 1
