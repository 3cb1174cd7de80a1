// Package zkconn connects go-zookeeper clients that reconnect at once,
// over TLS and authenticated when asked to, and that fail fast when they
// cannot connect.
//
// go-zookeeper's default host provider makes a client wait about a second
// before it tries the first server of its list again, so a client of a
// single server pays that second after every dropped connection, and so does
// every write whose acknowledgement was lost. HostProvider retries at once
// and backs off only after attempts have failed. Open, the package's one
// entry point, returns a client only once it holds a session.
//
// go-zookeeper reports no connection failure: it retries about once a
// second until Close, so a wrong address, a refused connection or a
// certificate the server rejects cost the caller its whole timeout and
// leave it with "context deadline exceeded". Open watches each attempt and
// gives up with the cause after a few that retrying cannot cure, such as a
// *HandshakeError that says which certificate was refused and why.
// TLSDialer makes TLS connections with the handshake bounded; WithDigest
// and WithAuth add credentials before any other request, which a server
// that enforces authentication requires.
//
// WithSASL authenticates every connection the client makes with a SASL
// mechanism of package sasl (DIGEST-MD5, Kerberos, or the one a Kafka
// JAAS file names), inside TLS when both are set, before any request. A
// refusal fails Open with a *sasl.Error.
package zkconn

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/cenkalti/backoff/v4"
	"github.com/go-zookeeper/zk"
)

// HostProvider is a zk.HostProvider that reconnects at once after a lost
// connection and backs off only after a full round of failed attempts.
//
// go-zookeeper sleeps a fixed second and fails requests queued while
// disconnected with zk.ErrNoServer whenever its host provider reports that
// it has tried every server. HostProvider reports that only once it has
// failed to connect for GiveUpAfter; until then it paces its rounds itself
// with exponential backoff, so the first attempt after a disconnect costs
// nothing.
type HostProvider struct {
	// InitialBackoff is the pause after the first full round of failed
	// attempts. It doubles each round up to MaxBackoff. Zero means 10ms.
	InitialBackoff time.Duration
	// MaxBackoff caps the pause between rounds. Zero means 500ms.
	MaxBackoff time.Duration
	// GiveUpAfter is how long attempts may fail before queued requests are
	// failed with zk.ErrNoServer. Zero means 10s.
	GiveUpAfter time.Duration

	mu          sync.Mutex
	servers     []string
	next        int
	failed      int       // attempts since the last successful connection
	failedSince time.Time // first failed attempt of the current streak
	pause       time.Duration
	sleep       func(time.Duration)
	abandoned   bool // Open gave up: report every server tried at once
}

var _ zk.HostProvider = (*HostProvider)(nil)

// Init is called by go-zookeeper with the servers of the connect string.
func (hp *HostProvider) Init(servers []string) error {
	if len(servers) == 0 {
		return errors.New("zkconn: no servers")
	}
	hp.mu.Lock()
	defer hp.mu.Unlock()
	hp.servers = append([]string(nil), servers...)
	hp.next = 0
	hp.failed = -1 // the first Next follows no attempt
	if hp.sleep == nil {
		hp.sleep = time.Sleep
	}
	return nil
}

// Len returns the number of servers.
func (hp *HostProvider) Len() int {
	hp.mu.Lock()
	defer hp.mu.Unlock()
	return len(hp.servers)
}

// Next returns the server to try next. It is called before every attempt;
// a call not preceded by Connected means the previous attempt failed.
func (hp *HostProvider) Next() (server string, retryStart bool) {
	hp.mu.Lock()
	if hp.abandoned {
		defer hp.mu.Unlock()
		return hp.servers[0], true
	}
	hp.failed++
	var pause time.Duration
	if hp.failed > 0 {
		if hp.failed == 1 {
			hp.failedSince = time.Now()
		}
		if hp.failed%len(hp.servers) == 0 {
			// A whole round failed: back off before the next one.
			pause = hp.nextPause()
			if time.Since(hp.failedSince) >= hp.giveUpAfter() {
				retryStart = true
				hp.failedSince = time.Now()
			}
		}
	}
	server = hp.servers[hp.next]
	hp.next = (hp.next + 1) % len(hp.servers)
	sleep := hp.sleep
	hp.mu.Unlock()
	if pause > 0 && !retryStart {
		// When retryStart is set go-zookeeper sleeps by itself.
		sleep(pause)
	}
	return server, retryStart
}

// abandon makes every later Next report that all servers were tried, so
// that go-zookeeper notices a Close without dialling again.
func (hp *HostProvider) abandon() {
	hp.mu.Lock()
	defer hp.mu.Unlock()
	hp.abandoned = true
}

func (hp *HostProvider) nextPause() time.Duration {
	initial, maxPause := hp.InitialBackoff, hp.MaxBackoff
	if initial <= 0 {
		initial = 10 * time.Millisecond
	}
	if maxPause <= 0 {
		maxPause = 500 * time.Millisecond
	}
	if hp.pause == 0 {
		hp.pause = initial
	} else {
		hp.pause *= 2
	}
	if hp.pause > maxPause {
		hp.pause = maxPause
	}
	return hp.pause
}

func (hp *HostProvider) giveUpAfter() time.Duration {
	if hp.GiveUpAfter <= 0 {
		return 10 * time.Second
	}
	return hp.GiveUpAfter
}

// Connected is called by go-zookeeper once a session is established on the
// server last returned by Next. The next attempt after a disconnect goes to
// the same server at once; the following ones walk the list.
func (hp *HostProvider) Connected() {
	hp.mu.Lock()
	defer hp.mu.Unlock()
	hp.failed = -1
	hp.pause = 0
	// Reconnect to the same server first: it is the one most likely to
	// still hold our session, and a killed one is refused in microseconds.
	hp.next = (hp.next - 1 + len(hp.servers)) % len(hp.servers)
}

// connOptions converts plain functions to go-zookeeper's unexported option
// type, whose underlying type they share; sample fixes that type.
func connOptions[O ~func(*zk.Conn)](sample O, opts []func(*zk.Conn)) []O {
	out := make([]O, 0, len(opts)+1)
	out = append(out, sample)
	for _, o := range opts {
		out = append(out, O(o))
	}
	return out
}

// StateReporter is the part of *zk.Conn that WaitForSession watches.
type StateReporter interface {
	State() zk.State
}

// WaitForSession polls conn until it holds a session or ctx ends.
func WaitForSession(ctx context.Context, conn StateReporter) error {
	return waitForSession(ctx, conn, nil)
}

// waitForSession polls conn until it holds a session, ctx ends, or giveUp
// is closed (errGaveUp).
func waitForSession(ctx context.Context, conn StateReporter, giveUp <-chan struct{}) error {
	b := backoff.NewExponentialBackOff()
	b.InitialInterval = time.Millisecond
	b.MaxInterval = 50 * time.Millisecond
	b.Reset()
	b.MaxElapsedTime = 0
	var t *time.Timer
	for {
		if conn.State() == zk.StateHasSession {
			return nil
		}
		d := b.NextBackOff()
		if t == nil {
			t = time.NewTimer(d)
			defer t.Stop()
		} else {
			t.Reset(d)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-giveUp:
			return errGaveUp
		case <-t.C:
		}
	}
}

// SlogLogger adapts a *slog.Logger to go-zookeeper's Logger, at debug level.
func SlogLogger(l *slog.Logger) zk.Logger { return slogLogger{l} }

type slogLogger struct{ l *slog.Logger }

func (s slogLogger) Printf(format string, args ...any) {
	s.l.Debug(fmt.Sprintf(format, args...), slog.String("component", "go-zookeeper"))
}

type discardLogger struct{}

func (discardLogger) Printf(string, ...any) {}
