package sasl

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"sync"
	"time"

	"github.com/go-zookeeper/zk"
)

// ErrInvalidArgument is matched by the error of Dialer called with a nil
// mechanism or an invalid option. Nothing was dialled.
var ErrInvalidArgument = errors.New("sasl: invalid argument")

// Option configures Dialer. An invalid option makes Dialer fail with an
// error wrapping ErrInvalidArgument.
type Option func(*dialConfig)

type dialConfig struct {
	stats *Stats
	log   *slog.Logger
	err   error // the first invalid option's
}

// WithStats makes the dialer count its exchanges in stats; nil is
// invalid.
func WithStats(stats *Stats) Option {
	return func(c *dialConfig) {
		if stats == nil {
			c.fail("WithStats(nil)")
		}
		c.stats = stats
	}
}

// WithLogger makes the dialer log failed exchanges to l: a warning for
// each, an error when a client that had authenticated fails to on a
// reconnect. None is logged by default; nil is invalid.
func WithLogger(l *slog.Logger) Option {
	return func(c *dialConfig) {
		if l == nil {
			c.fail("WithLogger(nil)")
		}
		c.log = l
	}
}

func (c *dialConfig) fail(what string) {
	if c.err == nil {
		c.err = fmt.Errorf("%w: %s", ErrInvalidArgument, what)
	}
}

// Dialer returns d (net.DialTimeout when nil) with m's exchange made on
// each connection it dials, for one client: a connection's first Read
// reads the reply to the session handshake, authenticates, and then
// returns that reply. sessionTimeout is the client's, which bounds the
// exchange: the server expires a session whose exchange outlasts it. A
// PreparingMechanism is prepared before each dial.
//
// After an *Error other than KDCUnreachable, whether from the server or
// from the client's side, the dialer fails every later dial at once with
// it and reaches no server; a running client's requests then fail with
// zk.ErrNoServer. To recover, fix the cause and make a new dialer (with
// zkconn, Close the client and Open a new one). An interrupted exchange
// (a server restarting) is not a refusal: the next dial tries again.
//
// A nil m or an invalid option fails with an error wrapping
// ErrInvalidArgument.
func Dialer(d zk.Dialer, m Mechanism, sessionTimeout time.Duration, opts ...Option) (zk.Dialer, error) {
	if m == nil {
		return nil, fmt.Errorf("%w: no mechanism", ErrInvalidArgument)
	}
	var cfg dialConfig
	for i, o := range opts {
		if o == nil {
			cfg.fail(fmt.Sprintf("option %d is nil", i))
			continue
		}
		o(&cfg)
	}
	if cfg.err != nil {
		return nil, cfg.err
	}
	if d == nil {
		d = net.DialTimeout
	}
	log := cfg.log
	if log == nil {
		log = slog.New(discardHandler{})
	}
	c := &clientState{mech: m, timeout: exchangeTimeout(sessionTimeout), log: log, stats: cfg.stats}
	return c.dialer(d), nil
}

// exchangeTimeout bounds one exchange: half the session timeout, at most
// 6s, and 3s without one.
func exchangeTimeout(sessionTimeout time.Duration) time.Duration {
	const bound = 3 * time.Second
	if sessionTimeout <= 0 {
		return bound
	}
	return min(sessionTimeout/2, 2*bound)
}

// clientState is the SASL state of one client: its mechanism, whether it
// ever authenticated, and the failure that makes later dials fail at once.
type clientState struct {
	mech    Mechanism
	timeout time.Duration // bound on one exchange
	log     *slog.Logger
	stats   *Stats

	mu            sync.Mutex
	authenticated bool  // an exchange succeeded once
	refused       error // a permanent failure: later dials return it
}

// dialer returns d with the exchange made on each of its connections
// after the session handshake.
func (c *clientState) dialer(d zk.Dialer) zk.Dialer {
	return func(network, address string, timeout time.Duration) (net.Conn, error) {
		if err := c.refusal(); err != nil {
			return nil, err
		}
		if err := c.prepare(address); err != nil {
			return nil, err
		}
		nc, err := d(network, address, timeout)
		if err != nil {
			return nil, err
		}
		return &conn{Conn: nc, client: c, server: address}, nil
	}
}

// prepare lets a mechanism that needs it get ready for a connection to
// address before it is dialled, within the exchange's bound, so that a
// failure (no KDC) opens no server session.
func (c *clientState) prepare(address string) error {
	p, ok := c.mech.(PreparingMechanism)
	if !ok {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), c.timeout)
	defer cancel()
	err := c.asError(p.Prepare(ctx, address), address, ClientFailure)
	if err != nil {
		c.record(address, err)
	}
	return err
}

// asError returns err as an *Error of failure unless it is one.
func (c *clientState) asError(err error, server string, failure Failure) error {
	var e *Error
	if err == nil || errors.As(err, &e) {
		return err
	}
	return &Error{Mechanism: c.mech.Name(), Server: server, Failure: failure, Err: err}
}

func (c *clientState) refusal() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.refused
}

// record accounts for the outcome of one exchange.
func (c *clientState) record(server string, err error) {
	c.mu.Lock()
	before := c.authenticated
	var e *Error
	sticky := errors.As(err, &e) && !e.Transient()
	switch {
	case err == nil:
		c.authenticated = true
	case sticky && c.refused == nil:
		c.refused = err
	}
	c.mu.Unlock()
	c.count(server, err, before, sticky)
}

func (c *clientState) count(server string, err error, before, refused bool) {
	if err == nil {
		if c.stats != nil {
			c.stats.succeeded.Add(1)
		}
		c.log.Debug("sasl: authenticated", slog.String("server", server), slog.String("mechanism", c.mech.Name()))
		return
	}
	if c.stats != nil {
		c.stats.failed.Add(1)
		if before && refused {
			c.stats.reauthFailed.Add(1)
		}
	}
	switch {
	case before && refused:
		c.log.Error("sasl: authentication failed on a reconnect; requests are held back until the client is closed",
			slog.String("server", server), slog.Any("error", err))
	default:
		c.log.Warn("sasl: exchange failed", slog.String("server", server), slog.Any("error", err))
	}
}

// discardHandler is a slog.Handler that drops every record.
type discardHandler struct{}

func (discardHandler) Enabled(context.Context, slog.Level) bool  { return false }
func (discardHandler) Handle(context.Context, slog.Record) error { return nil }
func (h discardHandler) WithAttrs([]slog.Attr) slog.Handler      { return h }
func (h discardHandler) WithGroup(string) slog.Handler           { return h }
