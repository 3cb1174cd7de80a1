package zkconn_test

import (
	"context"
	"errors"
	"net"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/kraftmigration/zkwriter/migrationzk/zkconn"
	"github.com/kraftmigration/zkwriter/migrationzk/zktest"
)

// silentConn never delivers what the server sends, as a connection to a
// ZooKeeper 3.8 server that received the handshake before it ran: open,
// and silent. Reads end only at their deadline.
type silentConn struct{ net.Conn }

func (c silentConn) Read(p []byte) (int, error) {
	for {
		if _, err := c.Conn.Read(p); err != nil {
			return 0, err
		}
	}
}

// silentFirst dials address, and makes the first connection silent.
func silentFirst(dials *atomic.Int32) zk.Dialer {
	return func(network, address string, timeout time.Duration) (net.Conn, error) {
		c, err := net.DialTimeout(network, address, timeout)
		if err != nil {
			return nil, err
		}
		if dials.Add(1) == 1 {
			return silentConn{c}, nil
		}
		return c, nil
	}
}

// TestHandshakeTimeout checks that a client gives up on a connection whose
// handshake is never answered and connects on the next one, while without
// the bound it waits far longer than the session timeout.
// Fault: the server's reply to the first handshake is never delivered.
func TestHandshakeTimeout(t *testing.T) {
	srv := zktest.Start(t)

	var dials atomic.Int32
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	start := time.Now()
	conn, err := zkconn.Open(ctx, srv.Servers, 10*time.Second, zkconn.WithZKOptions(zk.WithDialer(zkconn.HandshakeTimeoutDialer(silentFirst(&dials), 500*time.Millisecond))))
	if err != nil {
		t.Fatalf("with the bound: %v", err)
	}
	conn.Close()
	if elapsed := time.Since(start); elapsed > 5*time.Second || dials.Load() < 2 {
		t.Fatalf("connected after %v and %d dials", elapsed, dials.Load())
	}

	dials.Store(0)
	ctx, cancel = context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	_, err = zkconn.Open(ctx, srv.Servers, 10*time.Second, zkconn.WithZKOptions(zk.WithDialer(silentFirst(&dials))))
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("without the bound the client should still wait for the reply: %v", err)
	}
}
