package zkconn

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"strings"
	"time"

	"github.com/go-zookeeper/zk"
)

// DefaultAttempts is how many attempts Open lets fail for a reason that
// retrying does not cure before it gives up; see Open.
const DefaultAttempts = 3

// Option configures Open.
type Option func(*openConfig)

type openConfig struct {
	dialer   zk.Dialer
	creds    []credential
	zkOpts   []func(*zk.Conn)
	attempts int
	sasl     *saslOptions
}

// credential is what conn.AddAuth is called with.
type credential struct {
	scheme string
	auth   []byte
}

// WithDialer makes Open connect with d instead of net.DialTimeout with
// the handshake bound of HandshakeTimeoutDialer. Open watches the
// connections d makes, so it reports their failures (see Open); d may be
// a TLSDialer, or a zktest.FaultDialer's Dial over one.
func WithDialer(d zk.Dialer) Option { return func(c *openConfig) { c.dialer = d } }

// WithTLS makes Open connect over TLS with config: it is
// WithDialer(TLSDialer(config, nil, DefaultHandshakeTimeout)). A nil
// config still means TLS, verified with the system's CAs.
func WithTLS(config *tls.Config) Option {
	return WithDialer(TLSDialer(config, nil, DefaultHandshakeTimeout))
}

// WithDigest makes Open authenticate with ZooKeeper's digest scheme as
// user with password, as conn.AddAuth("digest", "user:password") does,
// before Open returns and so before any request of the caller. The user
// name must not contain a colon. The server accepts any user and password
// (a wrong password is not an error): only requests the ACLs deny fail,
// with zk.ErrNoAuth.
func WithDigest(user, password string) Option {
	return WithAuth("digest", []byte(user+":"+password))
}

// WithAuth makes Open add credentials of scheme before it returns, as
// conn.AddAuth(scheme, auth) does. go-zookeeper sends them again on every
// connection it makes afterwards, before any other request, including
// after a server restart and on the new session that follows an expiry.
func WithAuth(scheme string, auth []byte) Option {
	return func(c *openConfig) {
		c.creds = append(c.creds, credential{scheme: scheme, auth: append([]byte(nil), auth...)})
	}
}

// WithZKOptions passes go-zookeeper options, such as zk.WithLogger, to the
// client; they override Open's own. A zk.WithDialer among them replaces
// the dialer Open watches, so that Open only learns why it failed when ctx
// ends: pass dialers with WithDialer instead.
func WithZKOptions(opts ...func(*zk.Conn)) Option {
	return func(c *openConfig) { c.zkOpts = append(c.zkOpts, opts...) }
}

// WithAttempts sets how many attempts may fail for a reason that retrying
// does not cure before Open gives up; n < 1 means DefaultAttempts. Open
// makes at least one attempt per server. A server that answers a
// handshake starts the count again.
func WithAttempts(n int) Option { return func(c *openConfig) { c.attempts = n } }

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

func (c *openConfig) validate() error {
	for _, cr := range c.creds {
		if cr.scheme == "digest" && !strings.Contains(string(cr.auth), ":") {
			return errors.New("zkconn: digest credentials must be user:password")
		}
		if cr.scheme == "digest" && strings.HasPrefix(string(cr.auth), ":") {
			return errors.New("zkconn: digest credentials need a user name")
		}
	}
	return nil
}

func (c *openConfig) attemptLimit(servers int) int {
	n := c.attempts
	if n < 1 {
		n = DefaultAttempts
	}
	return max(n, servers)
}

// Open dials servers and returns a client once it holds a session and has
// added the credentials of WithDigest and WithAuth, or an error once ctx
// ends or Open gives up. The client reconnects at once after a lost
// connection (see HostProvider), logs nothing unless told to
// (WithZKOptions(zk.WithLogger(l))), and gives up on a connection whose
// handshake goes unanswered for DefaultHandshakeTimeout.
//
// go-zookeeper retries a failing server about once a second until Close
// and reports nothing. Open watches each attempt instead: once
// DefaultAttempts attempts (see WithAttempts; at least one per server)
// made since a server last answered a handshake have failed for a reason
// that retrying does not cure, it gives up with the last one's error: a *HandshakeError for TLS and certificate failures, a
// *net.OpError for a refused connection (errors.Is(err,
// syscall.ECONNREFUSED)), a *net.DNSError for an unknown host. Other
// failures (a connection closed or timed out, as while a server starts or
// an ensemble elects a leader) are retried until ctx ends, and the error
// then names the last one. Credentials the server refuses fail Open with
// an *AuthError; a SASL exchange it refuses fails Open at once with a
// *SASLError, and a JAAS file that cannot be used with a *JAASError. Open
// closes the client it gives up on.
func Open(ctx context.Context, servers []string, sessionTimeout time.Duration, opts ...Option) (*zk.Conn, error) {
	var cfg openConfig
	for _, o := range opts {
		o(&cfg)
	}
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	dial, err := cfg.saslDialer(cfg.dialerOrDefault(), sessionTimeout)
	if err != nil {
		return nil, err
	}
	hp := &HostProvider{}
	watch := newAttemptWatch(cfg.attemptLimit(len(servers)))
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
	return conn, nil
}

func (c *openConfig) dialerOrDefault() zk.Dialer {
	if c.dialer != nil {
		return c.dialer
	}
	return HandshakeTimeoutDialer(net.DialTimeout, DefaultHandshakeTimeout)
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
