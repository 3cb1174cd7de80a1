package zkconn

import (
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"strings"

	"github.com/go-zookeeper/zk"

	"github.com/kraftmigration/zkwriter/migrationzk/zkconn/sasl"
)

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
	sasl     saslConfig
	err      error // the first invalid option's
}

// saslConfig is what the SASL options set: the mechanism (nil for none)
// and the options of its dialer.
type saslConfig struct {
	mech sasl.Mechanism
	opts []sasl.Option
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

// WithSASL makes Open authenticate every connection with the SASL
// mechanism m, inside TLS when both are set: sasl.DigestMD5,
// sasl.Kerberos, or the one a Kafka JAAS file names (sasl.FromJAASFile,
// sasl.Settings). The exchange follows the session handshake on every
// connection, reconnections included, and comes before any request. A
// refused exchange fails Open at once with a *sasl.Error, and the
// client's later dials too (see sasl.Dialer): to recover, fix the cause,
// Close the client and Open a new one. The last of WithSASL and
// WithoutSASL counts. A nil m is invalid.
func WithSASL(m sasl.Mechanism) Option {
	return func(c *openConfig) {
		if m == nil {
			c.fail("WithSASL(nil)")
			return
		}
		c.sasl.mech = m
	}
}

// WithoutSASL makes Open use no SASL, whatever WithSASL came before it.
func WithoutSASL() Option {
	return func(c *openConfig) { c.sasl.mech = nil }
}

// WithSASLStats makes the clients Open makes with SASL count their
// exchanges in stats; nil is invalid.
func WithSASLStats(stats *sasl.Stats) Option {
	return withSASLOption(stats == nil, "WithSASLStats(nil)", sasl.WithStats(stats))
}

// WithSASLLogger makes the clients Open makes with SASL log their failed
// exchanges to l: a warning for each, an error when a client that had
// authenticated fails to on a reconnect. None is logged by default; nil
// is invalid.
func WithSASLLogger(l *slog.Logger) Option {
	return withSASLOption(l == nil, "WithSASLLogger(nil)", sasl.WithLogger(l))
}

// withSASLOption passes o to the SASL dialer, or fails as what when
// invalid.
func withSASLOption(invalid bool, what string, o sasl.Option) Option {
	return func(c *openConfig) {
		if invalid {
			c.fail("%s", what)
			return
		}
		c.sasl.opts = append(c.sasl.opts, o)
	}
}
