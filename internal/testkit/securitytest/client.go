package securitytest

import (
	"context"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/kraftmigration/zkwriter/migrationzk/zkconn"
	"github.com/kraftmigration/zkwriter/migrationzk/zktest"
)

// Target is a server or an ensemble zktest started.
type Target interface {
	Dialer() zk.Dialer
	ConnectWith(t testing.TB, opts ...zkconn.Option) *zk.Conn
}

// FaultyClient returns a client of target, authenticated as its Connect
// is and then with opts, that dials through the FaultDialer it returns;
// the FaultDialer dials with target's dialer, on the clear side of TLS.
func FaultyClient(t testing.TB, target Target, opts ...zkconn.Option) (*zk.Conn, *zktest.FaultDialer) {
	t.Helper()
	faults := zktest.NewFaultDialer(t)
	faults.Dialer = target.Dialer()
	return target.ConnectWith(t, append([]zkconn.Option{zkconn.WithDialer(faults.Dial)}, opts...)...), faults
}

// openTimeout is the context of Open and OpenFails.
const openTimeout = 30 * time.Second

// FailFastBound is how long OpenFails lets an Open that cannot succeed
// take, a fraction of its context.
const FailFastBound = 8 * time.Second

// Open opens a client of servers with opts and a session timeout of
// 10s, closed when the test ends.
func Open(t testing.TB, servers []string, opts ...zkconn.Option) *zk.Conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), openTimeout)
	defer cancel()
	conn, err := zkconn.Open(ctx, servers, 10*time.Second, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(conn.Close)
	return conn
}

// OpenFails opens a client of servers with opts, as Open does, and
// returns the error, failing t unless Open failed within FailFastBound.
func OpenFails(t testing.TB, servers []string, opts ...zkconn.Option) error {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), openTimeout)
	defer cancel()
	start := time.Now()
	conn, err := zkconn.Open(ctx, servers, 10*time.Second, opts...)
	elapsed := time.Since(start)
	if err == nil {
		conn.Close()
		t.Fatal("Open succeeded")
	}
	t.Logf("after %v: %v", elapsed.Round(time.Millisecond), err)
	if elapsed > FailFastBound {
		t.Fatalf("Open took %v to fail, want under %v", elapsed, FailFastBound)
	}
	return err
}

// WaitSession waits up to 30s until conn holds a session.
func WaitSession(t testing.TB, conn *zk.Conn) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := zkconn.WaitForSession(ctx, conn); err != nil {
		t.Fatal(err)
	}
}

// WaitNewSession waits up to 30s until conn holds a session other than
// old.
func WaitNewSession(t testing.TB, conn *zk.Conn, old int64) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for conn.SessionID() == old || conn.State() != zk.StateHasSession {
		if time.Now().After(deadline) {
			t.Fatalf("client kept session %x (state %v)", old, conn.State())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// WritesThroughRestartAndExpiry injects the two faults after which a
// client must authenticate again by itself, and checks that it writes
// after each: on conn, which dials through faults, it creates path with
// an ACL of scheme auth (admitting only the identity conn authenticated
// as); stops and restarts srv, and sets path on the same session; then
// expires that session, and sets path on the new one.
func WritesThroughRestartAndExpiry(t testing.TB, srv *zktest.Server, conn *zk.Conn, faults *zktest.FaultDialer, path string) {
	t.Helper()
	if _, err := conn.Create(path, []byte("v0"), 0, zk.AuthACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}
	session := conn.SessionID()
	if err := srv.Stop(); err != nil {
		t.Fatal(err)
	}
	if err := srv.Restart(); err != nil {
		t.Fatal(err)
	}
	WaitSession(t, conn)
	if _, err := conn.Set(path, []byte("after restart"), -1); err != nil || conn.SessionID() != session {
		t.Fatalf("write after a server restart: %v, session %x (was %x)", err, conn.SessionID(), session)
	}
	id, password := faults.Session()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := srv.ExpireSession(ctx, srv.Addr(), id, password); err != nil {
		t.Fatal(err)
	}
	WaitNewSession(t, conn, id)
	if _, err := conn.Set(path, []byte("after expiry"), -1); err != nil {
		t.Fatalf("write on the session after expiry: %v", err)
	}
}

// NothingWritten fails t unless the root of the server conn is connected
// to holds only ZooKeeper's own /zookeeper: a client that failed wrote
// nothing.
func NothingWritten(t testing.TB, conn *zk.Conn) {
	t.Helper()
	children, _, err := conn.Children("/")
	if err != nil || len(children) != 1 || children[0] != "zookeeper" {
		t.Fatalf("the server holds %v (%v), want only /zookeeper", children, err)
	}
}
