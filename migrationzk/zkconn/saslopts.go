package zkconn

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"time"

	"github.com/go-zookeeper/zk"
)

// saslOptions are the SASL options given to Open; the last mechanism
// option wins.
type saslOptions struct {
	mech     func() (saslMechanism, error)
	settings *SASLSettings // from WithJAASConfig or WithSASLSettings
	stats    *SASLStats
	log      *slog.Logger
}

func (c *openConfig) saslOpts() *saslOptions {
	if c.sasl == nil {
		c.sasl = &saslOptions{}
	}
	return c.sasl
}

// WithSASLDigest makes Open authenticate every connection with SASL
// DIGEST-MD5 as user with password, as a Kafka broker does with a JAAS
// Client section of ZooKeeper's DigestLoginModule. The exchange follows
// the session handshake on every connection, reconnections included, and
// comes before any request; the server then knows the client as
// sasl:user. Unlike WithDigest, a wrong password fails Open with a
// *SASLError (Failure SASLRejected). The server must have a JAAS Server
// section that names the user.
//
// go-zookeeper would retry a refused exchange every second, forever,
// each attempt leaving a session on the server. Instead, once the server
// has refused an exchange (any *SASLError but SASLKDCUnreachable), the
// client's later dials fail at once with that error and reach no server;
// a running client's requests then fail with zk.ErrNoServer. To recover,
// fix the cause, Close the client and Open a new one.
func WithSASLDigest(user, password string) Option {
	return func(c *openConfig) {
		s := c.saslOpts()
		s.settings = nil
		s.mech = func() (saslMechanism, error) {
			if user == "" {
				return nil, &SASLError{Mechanism: digestMD5, Failure: SASLClientFailure, Err: errors.New("no user name")}
			}
			return newDigestMechanism(user, password), nil
		}
	}
}

// WithSASLKerberos makes Open authenticate every connection with SASL
// GSSAPI (Kerberos) as cfg describes, as a Kafka broker does with a JAAS
// Client section of Krb5LoginModule. Errors are *SASLError.
func WithSASLKerberos(cfg KerberosConfig) Option {
	return func(c *openConfig) {
		s := c.saslOpts()
		s.settings = nil
		s.mech = func() (saslMechanism, error) { return newKerberosMechanism(cfg) }
	}
}

// WithJAASConfig makes Open authenticate with SASL as the Client section
// of the JAAS file at path says, as ZooKeeper's Java client does when
// java.security.auth.login.config names the file: it is
// WithSASLSettings(SASLSettings{JAASFile: path}). Open fails with a
// *JAASError when the file cannot be read, has no Client section, or uses
// a login module or option zkconn does not support.
func WithJAASConfig(path string) Option {
	return WithSASLSettings(SASLSettings{JAASFile: path})
}

// WithSASLSettings makes Open authenticate with SASL as s says: the
// settings a Kafka broker passes to ZooKeeper's Java client as system
// properties (see SASLSettingsFromProperties). Without a JAAS file, or
// with s.Disabled, the client does not use SASL.
func WithSASLSettings(s SASLSettings) Option {
	return func(c *openConfig) {
		o := c.saslOpts()
		o.mech = nil
		o.settings = &s
	}
}

// WithSASLStats makes the clients Open makes count their SASL exchanges
// in stats.
func WithSASLStats(stats *SASLStats) Option {
	return func(c *openConfig) { c.saslOpts().stats = stats }
}

// WithSASLLogger makes the clients Open makes log SASL failures to l: a
// warning for each failed exchange, an error when a client that had
// authenticated fails to on a reconnect. None is logged by default.
func WithSASLLogger(l *slog.Logger) Option {
	return func(c *openConfig) { c.saslOpts().log = l }
}

// saslDialer returns d with SASL made on its connections, or d when no
// SASL is configured.
func (c *openConfig) saslDialer(d zk.Dialer, sessionTimeout time.Duration) (zk.Dialer, error) {
	if c.sasl == nil {
		return d, nil
	}
	mech, err := c.sasl.mechanism()
	if err != nil || mech == nil {
		return d, err
	}
	log := c.sasl.log
	if log == nil {
		log = slog.New(discardHandler{})
	}
	client := &saslClient{mech: mech, timeout: exchangeTimeout(sessionTimeout), log: log, stats: c.sasl.stats}
	return client.dialer(d), nil
}

func (s *saslOptions) mechanism() (saslMechanism, error) {
	switch {
	case s.mech != nil:
		return s.mech()
	case s.settings != nil:
		return s.settings.mechanism()
	}
	return nil, nil
}

// exchangeTimeout bounds one SASL exchange: the server expires a session
// whose exchange outlasts its timeout.
func exchangeTimeout(sessionTimeout time.Duration) time.Duration {
	if sessionTimeout <= 0 {
		return DefaultHandshakeTimeout
	}
	return min(sessionTimeout/2, 2*DefaultHandshakeTimeout)
}

// discardHandler is a slog.Handler that drops every record.
type discardHandler struct{}

func (discardHandler) Enabled(context.Context, slog.Level) bool  { return false }
func (discardHandler) Handle(context.Context, slog.Record) error { return nil }
func (h discardHandler) WithAttrs([]slog.Attr) slog.Handler      { return h }
func (h discardHandler) WithGroup(string) slog.Handler           { return h }

// WithoutSASL makes Open use no SASL, whatever SASL options came before
// it.
func WithoutSASL() Option {
	return func(c *openConfig) {
		s := c.saslOpts()
		s.mech, s.settings = nil, nil
	}
}

// SASLDialer returns d (net.DialTimeout when nil) with the SASL exchange
// that opts configure (WithSASLDigest, WithSASLKerberos, WithJAASConfig,
// WithSASLSettings, WithSASLStats, WithSASLLogger; other options are
// ignored) made on each connection it dials, for a client that calls
// zk.Connect itself. sessionTimeout is the client's, which bounds the
// exchange. A connection's first Read makes the exchange after reading
// the reply to the session handshake, and returns that reply once
// authenticated. After a *SASLError other than SASLKDCUnreachable the
// dialer fails every later dial at once with it; make a new one to try
// again. Without SASL options it returns d.
func SASLDialer(d zk.Dialer, sessionTimeout time.Duration, opts ...Option) (zk.Dialer, error) {
	if d == nil {
		d = net.DialTimeout
	}
	var cfg openConfig
	for _, o := range opts {
		o(&cfg)
	}
	return cfg.saslDialer(d, sessionTimeout)
}
