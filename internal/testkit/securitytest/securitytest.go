// Package securitytest sets up, once for the tests of every package, the
// secured ZooKeeper servers and clients zkwriter supports: one helper per
// security mechanism (TLS, digest credentials, SASL DIGEST-MD5, Kerberos),
// the clients of a test (through a FaultDialer, or opened and checked),
// and the JAAS files of a Kafka broker. Servers and KDCs are real ones,
// started by zktest; the helpers fail their test when set-up fails, and
// skip it where zktest skips. It serves tests only.
package securitytest

import (
	"testing"

	"github.com/kraftmigration/zkwriter/migrationzk/zkconn"
	"github.com/kraftmigration/zkwriter/migrationzk/zkconn/sasl"
	"github.com/kraftmigration/zkwriter/migrationzk/zktest"
)

// The credentials of the servers the helpers start.
const (
	// SASLUser and SASLPassword are the SASL DIGEST-MD5 user of SASLDigest
	// servers, as which their Connect authenticates.
	SASLUser, SASLPassword = "kafka", "kafka-secret"
	// DigestUser and DigestPassword are the digest credentials
	// DigestClient adds.
	DigestUser, DigestPassword = "alice", "secret"
)

// TLS starts a server that serves TLS only (zktest.WithTLS), with opts
// after; its Connect presents zktest.DefaultClientDN's certificate.
func TLS(t testing.TB, opts ...zktest.Option) *zktest.Server {
	t.Helper()
	return zktest.Start(t, append([]zktest.Option{zktest.WithTLS()}, opts...)...)
}

// Digest starts a server that refuses every request of a session that
// has not added digest credentials (zktest.WithAuthEnforced), with opts
// after; DigestClient authenticates to it.
func Digest(t testing.TB, opts ...zktest.Option) *zktest.Server {
	t.Helper()
	return zktest.Start(t, append([]zktest.Option{zktest.WithAuthEnforced()}, opts...)...)
}

// DigestClient adds DigestUser's digest credentials.
func DigestClient() zkconn.Option { return zkconn.WithDigest(DigestUser, DigestPassword) }

// SASLDigest starts a server that knows SASLUser and requires SASL
// DIGEST-MD5 of every session (zktest.WithSASLEnforced), with opts
// after; its Connect authenticates as SASLUser.
func SASLDigest(t testing.TB, opts ...zktest.Option) *zktest.Server {
	t.Helper()
	base := []zktest.Option{zktest.WithSASLDigestUser(SASLUser, SASLPassword), zktest.WithSASLEnforced()}
	return zktest.Start(t, append(base, opts...)...)
}

// Kerberos starts a realm and a server that requires SASL GSSAPI in it
// of every session, with opts after; its Connect authenticates as
// zktest.KerberosClientName.
func Kerberos(t testing.TB, opts ...zktest.Option) (*zktest.Realm, *zktest.Server) {
	t.Helper()
	realm := zktest.StartRealm(t)
	base := []zktest.Option{zktest.WithKerberos(realm), zktest.WithSASLEnforced()}
	return realm, zktest.Start(t, append(base, opts...)...)
}

// KerberosClient authenticates with GSSAPI as cfg says, with a mechanism
// of its own.
func KerberosClient(t testing.TB, cfg sasl.KerberosConfig) zkconn.Option {
	t.Helper()
	mech, err := sasl.Kerberos(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return zkconn.WithSASL(mech)
}

// KafkaKeytab is the keytab of zktest.KerberosClientName in realm, as
// which the Connect of servers started WithKerberos authenticates.
func KafkaKeytab(t testing.TB, realm *zktest.Realm) string {
	t.Helper()
	keytab, err := realm.Keytab(zktest.KerberosClientName)
	if err != nil {
		t.Fatal(err)
	}
	return keytab
}

// Issue issues a certificate of ca for req.
func Issue(t testing.TB, ca *zktest.CertAuthority, req zktest.CertRequest) *zktest.Certificate {
	t.Helper()
	cert, err := ca.Issue(req)
	if err != nil {
		t.Fatal(err)
	}
	return cert
}
