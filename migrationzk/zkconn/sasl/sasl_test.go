package sasl_test

import (
	"bytes"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/kraftmigration/zkwriter/internal/testkit/securitytest"
	"github.com/kraftmigration/zkwriter/migrationzk/zkconn"
	"github.com/kraftmigration/zkwriter/migrationzk/zkconn/sasl"
	"github.com/kraftmigration/zkwriter/migrationzk/zktest"
)

// Fault: none. On a server that enforces SASL, DIGEST-MD5 authenticates
// every connection before go-zookeeper's first request, and an ACL of
// scheme auth expands to the sasl identity.
func TestSASLDigestEnforced(t *testing.T) {
	srv := securitytest.SASLDigest(t)
	var stats sasl.Stats
	conn := securitytest.Open(t, srv.Servers, zkconn.WithSASL(sasl.DigestMD5("kafka", "kafka-secret")), zkconn.WithSASLStats(&stats))
	if _, err := conn.Create("/kafka-node", []byte("v0"), 0, zk.AuthACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}
	acl, _, err := conn.GetACL("/kafka-node")
	if err != nil || len(acl) != 1 || acl[0].Scheme != "sasl" || acl[0].ID != "kafka" || acl[0].Perms != zk.PermAll {
		t.Fatalf("ACL %+v, %v; want sasl:kafka:cdrwa", acl, err)
	}
	if stats.Succeeded() != 1 || stats.Failed() != 0 {
		t.Fatalf("stats: %d succeeded, %d failed; want 1, 0", stats.Succeeded(), stats.Failed())
	}
}

// Fault: a wrong password. The server rejects the exchange; Open fails
// with a *sasl.Error naming the rejection, at once, after one exchange:
// later dials fail without reaching the server.
func TestSASLDigestWrongPassword(t *testing.T) {
	for _, enforced := range []bool{false, true} {
		opts := []zktest.Option{zktest.WithSASLDigestUser("kafka", "kafka-secret")}
		if enforced {
			opts = append(opts, zktest.WithSASLEnforced())
		}
		srv := zktest.Start(t, opts...)
		faults := zktest.NewFaultDialer(t)
		faults.Dialer = srv.Dialer()
		var stats sasl.Stats
		start := time.Now()
		err := securitytest.OpenFails(t, srv.Servers, zkconn.WithDialer(faults.Dial), zkconn.WithSASL(sasl.DigestMD5("kafka", "wrong")), zkconn.WithSASLStats(&stats))
		var se *sasl.Error
		if !errors.As(err, &se) || se.Failure != sasl.Rejected || se.Mechanism != "DIGEST-MD5" || se.Server != srv.Addr() {
			t.Fatalf("enforced=%v: %v; want a *sasl.Error, Rejected, DIGEST-MD5, %s", enforced, err, srv.Addr())
		}
		if elapsed := time.Since(start); elapsed > 5*time.Second {
			t.Errorf("enforced=%v: Open took %v", enforced, elapsed)
		}
		if faults.Dials() != 1 || stats.Failed() != 1 || faults.Count(zktest.OpSASL) != 2 {
			t.Errorf("enforced=%v: %d dials, %d failed exchanges, %d SASL requests; want 1, 1, 2", enforced, faults.Dials(), stats.Failed(), faults.Count(zktest.OpSASL))
		}
		securitytest.NothingWritten(t, srv.Connect(t))
	}
}

// Fault: none. Without SASL, a client of a server that enforces it gets
// its session, and its first request fails: the server answers -124 and
// closes the connection.
func TestSASLRequiredWithoutSASL(t *testing.T) {
	srv := securitytest.SASLDigest(t)
	conn := securitytest.Open(t, srv.Servers, zkconn.WithoutSASL())
	_, err := conn.Create("/anonymous", nil, 0, zk.WorldACL(zk.PermAll))
	if err == nil {
		t.Fatal("an unauthenticated create succeeded on a server that enforces SASL")
	}
	t.Logf("unauthenticated create: %v", err)
	securitytest.NothingWritten(t, srv.Connect(t))
}

// Fault: the server restarts, then the session expires. The client
// authenticates again on the new connection (same session) and on the new
// session, before any other request, so the enforced server keeps
// serving it.
func TestSASLSurvivesRestartAndExpiry(t *testing.T) {
	srv := securitytest.SASLDigest(t)
	var stats sasl.Stats
	conn, faults := securitytest.FaultyClient(t, srv, zkconn.WithSASLStats(&stats))
	securitytest.WritesThroughRestartAndExpiry(t, srv, conn, faults, "/kafka-node")
	if stats.Succeeded() < 3 {
		t.Fatalf("%d exchanges succeeded; want at least 3 (first, restart, new session)", stats.Succeeded())
	}
}

// Fault: none. Credentials outside ASCII authenticate: those within
// ISO-8859-1 are hashed in it, others in UTF-8, as RFC 2831 asks and the
// server computes.
func TestSASLDigestNonASCII(t *testing.T) {
	users := [][2]string{{"kafka", "pässwörd"}, {"jörg", "geheim"}, {"euro", "päss€"}}
	var opts []zktest.Option
	for _, u := range users {
		opts = append(opts, zktest.WithSASLDigestUser(u[0], u[1]))
	}
	srv := zktest.Start(t, append(opts, zktest.WithSASLEnforced())...)
	for _, u := range users {
		conn := securitytest.Open(t, srv.Servers, zkconn.WithSASL(sasl.DigestMD5(u[0], u[1])))
		path := "/" + u[0]
		if _, err := conn.Create(path, nil, 0, zk.AuthACL(zk.PermAll)); err != nil {
			t.Fatalf("%s: %v", u[0], err)
		}
		acl, _, err := conn.GetACL(path)
		if err != nil || len(acl) != 1 || acl[0].ID != u[0] {
			t.Fatalf("%s: ACL %+v, %v", u[0], acl, err)
		}
		conn.Close()
	}
}

// Fault: the server restarts with the client's password changed, and
// does not enforce SASL, so an unauthenticated connection would be
// served. The reconnect's exchange is refused: the failure is logged and
// counted, later dials fail at once, and the create queued meanwhile is
// never sent; it fails and nothing is written.
func TestSASLReauthFailureSendsNothing(t *testing.T) {
	srv := zktest.Start(t, zktest.WithSASLDigestUser("kafka", "kafka-secret"))
	var stats sasl.Stats
	var logs syncBuffer
	logger := slog.New(slog.NewTextHandler(&logs, nil))
	conn, faults := securitytest.FaultyClient(t, srv, zkconn.WithSASLStats(&stats), zkconn.WithSASLLogger(logger),
		zkconn.WithZKOptions(zk.WithHostProvider(&zkconn.HostProvider{GiveUpAfter: time.Second})))
	if _, err := conn.Create("/before", nil, 0, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}
	if err := srv.SetSASLDigestPassword("kafka", "rotated"); err != nil {
		t.Fatal(err)
	}
	if err := srv.Stop(); err != nil {
		t.Fatal(err)
	}
	if err := srv.Restart(); err != nil {
		t.Fatal(err)
	}
	faults.ResetCounts()
	_, err := conn.Create("/after", nil, 0, zk.WorldACL(zk.PermAll))
	t.Logf("create after the refused reconnect: %v", err)
	if err == nil {
		t.Fatal("a create succeeded on a connection whose SASL exchange failed")
	}
	// The create may fail before the client reaches the restarted server,
	// if its attempts while the server was down outlasted GiveUpAfter;
	// the client dials on, and its first exchange is refused.
	for deadline := time.Now().Add(15 * time.Second); stats.Failed() == 0 && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	if n := faults.Requests(); n != 0 {
		t.Fatalf("%d requests sent after the refused exchange (%v); want none", n, faults.Counts())
	}
	if stats.ReauthFailed() != 1 {
		t.Fatalf("ReauthFailed %d; want 1 (failed %d)", stats.ReauthFailed(), stats.Failed())
	}
	if !strings.Contains(logs.String(), "level=ERROR") || !strings.Contains(logs.String(), "sasl: authentication failed on a reconnect") {
		t.Fatalf("log:\n%s", logs.String())
	}
	if strings.Contains(logs.String(), "kafka-secret") {
		t.Fatalf("the log holds the password:\n%s", logs.String())
	}
	check := securitytest.Open(t, srv.Servers, zkconn.WithSASL(sasl.DigestMD5("kafka", "rotated")))
	if ok, _, err := check.Exists("/after"); ok || err != nil {
		t.Fatalf("/after exists %v, %v; want not written", ok, err)
	}
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// Fault: the connection is cut during the SASL exchange, once after the
// server's challenge is sent (reply lost) and once before the client's
// response reaches it. An interrupted exchange is not a refusal: the
// client dials again, authenticates, and its create lands once.
func TestSASLInterruptedExchangeIsRetried(t *testing.T) {
	srv := securitytest.SASLDigest(t)
	for _, action := range []zktest.Action{zktest.DropReply, zktest.DropRequest} {
		faults := zktest.NewFaultDialer(t)
		faults.Dialer = srv.Dialer()
		faults.Arm(zktest.Fault{Action: action, Op: zktest.OpSASL})
		var stats sasl.Stats
		conn := srv.ConnectWith(t, zkconn.WithDialer(faults.Dial), zkconn.WithSASLStats(&stats))
		path := "/" + action.String()
		if _, err := conn.Create(path, nil, 0, zk.AuthACL(zk.PermAll)); err != nil {
			t.Fatalf("%v: %v", action, err)
		}
		if faults.Dials() != 2 || stats.Failed() != 1 || stats.Succeeded() != 1 || stats.ReauthFailed() != 0 {
			t.Fatalf("%v: %d dials, %d failed, %d succeeded, %d refused re-authentications; want 2, 1, 1, 0",
				action, faults.Dials(), stats.Failed(), stats.Succeeded(), stats.ReauthFailed())
		}
	}
}

// Fault: a wrong password, on a server that lets clients whose exchange
// failed carry on unauthenticated (zookeeper.allowSaslFailedClients): it
// answers the response with no error and no rspauth. The client refuses
// that reply (ServerInvalid) instead of going on unauthenticated, and
// writes nothing.
func TestSASLNoRspauthIsRefused(t *testing.T) {
	srv := zktest.Start(t, zktest.WithSASLDigestUser("kafka", "kafka-secret"), zktest.WithSetting("allowSaslFailedClients", "true"))
	err := securitytest.OpenFails(t, srv.Servers, zkconn.WithDialer(srv.Dialer()), zkconn.WithSASL(sasl.DigestMD5("kafka", "wrong")))
	var se *sasl.Error
	if !errors.As(err, &se) || se.Failure != sasl.ServerInvalid || !strings.Contains(err.Error(), "no rspauth") {
		t.Fatalf("%v; want a *sasl.Error, ServerInvalid, naming the missing rspauth", err)
	}
	securitytest.NothingWritten(t, srv.Connect(t))
}
