package quorum_test

import (
	"bytes"
	"context"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pavlo-v-chernykh/keystore-go/v4"
	pkcs12 "software.sslmate.com/src/go-pkcs12"

	"github.com/kraftmigration/zkwriter/internal/quorum"
	"github.com/kraftmigration/zkwriter/internal/quorum/quorumtest"
	"github.com/kraftmigration/zkwriter/migrationzk/zktest"
)

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "quorum-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	quorumtest.Build(dir)
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// files writes the files of a test into a temporary directory.
type files struct {
	t   *testing.T
	dir string
}

func newFiles(t *testing.T) *files { return &files{t: t, dir: t.TempDir()} }

func (f *files) write(name string, data []byte) string {
	f.t.Helper()
	path := filepath.Join(f.dir, name)
	if err := os.WriteFile(path, data, 0o600); err != nil {
		f.t.Fatal(err)
	}
	return path
}

// properties writes a client properties file of lines.
func (f *files) properties(lines ...string) string {
	return f.write("client.properties", []byte(strings.Join(lines, "\n")+"\n"))
}

// pkcs12KeyStore writes cert as a PKCS#12 keystore.
func (f *files) pkcs12KeyStore(cert *zktest.Certificate, password string) string {
	f.t.Helper()
	var cas []*x509.Certificate
	for _, der := range cert.TLS.Certificate[1:] {
		c, err := x509.ParseCertificate(der)
		if err != nil {
			f.t.Fatal(err)
		}
		cas = append(cas, c)
	}
	data, err := pkcs12.Modern.Encode(cert.TLS.PrivateKey, cert.TLS.Leaf, cas, password)
	if err != nil {
		f.t.Fatal(err)
	}
	return f.write("client.p12", data)
}

// jksTrustStore writes ca's certificate as a JKS truststore.
func (f *files) jksTrustStore(ca *zktest.CertAuthority, password string) string {
	f.t.Helper()
	ks := keystore.New()
	entry := keystore.TrustedCertificateEntry{CreationTime: time.Now(), Certificate: keystore.Certificate{Type: "X509", Content: ca.Certificate().Raw}}
	if err := ks.SetTrustedCertificateEntry("ca", entry); err != nil {
		f.t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := ks.Store(&buf, []byte(password)); err != nil {
		f.t.Fatal(err)
	}
	return f.write("trust.jks", buf.Bytes())
}

// describe asks the stub's nodes with the client properties lines.
func describe(t *testing.T, target quorum.Target, lines ...string) (quorum.State, error) {
	t.Helper()
	s, err := quorum.LoadFile(newFiles(t).properties(lines...))
	if err != nil {
		t.Fatal(err)
	}
	c, err := quorum.New(s, target, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	return c.Describe(ctx)
}

// TestDescribeControllers asks three controllers, the second of which
// leads: the others answer NOT_LEADER_OR_FOLLOWER and the leader's answer
// is Kafka 3.9's (version 2), whatever controller is asked first; the
// client then asks the leader first.
// Fault: two controllers that do not lead.
func TestDescribeControllers(t *testing.T) {
	stub := quorumtest.Start(t, "-leader-node", "1", "-hw", "150", "-leader-id", "3001", "-leader-epoch", "9")
	s, err := quorum.FromProperties(nil)
	if err != nil {
		t.Fatal(err)
	}
	c, err := quorum.New(s, quorum.Target{Controllers: stub.Addrs}, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	for i := 0; i < 2; i++ {
		st, err := c.Describe(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if st.Addr != stub.Addrs[1] || st.Version != 2 || st.LeaderID != 3001 || st.LeaderEpoch != 9 || st.HighWatermark != 150 ||
			len(st.Voters) != 3 || st.Voters[0].ID != 3000 || st.Voters[1].LogEndOffset != 149 || st.Voters[0].LastFetchTimestamp != 1729500000000 {
			t.Fatalf("describe %d: %+v", i, st)
		}
	}
	// Brokers forward the request, so any answers.
	st, err := describe(t, quorum.Target{Servers: stub.Addrs[1:2]})
	if err != nil || st.HighWatermark != 150 {
		t.Fatalf("through a broker: %+v, %v", st, err)
	}
}

// TestDescribeErrors gives each failure of DescribeQuorum its own error.
// Faults: no controller leads; a ZooKeeper-mode broker (no DescribeQuorum
// in its ApiVersions); CLUSTER_AUTHORIZATION_FAILED; versions this client
// does not speak; a node that is down.
func TestDescribeErrors(t *testing.T) {
	t.Run("no-leader", func(t *testing.T) {
		stub := quorumtest.Start(t, "-leader-node", "-1")
		_, err := describe(t, quorum.Target{Controllers: stub.Addrs})
		var nl *quorum.NoLeaderError
		if !errors.As(err, &nl) || len(nl.Addrs) != 3 || !strings.Contains(err.Error(), "each answered NOT_LEADER_OR_FOLLOWER") {
			t.Fatalf("%v", err)
		}
	})
	t.Run("zookeeper-mode-broker", func(t *testing.T) {
		stub := quorumtest.Start(t, "-nodes", "1", "-mode", "zkbroker")
		_, err := describe(t, quorum.Target{Servers: stub.Addrs})
		var ns *quorum.NotServedError
		if !errors.As(err, &ns) || !strings.Contains(err.Error(), "ask a controller (--bootstrap-controller)") {
			t.Fatalf("%v", err)
		}
	})
	t.Run("not-authorized", func(t *testing.T) {
		stub := quorumtest.Start(t, "-nodes", "1", "-mode", "deny")
		_, err := describe(t, quorum.Target{Controllers: stub.Addrs})
		var ae *quorum.AuthorizationError
		if !errors.As(err, &ae) || !strings.Contains(err.Error(), "DESCRIBE on the CLUSTER resource") {
			t.Fatalf("%v", err)
		}
	})
	t.Run("unsupported-version", func(t *testing.T) {
		stub := quorumtest.Start(t, "-nodes", "1", "-versions", "3-4")
		_, err := describe(t, quorum.Target{Controllers: stub.Addrs})
		var uv *quorum.UnsupportedVersionError
		if !errors.As(err, &uv) || uv.Min != 3 || uv.Max != 4 || uv.Ours != 2 {
			t.Fatalf("%v", err)
		}
	})
	t.Run("down", func(t *testing.T) {
		stub := quorumtest.Start(t, "-leader-node", "1")
		addrs := []string{"127.0.0.1:1", stub.Addrs[1]}
		if st, err := describe(t, quorum.Target{Controllers: addrs}); err != nil || st.Addr != stub.Addrs[1] {
			t.Fatalf("with the leader up: %+v, %v", st, err)
		}
		_, err := describe(t, quorum.Target{Controllers: addrs[:1]})
		var ue *quorum.UnreachableError
		if !errors.As(err, &ue) || ue.Addr != addrs[0] {
			t.Fatalf("%v", err)
		}
	})
}

// tlsStub starts a stub serving TLS with a certificate for 127.0.0.1,
// asking for client certificates when clientAuth; it returns the CA.
func tlsStub(t *testing.T, f *files, clientAuth bool, args ...string) (*quorumtest.Stub, *zktest.CertAuthority) {
	t.Helper()
	ca, err := zktest.NewCertAuthority("stub CA")
	if err != nil {
		t.Fatal(err)
	}
	cert, err := ca.Issue(zktest.CertRequest{Subject: pkix.Name{CommonName: "controller"}, Hosts: []string{"127.0.0.1", "localhost"}})
	if err != nil {
		t.Fatal(err)
	}
	pem := f.write("server.pem", cert.PEM)
	args = append(args, "-tls-cert", pem, "-tls-key", pem)
	if clientAuth {
		args = append(args, "-tls-client-ca", f.write("ca.pem", ca.CertPEM()))
	}
	return quorumtest.Start(t, args...), ca
}

// TestDescribeTLS reaches the quorum over TLS: a PEM truststore, a JKS
// truststore with a PKCS#12 keystore for a server that asks for client
// certificates, and the failures of an untrusted server and of a missing
// client certificate.
// Faults: a server certificate from an unknown CA; no client certificate.
func TestDescribeTLS(t *testing.T) {
	f := newFiles(t)
	stub, ca := tlsStub(t, f, false)
	target := quorum.Target{Controllers: stub.Addrs}
	caPEM := f.write("ca.pem", ca.CertPEM())
	if st, err := describe(t, target, "security.protocol=SSL", "ssl.truststore.location="+caPEM, "ssl.truststore.type=PEM"); err != nil || st.HighWatermark != 150 {
		t.Fatalf("PEM truststore: %+v, %v", st, err)
	}
	_, err := describe(t, target, "security.protocol=SSL")
	var ue *quorum.UnreachableError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), "certificate signed by unknown authority") {
		t.Fatalf("untrusted server: %v", err)
	}

	mtls, mca := tlsStub(t, f, true)
	client, err := mca.Issue(zktest.CertRequest{Subject: pkix.Name{CommonName: "operator"}})
	if err != nil {
		t.Fatal(err)
	}
	lines := []string{"security.protocol=SSL", "ssl.truststore.location=" + f.jksTrustStore(mca, "trust-secret"), "ssl.truststore.password=trust-secret"}
	mtarget := quorum.Target{Controllers: mtls.Addrs}
	withKey := append(lines, "ssl.keystore.location="+f.pkcs12KeyStore(client, "key-secret"), "ssl.keystore.type=PKCS12", "ssl.keystore.password=key-secret")
	if st, err := describe(t, mtarget, withKey...); err != nil || st.LeaderID != 3000 {
		t.Fatalf("client certificate: %+v, %v", st, err)
	}
	if _, err := describe(t, mtarget, lines...); !errors.As(err, &ue) {
		t.Fatalf("without a client certificate: %v", err)
	}
}

// TestDescribeSASL authenticates with SASL PLAIN, SCRAM-SHA-256 and
// SCRAM-SHA-512, over plaintext and TLS. A wrong password is refused with
// SASL_AUTHENTICATION_FAILED; a client without SASL gets no answer, as a
// SASL listener closes a connection whose first request is not SASL's.
// Faults: a wrong password; no SASL at all.
func TestDescribeSASL(t *testing.T) {
	f := newFiles(t)
	users := []string{"-plain", "alice:alice-secret", "-scram-sha-256", "bob:bob-secret", "-scram-sha-512", "carol:carol-secret"}
	plainStub := quorumtest.Start(t, users...)
	tlsSASL, ca := tlsStub(t, f, false, users...)
	caPEM := f.write("ca.pem", ca.CertPEM())
	jaas := func(module, user, pass string) string {
		return fmt.Sprintf(`sasl.jaas.config=org.apache.kafka.common.security.%s required username="%s" password="%s";`, module, user, pass)
	}
	for _, tc := range []struct {
		name, mechanism, module, user string
	}{
		{"plain", "PLAIN", "plain.PlainLoginModule", "alice"},
		{"scram-sha-256", "SCRAM-SHA-256", "scram.ScramLoginModule", "bob"},
		{"scram-sha-512", "SCRAM-SHA-512", "scram.ScramLoginModule", "carol"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			good := jaas(tc.module, tc.user, tc.user+"-secret")
			st, err := describe(t, quorum.Target{Controllers: plainStub.Addrs}, "security.protocol=SASL_PLAINTEXT", "sasl.mechanism="+tc.mechanism, good)
			if err != nil || st.HighWatermark != 150 {
				t.Fatalf("SASL_PLAINTEXT: %+v, %v", st, err)
			}
			st, err = describe(t, quorum.Target{Controllers: tlsSASL.Addrs}, "security.protocol=SASL_SSL", "sasl.mechanism="+tc.mechanism, good,
				"ssl.truststore.location="+caPEM, "ssl.truststore.type=PEM")
			if err != nil || st.HighWatermark != 150 {
				t.Fatalf("SASL_SSL: %+v, %v", st, err)
			}
			_, err = describe(t, quorum.Target{Controllers: plainStub.Addrs[:1]}, "security.protocol=SASL_PLAINTEXT", "sasl.mechanism="+tc.mechanism, jaas(tc.module, tc.user, "wrong"))
			var ae *quorum.AuthenticationError
			if !errors.As(err, &ae) || !strings.Contains(err.Error(), "SASL_AUTHENTICATION_FAILED") || strings.Contains(err.Error(), "wrong") {
				t.Fatalf("wrong password: %v", err)
			}
		})
	}
	_, err := describe(t, quorum.Target{Controllers: plainStub.Addrs[:1]})
	var ue *quorum.UnreachableError
	if !errors.As(err, &ue) {
		t.Fatalf("without SASL: %v", err)
	}
}
