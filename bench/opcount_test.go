package bench_test

import (
	"context"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/kraftmigration/zkwriter/internal/wire"
	"github.com/kraftmigration/zkwriter/migrationzk/zktest"
)

// opCounter is a dialer that counts the znode operations of the requests
// sent on its connections, a multi's ops one by one, by opcode.
type opCounter struct {
	mu       sync.Mutex
	ops      map[int32]int64
	requests int64
}

// dial dials address and counts what is written to it.
func (c *opCounter) dial(network, address string, timeout time.Duration) (net.Conn, error) {
	conn, err := net.DialTimeout(network, address, timeout)
	if err != nil {
		return nil, err
	}
	return &countedConn{Conn: conn, c: c}, nil
}

// writes returns the create, delete and setData ops sent since the last
// reset, in multis or alone.
func (c *opCounter) writes() (creates, deletes, sets int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.ops[wire.OpCreate], c.ops[wire.OpDelete], c.ops[wire.OpSetData]
}

// sent returns the requests sent since the last reset, a multi as one,
// but for the session's pings, which the client sends when it has been
// idle for a while.
func (c *opCounter) sent() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.requests
}

func (c *opCounter) reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.ops, c.requests = nil, 0
}

func (c *opCounter) count(req wire.Request) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ops == nil {
		c.ops = map[int32]int64{}
	}
	if req.Opcode != wire.OpPing {
		c.requests++
	}
	for _, op := range req.Ops {
		c.ops[op.Opcode]++
	}
}

// countedConn parses the frames written to it, after the handshake's.
type countedConn struct {
	net.Conn
	c       *opCounter
	mu      sync.Mutex
	out     wire.Framer
	greeted bool
}

func (cc *countedConn) Write(p []byte) (int, error) {
	cc.mu.Lock()
	cc.out.Write(p)
	for {
		frame, err := cc.out.Next()
		if err != nil || frame == nil {
			break
		}
		if !cc.greeted {
			cc.greeted = true
			continue
		}
		if req, err := wire.ParseRequest(frame[wire.LengthPrefixSize:]); err == nil {
			cc.c.count(req)
		}
	}
	cc.mu.Unlock()
	return cc.Conn.Write(p)
}

// newCountedTopicEnv is newTopicEnv whose FaultDialer dials through an
// opCounter, returned with it.
func newCountedTopicEnv(tb testing.TB, srv *zktest.Server, admin *zk.Conn, name string) (*env, *opCounter) {
	tb.Helper()
	oc := &opCounter{}
	faults := zktest.NewFaultDialer(tb)
	faults.Dialer = oc.dial
	e := newEnv(tb, srv.Servers, admin, srv.Path("/"+name), nil, faults.Option())
	e.faults = faults
	if err := e.w.CreateTopLevelPaths(context.Background()); err != nil {
		tb.Fatalf("CreateTopLevelPaths: %v", err)
	}
	return e, oc
}
