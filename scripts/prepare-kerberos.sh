#!/bin/sh
# Makes an MIT Kerberos KDC available to the Kerberos tests, which start
# a realm of their own on loopback (krb5kdc, with kdb5_util and
# kadmin.local to make it, and kinit for credential caches). Installs
# Debian's krb5-kdc, krb5-admin-server and krb5-user with apt-get when they
# are missing and this runs as root; otherwise says how to get them and
# exits non-zero. The packages' own services are not used: no system-wide
# KDC is configured or started.
set -eu
PATH="$PATH:/usr/sbin:/sbin"

have_kdc() {
	for prog in krb5kdc kdb5_util kadmin.local kinit; do
		command -v "$prog" >/dev/null 2>&1 || return 1
	done
}

if have_kdc; then
	echo "kerberos: using $(command -v krb5kdc)"
	exit 0
fi

if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
	echo "kerberos: installing Debian's krb5-kdc, krb5-admin-server and krb5-user"
	export DEBIAN_FRONTEND=noninteractive
	for attempt in 1 2 3; do
		if apt-get update -qq && apt-get install -y -qq --no-install-recommends krb5-kdc krb5-admin-server krb5-user >/dev/null; then
			break
		fi
		echo "kerberos: apt-get failed (attempt $attempt)" >&2
		sleep 5
	done
	if have_kdc; then
		exit 0
	fi
fi

cat >&2 <<'MSG'
kerberos: no MIT Kerberos KDC is available to the tests.
Install one (as root on Debian or Ubuntu:
apt-get install krb5-kdc krb5-admin-server krb5-user).
MSG
exit 1
