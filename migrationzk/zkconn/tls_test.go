package zkconn_test

import (
	"context"
	"crypto/tls"
	"crypto/x509/pkix"
	"errors"
	"net"
	"runtime"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/kraftmigration/zkwriter/internal/testkit/securitytest"
	"github.com/kraftmigration/zkwriter/migrationzk/zkconn"
	"github.com/kraftmigration/zkwriter/migrationzk/zktest"
)

// wantHandshakeFailure fails t unless err is a *HandshakeError for failure.
func wantHandshakeFailure(t *testing.T, err error, failure zkconn.HandshakeFailure) {
	t.Helper()
	var he *zkconn.HandshakeError
	if !errors.As(err, &he) {
		t.Fatalf("err = %v (%T), want a *zkconn.HandshakeError", err, err)
	}
	if he.Failure != failure {
		t.Fatalf("failure = %d (%v), want %d (%v)", he.Failure, he.Failure, failure, failure)
	}
}

// Fault: none. A client connects over TLS with its certificate and gets
// its subject as x509 identity.
func TestTLSConnect(t *testing.T) {
	srv := securitytest.TLS(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := zkconn.Open(ctx, srv.Servers, 10*time.Second, zkconn.WithTLS(srv.ClientTLS()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.Create("/mine", nil, 0, zk.AuthACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}
	acl, _, err := conn.GetACL("/mine")
	if err != nil || len(acl) != 1 || acl[0].Scheme != "x509" || acl[0].ID != zktest.DefaultClientDN {
		t.Fatalf("ACL %+v, %v; want x509:%s", acl, err, zktest.DefaultClientDN)
	}
}

// Fault: certificates the handshake refuses, on either side. Each fails
// Open at once with a classified *HandshakeError.
func TestTLSCertificateFailures(t *testing.T) {
	srv := securitytest.TLS(t)
	expired := zktest.Start(t, zktest.WithExpiredServerCertificate())
	wrongHost := zktest.Start(t, zktest.WithServerHosts("zookeeper.example"))
	otherCA, err := zktest.NewCertAuthority("another CA")
	if err != nil {
		t.Fatal(err)
	}
	alice := pkix.Name{CommonName: "alice"}
	cases := []struct {
		name    string
		servers []string
		config  *tls.Config
		want    zkconn.HandshakeFailure
	}{
		{"wrong CA", srv.Servers, otherCA.ClientConfig(srv.ClientCertificate()), zkconn.UntrustedServerCertificate},
		{"expired server certificate", expired.Servers, expired.ClientTLS(), zkconn.ExpiredServerCertificate},
		{"hostname mismatch", wrongHost.Servers, wrongHost.ClientTLS(), zkconn.ServerHostnameMismatch},
		{"missing client certificate", srv.Servers, srv.CA().ClientConfig(nil), zkconn.MissingClientCertificate},
		{"client certificate of another CA", srv.Servers, srv.CA().ClientConfig(securitytest.Issue(t, otherCA, zktest.CertRequest{Subject: alice})), zkconn.RejectedClientCertificate},
		{"expired client certificate", srv.Servers, srv.CA().ClientConfig(securitytest.Issue(t, srv.CA(), zktest.CertRequest{Subject: alice, Expired: true})), zkconn.ExpiredClientCertificate},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := securitytest.OpenFails(t, c.servers, zkconn.WithTLS(c.config))
			wantHandshakeFailure(t, err, c.want)
		})
	}
	for _, s := range []*zktest.Server{srv, expired, wrongHost} {
		wantNothingWritten(t, s)
	}
}

// wantNothingWritten fails t unless srv, whose certificate may be one a
// client must not trust, holds nothing but /zookeeper.
func wantNothingWritten(t *testing.T, srv *zktest.Server) {
	t.Helper()
	securitytest.NothingWritten(t, srv.ConnectWith(t, zkconn.WithDialer(zkconn.TLSDialer(&tls.Config{InsecureSkipVerify: true, Certificates: srv.ClientTLS().Certificates}, nil, 0))))
}

// Fault: a server that rejects a missing client certificate only after
// the client's side of a TLS 1.3 handshake completed: the refusal comes
// with the first read, and is a HandshakeError all the same.
func TestTLS13RejectedAfterHandshake(t *testing.T) {
	srv := securitytest.TLS(t,
		zktest.WithSetting("ssl.protocol", "TLSv1.3"),
		zktest.WithSetting("ssl.enabledProtocols", "TLSv1.3"),
		zktest.WithSetting("ssl.ciphersuites", "TLS_AES_128_GCM_SHA256,TLS_AES_256_GCM_SHA384"))
	config := srv.CA().ClientConfig(nil)
	err := securitytest.OpenFails(t, srv.Servers, zkconn.WithTLS(config))
	wantHandshakeFailure(t, err, zkconn.MissingClientCertificate)

	// The dialer's handshake succeeds; the first read reports the refusal.
	c, err := zkconn.TLSDialer(config, nil, 0)("tcp", srv.Addr(), time.Second)
	if err != nil {
		t.Fatalf("the client's side of a TLS 1.3 handshake failed: %v", err)
	}
	defer c.Close()
	_, err = c.Read(make([]byte, 16))
	wantHandshakeFailure(t, err, zkconn.MissingClientCertificate)

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := zkconn.Open(ctx, srv.Servers, 10*time.Second, zkconn.WithTLS(srv.ClientTLS()))
	if err != nil {
		t.Fatalf("with a certificate: %v", err)
	}
	conn.Close()
}

// closedPort returns a loopback address that nothing listens on.
func closedPort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// Fault: nothing listens, or the host does not exist. Open fails with the
// cause after a few attempts instead of waiting for its context.
func TestRefusedAndUnknownHostFailFast(t *testing.T) {
	closed := closedPort(t)
	err := securitytest.OpenFails(t, []string{closed})
	if !errors.Is(err, syscall.ECONNREFUSED) {
		t.Fatalf("refused: err = %v, want ECONNREFUSED", err)
	}
	err = securitytest.OpenFails(t, []string{"zookeeper.invalid:2181"})
	var dns *net.DNSError
	if !errors.As(err, &dns) || !dns.IsNotFound {
		t.Fatalf("unknown host: err = %v, want a *net.DNSError (not found)", err)
	}
	// Open without options fails as fast.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	start := time.Now()
	if _, err := zkconn.Open(ctx, []string{closed}, 10*time.Second); !errors.Is(err, syscall.ECONNREFUSED) || time.Since(start) > securitytest.FailFastBound {
		t.Fatalf("Open: %v after %v", err, time.Since(start))
	}
}

// Fault: nothing listens. The client Open gives up on stops dialling and
// its goroutines end soon after.
func TestAbandonedClientStops(t *testing.T) {
	closed := closedPort(t)
	before := runtime.NumGoroutine()
	var dials atomic.Int32
	counting := func(network, address string, timeout time.Duration) (net.Conn, error) {
		dials.Add(1)
		return net.DialTimeout(network, address, timeout)
	}
	securitytest.OpenFails(t, []string{closed}, zkconn.WithDialer(counting))
	afterFailure := dials.Load()
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before {
		if time.Now().After(deadline) {
			t.Fatalf("%d goroutines, %d before Open", runtime.NumGoroutine(), before)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if dials.Load() != afterFailure {
		t.Fatalf("%d dials after Open gave up", dials.Load()-afterFailure)
	}
}

// Fault: one member of the list refuses connections; Open carries on to
// the next instead of giving up.
func TestRefusedServerAmongOthers(t *testing.T) {
	srv := zktest.Start(t)
	closed := closedPort(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := zkconn.Open(ctx, []string{closed, closed, srv.Addr()}, 10*time.Second, zkconn.WithAttempts(1))
	if err != nil {
		t.Fatal(err)
	}
	conn.Close()
}

// Fault: a TLS client at a plain port, and a plain client at a TLS port.
// The peer just closes the connection, as a server without quorum does;
// a probe of the port confirms the mismatch, and Open fails within a few
// attempts with a *TLSMismatchError saying which side speaks TLS.
func TestWrongProtocolFailsFast(t *testing.T) {
	plain := zktest.Start(t)
	secure := securitytest.TLS(t)
	for name, c := range map[string]struct {
		servers   []string
		opts      []zkconn.Option
		speaksTLS bool
	}{
		"TLS to plain": {plain.Servers, []zkconn.Option{zkconn.WithTLS(secure.ClientTLS())}, false},
		"plain to TLS": {secure.Servers, nil, true},
	} {
		t.Run(name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			start := time.Now()
			_, err := zkconn.Open(ctx, c.servers, 10*time.Second, c.opts...)
			t.Logf("after %v: %v", time.Since(start).Round(time.Millisecond), err)
			var mismatch *zkconn.TLSMismatchError
			if !errors.As(err, &mismatch) || mismatch.ServerSpeaksTLS != c.speaksTLS || mismatch.Server != c.servers[0] {
				t.Fatalf("err = %v, want a *TLSMismatchError for %s with ServerSpeaksTLS %v", err, c.servers[0], c.speaksTLS)
			}
			if d := time.Since(start); d > 10*time.Second {
				t.Fatalf("took %v, want a few attempts", d)
			}
		})
	}
}

// Fault: the server left without quorum closes every connection before
// its handshake reply, as a TLS port does to a plaintext client; the probe
// finds no TLS there, so Open keeps trying until its context ends. A TLS
// client there learns the port is plaintext: ZooKeeper answers the probe
// without quorum.
func TestNoQuorumIsNoMismatch(t *testing.T) {
	e := zktest.StartEnsemble(t, 3)
	survivor := e.Servers[0]
	for _, addr := range e.Servers[1:] {
		if err := e.Member(addr).Stop(); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Second)
	defer cancel()
	_, err := zkconn.Open(ctx, []string{survivor}, 10*time.Second)
	if !errors.Is(err, context.DeadlineExceeded) || errors.As(err, new(*zkconn.TLSMismatchError)) {
		t.Fatalf("plaintext client: err = %v, want the context's deadline", err)
	}
	ctx, cancel = context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, err = zkconn.Open(ctx, []string{survivor}, 10*time.Second, zkconn.WithTLS(nil))
	var mismatch *zkconn.TLSMismatchError
	if !errors.As(err, &mismatch) || mismatch.ServerSpeaksTLS {
		t.Fatalf("TLS client: err = %v, want a *TLSMismatchError: the port speaks plaintext", err)
	}
}
