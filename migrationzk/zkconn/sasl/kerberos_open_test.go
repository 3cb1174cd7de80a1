package sasl_test

import (
	"context"
	"errors"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/kraftmigration/zkwriter/internal/testkit/securitytest"
	"github.com/kraftmigration/zkwriter/internal/testkit/zkserver"
	"github.com/kraftmigration/zkwriter/migrationzk/zkconn"
	"github.com/kraftmigration/zkwriter/migrationzk/zkconn/sasl"
	"github.com/kraftmigration/zkwriter/migrationzk/zktest"
)

// openKerberos opens a client of srv authenticated with cfg, within 30s;
// the error is sasl.Kerberos's when cfg cannot be used.
func openKerberos(srv *zktest.Server, cfg sasl.KerberosConfig) (*zk.Conn, time.Duration, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	start := time.Now()
	mech, err := sasl.Kerberos(cfg)
	if err != nil {
		return nil, time.Since(start), err
	}
	conn, err := zkconn.Open(ctx, srv.Servers, zktest.SessionTimeout, zkconn.WithDialer(srv.Dialer()), zkconn.WithSASL(mech))
	return conn, time.Since(start), err
}

// sessionIDs are the sessions the server tracks, from its dump command.
var sessionID = regexp.MustCompile(`0x[0-9a-f]+`)

func sessions(t *testing.T, srv *zktest.Server) int {
	t.Helper()
	out, err := zkserver.FourLetterWord(srv.Addr(), "dump", time.Second)
	if err != nil {
		t.Fatal(err)
	}
	tracker, _, _ := strings.Cut(out, "ephemeral nodes dump")
	return len(sessionID.FindAllString(tracker, -1))
}

// wantOpenFailure checks that Open failed fast with a *sasl.Error of
// failure, and that the server holds no more sessions than before.
func wantOpenFailure(t *testing.T, srv *zktest.Server, conn *zk.Conn, took time.Duration, err error, failure sasl.Failure, before int) *sasl.Error {
	t.Helper()
	if conn != nil {
		conn.Close()
		t.Fatal("Open succeeded")
	}
	var se *sasl.Error
	if !errors.As(err, &se) || se.Failure != failure || se.Mechanism != "GSSAPI" {
		t.Fatalf("Open: %v; want a GSSAPI *sasl.Error with failure %v", err, failure)
	}
	if took > 5*time.Second {
		t.Errorf("Open took %v to fail", took)
	}
	if n := sessions(t, srv); n > before {
		t.Errorf("the server holds %d sessions, %d before: a failed attempt opened one", n, before)
	}
	return se
}

// A principal authenticates over GSSAPI and the server knows it by its
// whole name; the node it creates with Kafka's creator ACL reads back as
// sasl:kafka@EXAMPLE.TEST.
func TestKerberosOpenAuthenticates(t *testing.T) {
	realm, srv := securitytest.Kerberos(t)
	conn := srv.Connect(t)
	if _, err := conn.Create("/kerberos", []byte("x"), 0, zk.AuthACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}
	acl, _, err := conn.GetACL("/kerberos")
	want := zk.ACL{Perms: zk.PermAll, Scheme: "sasl", ID: realm.Principal(zktest.KerberosClientName)}
	if err != nil || len(acl) != 1 || acl[0] != want {
		t.Fatalf("ACL %v (%v), want %v", acl, err, want)
	}
}

// No KDC answers: Open fails at once with KDCUnreachable, and no
// server session is opened; with the KDC back, it succeeds.
func TestKerberosOpenKDCDown(t *testing.T) {
	realm, srv := securitytest.Kerberos(t)
	keytab, err := realm.AddPrincipal("broker")
	if err != nil {
		t.Fatal(err)
	}
	before := sessions(t, srv)
	if err := realm.Stop(); err != nil {
		t.Fatal(err)
	}
	conn, took, err := openKerberos(srv, realm.ClientConfig("broker", keytab))
	wantOpenFailure(t, srv, conn, took, err, sasl.KDCUnreachable, before)
	if err := realm.Restart(); err != nil {
		t.Fatal(err)
	}
	conn, _, err = openKerberos(srv, realm.ClientConfig("broker", keytab))
	if err != nil {
		t.Fatal(err)
	}
	conn.Close()
}

// A principal the KDC does not know, a keytab that does not exist, a
// credential cache whose ticket has ended: each fails Open at once with
// ClientFailure naming the cause, before any server session.
func TestKerberosOpenClientFailures(t *testing.T) {
	realm, srv := securitytest.Kerberos(t)
	ghost, err := realm.AddPrincipal("ghost")
	if err != nil {
		t.Fatal(err)
	}
	if err := realm.DeletePrincipal("ghost"); err != nil {
		t.Fatal(err)
	}
	brief, err := realm.AddPrincipalWith(zktest.KerberosPrincipal{Name: "brief", MaxLife: 3 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	cache, err := realm.Kinit("brief", brief)
	if err != nil {
		t.Fatal(err)
	}
	expired := sasl.KerberosConfig{UseTicketCache: true, TicketCache: cache, Krb5Conf: realm.Krb5Conf(), CanonicalizeHostname: true}
	time.Sleep(4 * time.Second)
	cases := []struct {
		name string
		cfg  sasl.KerberosConfig
		says string
	}{
		{"unknown principal", realm.ClientConfig("ghost", ghost), "PRINCIPAL_UNKNOWN"},
		{"missing keytab", realm.ClientConfig("kafka", filepath.Join(t.TempDir(), "kafka.keytab")), "kafka.keytab"},
		{"expired ticket", expired, "expired"},
	}
	before := sessions(t, srv)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			conn, took, err := openKerberos(srv, c.cfg)
			wantOpenFailure(t, srv, conn, took, err, sasl.ClientFailure, before)
			if !strings.Contains(err.Error(), c.says) {
				t.Errorf("error %q does not say %q", err, c.says)
			}
		})
	}
}

// Fault: the server restarts, then the session expires. The client
// authenticates again with a new AP-REQ on the new connection (same
// session) and on the new session, before any other request.
func TestKerberosSurvivesRestartAndExpiry(t *testing.T) {
	_, srv := securitytest.Kerberos(t)
	var stats sasl.Stats
	conn, faults := securitytest.FaultyClient(t, srv, zkconn.WithSASLStats(&stats))
	securitytest.WritesThroughRestartAndExpiry(t, srv, conn, faults, "/kafka-node")
	if stats.Succeeded() < 3 || faults.Count(zktest.OpSASL) < 6 {
		t.Fatalf("%d exchanges, %d SASL requests; want at least 3 (first, restart, new session) of 2 each", stats.Succeeded(), faults.Count(zktest.OpSASL))
	}
}

// With mutual authentication the real server's AP-REP is checked, at one
// more round trip; a DIGEST-MD5 client of a Kerberos server is rejected
// at its first token, and nothing is written.
func TestKerberosMutualAuthAndWrongMechanism(t *testing.T) {
	realm, srv := securitytest.Kerberos(t)
	cfg := realm.ClientConfig(zktest.KerberosClientName, securitytest.KafkaKeytab(t, realm))
	cfg.MutualAuth = true
	conn, faults := securitytest.FaultyClient(t, srv, securitytest.KerberosClient(t, cfg))
	if _, _, err := conn.Exists("/"); err != nil {
		t.Fatal(err)
	}
	if n := faults.Count(zktest.OpSASL); n != 3 {
		t.Errorf("%d SASL requests with mutual authentication; want 3", n)
	}
	digest, took, err := func() (*zk.Conn, time.Duration, error) {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		start := time.Now()
		c, err := zkconn.Open(ctx, srv.Servers, zktest.SessionTimeout, zkconn.WithDialer(srv.Dialer()), zkconn.WithSASL(sasl.DigestMD5("kafka", "secret")))
		return c, time.Since(start), err
	}()
	var se *sasl.Error
	if digest != nil || !errors.As(err, &se) || se.Failure != sasl.Rejected || took > 5*time.Second {
		t.Fatalf("DIGEST-MD5 against a Kerberos server: %v after %v; want Rejected at once", err, took)
	}
	securitytest.NothingWritten(t, conn)
}

// Fault: a ticket for a principal the server does not hold the key of.
// Without enforcement the server refuses the AP-REQ (Rejected); with
// zookeeper.allowSaslFailedClients it answers with no token instead of a
// security layer offer, which the client refuses too (ServerInvalid)
// rather than carry on unauthenticated.
func TestKerberosWrongServerKey(t *testing.T) {
	realm := zktest.StartRealm(t)
	if _, err := realm.AddPrincipal("zookeeper/otherhost"); err != nil {
		t.Fatal(err)
	}
	client := realm.ClientConfig(zktest.KerberosClientName, securitytest.KafkaKeytab(t, realm))
	client.ServerPrincipal = "zookeeper/otherhost"
	for _, tc := range []struct {
		name string
		opts []zktest.Option
		want sasl.Failure
	}{
		{"refused", nil, sasl.Rejected},
		{"failed clients allowed", []zktest.Option{zktest.WithSetting("allowSaslFailedClients", "true")}, sasl.ServerInvalid},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := zktest.Start(t, append([]zktest.Option{zktest.WithKerberos(realm)}, tc.opts...)...)
			conn, took, err := openKerberos(srv, client)
			if conn != nil {
				conn.Close()
				t.Fatal("Open succeeded with a ticket for another server")
			}
			var se *sasl.Error
			if !errors.As(err, &se) || se.Failure != tc.want || took > 5*time.Second {
				t.Fatalf("Open: %v after %v; want a *sasl.Error with failure %v at once", err, took, tc.want)
			}
		})
	}
}
