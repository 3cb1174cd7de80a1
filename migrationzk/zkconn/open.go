package zkconn

import (
	"context"
	"errors"
	"fmt"
	"net"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/kraftmigration/zkwriter/migrationzk/zkconn/sasl"
)

// DefaultAttempts is how many attempts Open lets fail for a reason that
// retrying does not cure before it gives up; see Open.
const DefaultAttempts = 3

// AuthError reports credentials the server refused: Open fails with it when
// AddAuth does, as for an unknown scheme (zk.ErrAuthFailed).
type AuthError struct {
	Scheme string
	Err    error
}

func (e *AuthError) Error() string {
	return fmt.Sprintf("zkconn: the server refused credentials of scheme %q: %v", e.Scheme, e.Err)
}

func (e *AuthError) Unwrap() error { return e.Err }

// Open dials servers and returns a client once it holds a session and has
// added the credentials of WithDigest and WithAuth, or an error once ctx
// ends or Open gives up. The client reconnects at once after a lost
// connection (see HostProvider), logs nothing unless told to
// (WithZKOptions(zk.WithLogger(l))), and gives up on a connection whose
// handshake goes unanswered for DefaultHandshakeTimeout. go-zookeeper
// options passed with WithZKOptions override Open's own, so callers may
// pass zk.WithHostProvider, zk.WithLogger and the like; a zk.WithDialer
// among them replaces the dialer whose failures Open watches (pass dialers
// with WithDialer instead). An invalid option fails Open with an error
// wrapping ErrInvalidArgument before anything is dialled.
//
// go-zookeeper retries a failing server about once a second until Close
// and reports nothing. Open watches each attempt instead: once
// DefaultAttempts attempts (see WithAttempts; at least one per server)
// made since a server last answered a handshake have failed for a reason
// that retrying does not cure, it gives up with the last one's error: a *HandshakeError for TLS and certificate failures, a
// *net.OpError for a refused connection (errors.Is(err,
// syscall.ECONNREFUSED)), a *net.DNSError for an unknown host, a
// *TLSMismatchError for a plaintext client at a port that speaks TLS or a
// WithTLS client at a plaintext one (confirmed by a probe of the port:
// a server without quorum also closes connections). Other
// failures (a connection closed or timed out, as while a server starts or
// an ensemble elects a leader) are retried until ctx ends, and the error
// then names the last one. Credentials the server refuses fail Open with
// an *AuthError; a SASL exchange it refuses (see WithSASL), or one the
// client cannot make, fails Open at once with a *sasl.Error. Open
// closes the client it gives up on.
func Open(ctx context.Context, servers []string, sessionTimeout time.Duration, opts ...Option) (*zk.Conn, error) {
	var cfg openConfig
	for i, o := range opts {
		if o == nil {
			cfg.fail("option %d is nil", i)
			continue
		}
		o(&cfg)
	}
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	dial, err := cfg.saslDialer(sessionTimeout)
	if err != nil {
		return nil, err
	}
	hp := &HostProvider{}
	watch := newAttemptWatch(cfg.attemptLimit(len(servers)))
	watch.probe = cfg.mismatchProbe()
	base := []func(*zk.Conn){
		zk.WithHostProvider(hp),
		zk.WithLogger(discardLogger{}),
		zk.WithDialer(watch.dialer(dial)),
	}
	conn, _, err := zk.Connect(servers, sessionTimeout, connOptions(zk.WithLogInfo(false), append(base, cfg.zkOpts...))...)
	if err != nil {
		return nil, err
	}
	if err := establish(ctx, conn, watch, cfg.creds); err != nil {
		watch.abandon()
		hp.abandon()
		go conn.Close() // Close waits up to a second for a client without a connection
		return nil, fmt.Errorf("zkconn: connect to %v: %w", servers, err)
	}
	watch.settle()
	return conn, nil
}

// mismatchProbe returns the probe for a TLS mismatch: for a plaintext
// server with WithTLS, for a TLS one with Open's own dialer, none with a
// dialer of the caller's.
func (c *openConfig) mismatchProbe() portProbe {
	switch {
	case c.tls:
		return probeForPlaintext
	case c.dialer == nil:
		return probeForTLS
	}
	return nil
}

func (c *openConfig) dialerOrDefault() zk.Dialer {
	if c.dialer != nil {
		return c.dialer
	}
	return HandshakeTimeoutDialer(net.DialTimeout, DefaultHandshakeTimeout)
}

// saslDialer returns the dialer with WithSASL's exchange made on its
// connections, or the dialer alone without SASL.
func (c *openConfig) saslDialer(sessionTimeout time.Duration) (zk.Dialer, error) {
	if c.sasl.mech == nil {
		return c.dialerOrDefault(), nil
	}
	return sasl.Dialer(c.dialerOrDefault(), c.sasl.mech, sessionTimeout, c.sasl.opts...)
}

// establish waits for a session, then adds creds in order.
func establish(ctx context.Context, conn *zk.Conn, watch *attemptWatch, creds []credential) error {
	if err := awaitSession(ctx, conn, watch); err != nil {
		return err
	}
	for _, cr := range creds {
		if err := authenticate(ctx, conn, watch, cr); err != nil {
			return err
		}
	}
	return nil
}

// awaitSession waits until conn holds a session, the watch gives up, or
// ctx ends.
func awaitSession(ctx context.Context, conn *zk.Conn, watch *attemptWatch) error {
	err := waitForSession(ctx, conn, watch.gaveUp)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, errGaveUp):
		failures, last := watch.outcome()
		return fmt.Errorf("gave up after %d failed attempts: %w", failures, last)
	}
	if _, last := watch.outcome(); last != nil {
		return fmt.Errorf("%w (last attempt: %w)", err, last)
	}
	return err
}

// authenticate adds cr, again on the next connection when the connection
// it was sent on closes first.
func authenticate(ctx context.Context, conn *zk.Conn, watch *attemptWatch, cr credential) error {
	for {
		done := make(chan error, 1)
		go func() { done <- conn.AddAuth(cr.scheme, cr.auth) }()
		var err error
		select {
		case err = <-done:
		case <-ctx.Done():
			return fmt.Errorf("add credentials of scheme %q: %w", cr.scheme, ctx.Err())
		}
		switch {
		case err == nil:
			return nil
		case isLostConnection(err):
			if err := awaitSession(ctx, conn, watch); err != nil {
				return err
			}
		default:
			return &AuthError{Scheme: cr.scheme, Err: err}
		}
	}
}

// isLostConnection reports whether AddAuth failed because its connection
// went away, not because the server refused the credentials.
func isLostConnection(err error) bool {
	var ne net.Error
	return errors.Is(err, zk.ErrConnectionClosed) || errors.Is(err, zk.ErrNoServer) || errors.As(err, &ne)
}
