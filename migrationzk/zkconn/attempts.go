package zkconn

import (
	"errors"
	"net"
	"sync"
	"syscall"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/kraftmigration/zkwriter/migrationzk/zkconn/sasl"
)

// errAbandoned is what a watched dialer returns once Open has given up on
// its client, so that go-zookeeper stops dialling.
var errAbandoned = errors.New("zkconn: the client was abandoned")

// errGaveUp tells awaitSession that the watch gave up.
var errGaveUp = errors.New("zkconn: gave up")

// attemptWatch follows the connection attempts of one client: it counts
// the attempts that failed, since the server last answered a handshake,
// for a reason that retrying does not cure, and closes gaveUp when there
// are limit of them.
type attemptWatch struct {
	limit  int
	gaveUp chan struct{}
	// probe explains a failed attempt as a TLS mismatch, if it was one;
	// nil when none is probed for.
	probe portProbe

	mu        sync.Mutex
	failures  int   // permanent failures since the last answered handshake
	last      error // the latest failure since then
	closed    bool  // gaveUp is closed
	abandoned bool
	// settled is set once Open has returned the client: a running client
	// never gives up, so its failures are not probed.
	settled bool
}

func newAttemptWatch(limit int) *attemptWatch {
	return &attemptWatch{limit: limit, gaveUp: make(chan struct{})}
}

// dialer returns d watched: its errors, and the errors of its connections
// before the handshake reply, count as failed attempts.
func (w *attemptWatch) dialer(d zk.Dialer) zk.Dialer {
	return func(network, address string, timeout time.Duration) (net.Conn, error) {
		if w.isAbandoned() {
			return nil, errAbandoned
		}
		c, err := d(network, address, timeout)
		if err != nil {
			w.failed(w.explain(address, err))
			return nil, err
		}
		return &watchedConn{Conn: c, watch: w, address: address, reply: newFirstFrame()}, nil
	}
}

func (w *attemptWatch) failed(err error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.last = err
	if !isPermanent(err) {
		return
	}
	w.failures++
	if w.failures >= w.limit && !w.closed {
		w.closed = true
		close(w.gaveUp)
	}
}

// explain returns err, the failure of an attempt at address, or the
// *TLSMismatchError a probe of the port finds behind it. Only failures
// that retrying might cure are probed, and only until Open returns.
func (w *attemptWatch) explain(address string, err error) error {
	w.mu.Lock()
	probe := w.probe
	if w.settled || w.abandoned || isPermanent(err) {
		probe = nil
	}
	w.mu.Unlock()
	if probe == nil {
		return err
	}
	if mismatch := probe(address, err); mismatch != nil {
		return mismatch
	}
	return err
}

// settle marks the client as returned by Open.
func (w *attemptWatch) settle() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.settled = true
}

func (w *attemptWatch) succeeded() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.failures, w.last = 0, nil
}

// outcome returns the permanent failures counted and the latest failure.
func (w *attemptWatch) outcome() (failures int, last error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.failures, w.last
}

func (w *attemptWatch) abandon() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.abandoned = true
}

func (w *attemptWatch) isAbandoned() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.abandoned
}

// isPermanent reports whether a failed attempt will fail the same way when
// repeated: a TLS or certificate error, a SASL failure, a refused
// connection, an unknown host.
func isPermanent(err error) bool {
	var mismatch *TLSMismatchError
	if errors.As(err, &mismatch) {
		return true // it wraps the failure it explains
	}
	var he *HandshakeError
	if errors.As(err, &he) {
		return !he.Transient()
	}
	var se *sasl.Error
	if errors.As(err, &se) {
		return true // a first connect fails fast even when no KDC answers
	}
	var dns *net.DNSError
	if errors.As(err, &dns) {
		return dns.IsNotFound
	}
	return errors.Is(err, syscall.ECONNREFUSED)
}

// watchedConn reports to its watch whether the server's handshake reply
// arrived or the connection failed first.
type watchedConn struct {
	net.Conn
	watch   *attemptWatch
	address string

	mu       sync.Mutex
	reply    firstFrame
	reported bool
}

func (c *watchedConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	c.mu.Lock()
	c.reply.consume(p[:n])
	answered, report := c.reply.done(), !c.reported && (c.reply.done() || err != nil)
	c.reported = c.reported || report
	c.mu.Unlock()
	switch {
	case report && answered:
		c.watch.succeeded()
	case report:
		c.watch.failed(c.watch.explain(c.address, err))
	}
	return n, err
}
