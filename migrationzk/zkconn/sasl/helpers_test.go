package sasl_test

import (
	"context"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/kraftmigration/zkwriter/migrationzk/zkconn"
)

func open(t *testing.T, servers []string, opts ...zkconn.Option) *zk.Conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := zkconn.Open(ctx, servers, 10*time.Second, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(conn.Close)
	return conn
}

// openFails opens with opts under a 30s context and returns the error,
// failing t unless it came well before the context ended.
func openFails(t *testing.T, servers []string, opts ...zkconn.Option) error {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	start := time.Now()
	conn, err := zkconn.Open(ctx, servers, 10*time.Second, opts...)
	elapsed := time.Since(start)
	if err == nil {
		conn.Close()
		t.Fatal("Open succeeded")
	}
	t.Logf("after %v: %v", elapsed.Round(time.Millisecond), err)
	if elapsed > 8*time.Second {
		t.Fatalf("Open took %v to fail, want under 8s", elapsed)
	}
	return err
}

func waitSession(t *testing.T, conn *zk.Conn) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := zkconn.WaitForSession(ctx, conn); err != nil {
		t.Fatal(err)
	}
}

func waitNewSession(t *testing.T, conn *zk.Conn, old int64) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for conn.SessionID() == old || conn.State() != zk.StateHasSession {
		if time.Now().After(deadline) {
			t.Fatalf("client kept session %x (state %v)", old, conn.State())
		}
		time.Sleep(10 * time.Millisecond)
	}
}
