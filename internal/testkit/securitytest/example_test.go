package securitytest_test

import (
	"crypto/x509/pkix"
	"fmt"
	"strings"
	"testing"

	"github.com/go-zookeeper/zk"

	"github.com/kraftmigration/zkwriter/internal/testkit/securitytest"
	"github.com/kraftmigration/zkwriter/migrationzk/zkconn"
	"github.com/kraftmigration/zkwriter/migrationzk/zktest"
)

// A test over TLS, with a client certificate of its own.
func ExampleTLS() {
	testOverTLS := func(t *testing.T) {
		srv := securitytest.TLS(t, zktest.WithClientAuth(zktest.ClientAuthWant))
		cert := securitytest.Issue(t, srv.CA(), zktest.CertRequest{Subject: pkix.Name{CommonName: "alice"}})
		conn := securitytest.Open(t, srv.Servers, zkconn.WithTLS(srv.CA().ClientConfig(cert)))
		securitytest.NothingWritten(t, conn)
	}
	_ = testOverTLS
}

// A test with digest credentials, which the server requires.
func ExampleDigest() {
	testDigest := func(t *testing.T) {
		srv := securitytest.Digest(t)
		conn := securitytest.Open(t, srv.Servers, securitytest.DigestClient())
		if _, err := conn.Create("/mine", nil, 0, zk.AuthACL(zk.PermAll)); err != nil {
			t.Fatal(err) // the ACL names DigestUser
		}
		err := securitytest.OpenFails(t, srv.Servers, zkconn.WithAuth("unknown", nil))
		_ = err // an *zkconn.AuthError
	}
	_ = testDigest
}

// A test of a client that must authenticate again by itself: after a
// restart, and after its session expired.
func ExampleSASLDigest() {
	testReauthentication := func(t *testing.T) {
		srv := securitytest.SASLDigest(t)
		conn, faults := securitytest.FaultyClient(t, srv)
		securitytest.WritesThroughRestartAndExpiry(t, srv, conn, faults, "/node")
		if n := faults.Count(zktest.OpSASL); n < 6 {
			t.Fatalf("%d SASL requests; want two per connection", n)
		}
	}
	_ = testReauthentication
}

// A test over Kerberos as a principal of its own.
func ExampleKerberos() {
	testKerberos := func(t *testing.T) {
		realm, srv := securitytest.Kerberos(t)
		cfg := realm.ClientConfig(zktest.KerberosClientName, securitytest.KafkaKeytab(t, realm))
		cfg.MutualAuth = true
		conn := srv.ConnectWith(t, securitytest.KerberosClient(t, cfg))
		securitytest.WaitSession(t, conn)
		old := conn.SessionID()
		_ = old // ... expire it, then securitytest.WaitNewSession(t, conn, old)
	}
	_ = testKerberos
}

// The JAAS files of a broker, for tools that read them.
func ExampleDigestJAAS() {
	jaas := securitytest.DigestJAAS(securitytest.SASLUser, securitytest.SASLPassword)
	fmt.Println(strings.Contains(jaas, "Client {"), strings.Contains(jaas, `username="kafka"`))
	_ = securitytest.KerberosJAAS("/etc/kafka.keytab", "kafka@EXAMPLE.TEST")
	writeJAAS := func(t *testing.T) string { return securitytest.WriteFile(t, "jaas.conf", jaas) }
	_ = writeJAAS
	// Output: true true
}
