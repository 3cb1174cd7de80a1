package migrationzk_test

import (
	"context"
	"errors"
	"io"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/kraftmigration/zkwriter/migrationzk"
	"github.com/kraftmigration/zkwriter/migrationzk/zkconn"
	"github.com/kraftmigration/zkwriter/migrationzk/zktest"
)

// switchPort is a loopback port that forwards each connection to a
// target that can be changed: a server that starts speaking TLS on a port
// its clients know, as after a rolling restart with new settings.
type switchPort struct {
	t  *testing.T
	ln net.Listener

	mu       sync.Mutex
	target   string
	open     []net.Conn
	accepted int // connections accepted since the last switch
}

func newSwitchPort(t *testing.T, target string) *switchPort {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &switchPort{t: t, ln: ln, target: target}
	t.Cleanup(func() { ln.Close(); p.cut() })
	go p.serve()
	return p
}

func (p *switchPort) addr() string { return p.ln.Addr().String() }

func (p *switchPort) serve() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		p.mu.Lock()
		target := p.target
		p.accepted++
		p.mu.Unlock()
		up, err := net.Dial("tcp", target)
		if err != nil {
			c.Close()
			continue
		}
		p.mu.Lock()
		p.open = append(p.open, c, up)
		p.mu.Unlock()
		go func() { _, _ = io.Copy(up, c); up.Close() }()
		go func() { _, _ = io.Copy(c, up); c.Close() }()
	}
}

// cut closes every forwarded connection.
func (p *switchPort) cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.open {
		c.Close()
	}
	p.open = nil
}

// switchTo forwards new connections to target and cuts the open ones.
func (p *switchPort) switchTo(target string) {
	p.mu.Lock()
	p.target, p.accepted = target, 0
	p.mu.Unlock()
	p.cut()
}

func (p *switchPort) attempts() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.accepted
}

// Fault: the port a running Writer's client is connected to starts
// speaking TLS only, then plaintext again, as in a rolling restart. Open
// fails fast there with a *TLSMismatchError, but the running client never
// gives up on it alone: calls made meanwhile wait out their own contexts,
// and the next one after plaintext is back succeeds on the same session.
func TestRunningWriterOutlastsTLSMismatch(t *testing.T) {
	plain := zktest.Start(t)
	secure := zktest.Start(t, zktest.WithTLS())
	port := newSwitchPort(t, plain.Addr())
	ctx := testContext(t)
	conn, err := zkconn.Open(ctx, []string{port.addr()}, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	session := conn.SessionID()
	w, err := migrationzk.New(conn)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Read(ctx, "/zookeeper"); err != nil {
		t.Fatal(err)
	}

	port.switchTo(secure.Addr())
	octx, cancel := context.WithTimeout(ctx, 10*time.Second)
	_, err = zkconn.Open(octx, []string{port.addr()}, 10*time.Second)
	cancel()
	if !errors.As(err, new(*zkconn.TLSMismatchError)) {
		t.Fatalf("a first connect to the TLS port: %v, want a *TLSMismatchError", err)
	}
	before := port.attempts()
	rctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	_, err = w.Read(rctx, "/zookeeper")
	cancel()
	if !errors.Is(err, context.DeadlineExceeded) || errors.As(err, new(*zkconn.TLSMismatchError)) {
		t.Fatalf("a read while the port speaks TLS: %v, want its context's deadline", err)
	}
	if n := port.attempts() - before; n < 2 {
		t.Fatalf("the running client made %d attempts at the TLS port, want a few", n)
	}

	port.switchTo(plain.Addr())
	got, err := w.Read(ctx, "/zookeeper")
	if err != nil || !got[0].Exists {
		t.Fatalf("a read once plaintext is back: %+v, %v", got, err)
	}
	if conn.SessionID() != session {
		t.Fatalf("session %#x, want the first, %#x", conn.SessionID(), session)
	}
}
