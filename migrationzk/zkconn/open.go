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

// ErrInvalidArgument is matched by the error of Open called with an invalid
// option. Nothing was dialled.
var ErrInvalidArgument = errors.New("zkconn: invalid argument")

// Option configures Open. An invalid option makes Open fail with an error
// wrapping ErrInvalidArgument; no option silently means its default.
type Option func(*openConfig)

type openConfig struct {
	dialer zk.Dialer
	// tls is set by WithTLS: a failed attempt is probed for a plaintext
	// server; without a dialer, for a TLS one.
	tls      bool
	creds    []credential
	zkOpts   []func(*zk.Conn)
	attempts int
	sasl     *saslOptions
	err      error // the first invalid option's
}

// fail records the error of an invalid option, unless an earlier one
// failed already.
func (c *openConfig) fail(format string, args ...any) {
	if c.err == nil {
		c.err = fmt.Errorf("%w: "+format, append([]any{ErrInvalidArgument}, args...)...)
	}
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
// A nil d is invalid.
func WithDialer(d zk.Dialer) Option {
	return func(c *openConfig) {
		if d == nil {
			c.fail("WithDialer(nil)")
			return
		}
		c.dialer, c.tls = d, false
	}
}

// WithTLS makes Open connect over TLS with config: it is
// WithDialer(TLSDialer(config, nil, DefaultHandshakeTimeout)). A nil
// config still means TLS, verified with the system's CAs.
func WithTLS(config *tls.Config) Option {
	dialer := WithDialer(TLSDialer(config, nil, DefaultHandshakeTimeout))
	return func(c *openConfig) {
		dialer(c)
		c.tls = true
	}
}

// WithDigest makes Open authenticate with ZooKeeper's digest scheme as
// user with password, as conn.AddAuth("digest", "user:password") does,
// before Open returns and so before any request of the caller. An empty
// user, or one containing a colon, is invalid: ZooKeeper splits the
// credentials at the first colon. The server accepts any user and password
// (a wrong password is not an error): only requests the ACLs deny fail,
// with zk.ErrNoAuth.
func WithDigest(user, password string) Option {
	if user == "" || strings.Contains(user, ":") {
		return func(c *openConfig) {
			c.fail("WithDigest: the user name must be non-empty and must not contain ':'")
		}
	}
	return WithAuth("digest", []byte(user+":"+password))
}

// WithAuth makes Open add credentials of scheme before it returns, as
// conn.AddAuth(scheme, auth) does. go-zookeeper sends them again on every
// connection it makes afterwards, before any other request, including
// after a server restart and on the new session that follows an expiry.
// An empty scheme is invalid, and so are digest credentials that are not
// user:password with a non-empty user.
func WithAuth(scheme string, auth []byte) Option {
	return func(c *openConfig) {
		if scheme == "" {
			c.fail("WithAuth: empty scheme")
			return
		}
		c.creds = append(c.creds, credential{scheme: scheme, auth: append([]byte(nil), auth...)})
	}
}

// WithZKOptions passes go-zookeeper options, such as zk.WithLogger, to the
// client; they override Open's own. A zk.WithDialer among them replaces
// the dialer Open watches, so that Open only learns why it failed when ctx
// ends: pass dialers with WithDialer instead.
// A nil option among them is invalid.
func WithZKOptions(opts ...func(*zk.Conn)) Option {
	return func(c *openConfig) {
		for i, o := range opts {
			if o == nil {
				c.fail("WithZKOptions: option %d is nil", i)
				return
			}
		}
		c.zkOpts = append(c.zkOpts, opts...)
	}
}

// WithAttempts sets how many attempts may fail for a reason that retrying
// does not cure before Open gives up; n < 1 is invalid. Without it Open
// allows DefaultAttempts. Open makes at least one attempt per server. A
// server that answers a handshake starts the count again.
func WithAttempts(n int) Option {
	return func(c *openConfig) {
		if n < 1 {
			c.fail("WithAttempts(%d): at least 1", n)
			return
		}
		c.attempts = n
	}
}

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
	if c.err != nil {
		return c.err
	}
	for _, cr := range c.creds {
		if cr.scheme == "digest" && !strings.Contains(string(cr.auth), ":") {
			return fmt.Errorf("%w: digest credentials must be user:password", ErrInvalidArgument)
		}
		if cr.scheme == "digest" && strings.HasPrefix(string(cr.auth), ":") {
			return fmt.Errorf("%w: digest credentials need a user name", ErrInvalidArgument)
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
// an *AuthError; a SASL exchange it refuses fails Open at once with a
// *SASLError, and a JAAS file that cannot be used with a *JAASError. Open
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
	dial, err := cfg.saslDialer(cfg.dialerOrDefault(), sessionTimeout)
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
