package zkconn

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-zookeeper/zk"
)

// The frames of ZooKeeper's SASL exchange: a request header with opcode
// saslOpcode and one buffer, the token; a reply header and one buffer.
const (
	saslOpcode = 102
	// replyHeaderSize is xid, zxid and err.
	replyHeaderSize = 4 + 8 + 4
	// maxSASLFrame bounds a reply frame of the exchange; tokens are a few
	// kilobytes at most.
	maxSASLFrame = 1 << 20
	// maxSASLRounds bounds the round trips of one exchange.
	maxSASLRounds = 16
	// errSessionRequiresSASL is SESSIONCLOSEDREQUIRESASLAUTH.
	errSessionRequiresSASL = -124
	// errAuthFailed is AUTHFAILED.
	errAuthFailed = -115
)

// SASLStats counts the SASL exchanges of the clients Open made with
// WithSASLStats. It is safe for concurrent use; the zero value is ready.
type SASLStats struct {
	succeeded, failed, reauthFailed atomic.Int64
}

// Succeeded returns how many exchanges authenticated a connection.
func (s *SASLStats) Succeeded() int64 { return s.succeeded.Load() }

// Failed returns how many exchanges failed, for any reason, interrupted
// connections included.
func (s *SASLStats) Failed() int64 { return s.failed.Load() }

// ReauthFailed returns how many of the failed exchanges were refused
// (a *SASLError) on a client that had authenticated before: a session
// that lost its authentication on a reconnect. Its requests are held
// back; none is sent unauthenticated.
func (s *SASLStats) ReauthFailed() int64 { return s.reauthFailed.Load() }

// saslClient is the SASL state of one client: its mechanism, whether it
// ever authenticated, and the failure that makes later dials fail at once.
type saslClient struct {
	mech    saslMechanism
	timeout time.Duration // bound on one exchange
	log     *slog.Logger
	stats   *SASLStats

	mu            sync.Mutex
	authenticated bool  // an exchange succeeded once
	refused       error // a permanent failure: later dials return it
}

// dialer returns d with the SASL exchange made on each of its connections
// after the session handshake.
func (s *saslClient) dialer(d zk.Dialer) zk.Dialer {
	return func(network, address string, timeout time.Duration) (net.Conn, error) {
		if err := s.refusal(); err != nil {
			return nil, err
		}
		if err := s.prepare(address); err != nil {
			return nil, err
		}
		c, err := d(network, address, timeout)
		if err != nil {
			return nil, err
		}
		return &saslConn{Conn: c, client: s, server: address}, nil
	}
}

// prepare lets a mechanism that needs it get ready for a connection to
// address before it is dialed, within the exchange's bound, so that a
// failure (no KDC) opens no server session.
func (s *saslClient) prepare(address string) error {
	p, ok := s.mech.(saslPreparer)
	if !ok {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), s.timeout)
	defer cancel()
	err := p.prepare(ctx, address)
	if err != nil {
		s.record(address, err)
	}
	return err
}

func (s *saslClient) refusal() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.refused
}

// record accounts for the outcome of one exchange.
func (s *saslClient) record(server string, err error) {
	s.mu.Lock()
	before := s.authenticated
	var se *SASLError
	sticky := errors.As(err, &se) && !se.Transient()
	switch {
	case err == nil:
		s.authenticated = true
	case sticky && s.refused == nil:
		s.refused = err
	}
	s.mu.Unlock()
	s.count(server, err, before, sticky)
}

func (s *saslClient) count(server string, err error, before, refused bool) {
	if err == nil {
		if s.stats != nil {
			s.stats.succeeded.Add(1)
		}
		s.log.Debug("zkconn: SASL authenticated", slog.String("server", server), slog.String("mechanism", s.mech.name()))
		return
	}
	if s.stats != nil {
		s.stats.failed.Add(1)
		if before && refused {
			s.stats.reauthFailed.Add(1)
		}
	}
	switch {
	case before && refused:
		s.log.Error("zkconn: SASL authentication failed on a reconnect; requests are held back until the client is closed",
			slog.String("server", server), slog.Any("error", err))
	default:
		s.log.Warn("zkconn: SASL exchange failed", slog.String("server", server), slog.Any("error", err))
	}
}

// saslConn makes the SASL exchange on its first Read: it reads the
// server's reply to the session handshake, holds it back, authenticates,
// and then hands the reply to go-zookeeper, which has sent nothing else
// yet. From then on it passes bytes through.
type saslConn struct {
	net.Conn
	client *saslClient
	server string

	mu           sync.Mutex
	started      bool
	err          error
	pending      []byte    // the handshake reply, not yet read by the caller
	readDeadline time.Time // the caller's
}

func (c *saslConn) Read(p []byte) (int, error) {
	c.mu.Lock()
	if !c.started {
		c.started = true
		c.err = c.handshake()
	}
	if c.err != nil {
		err := c.err
		c.mu.Unlock()
		return 0, err
	}
	if len(c.pending) > 0 {
		n := copy(p, c.pending)
		c.pending = c.pending[n:]
		c.mu.Unlock()
		return n, nil
	}
	c.mu.Unlock()
	return c.Conn.Read(p)
}

// SetReadDeadline records the caller's deadline, which the exchange
// restores when it ends.
func (c *saslConn) SetReadDeadline(t time.Time) error {
	c.mu.Lock()
	c.readDeadline = t
	c.mu.Unlock()
	return c.Conn.SetReadDeadline(t)
}

// SetDeadline records the caller's read deadline too.
func (c *saslConn) SetDeadline(t time.Time) error {
	c.mu.Lock()
	c.readDeadline = t
	c.mu.Unlock()
	return c.Conn.SetDeadline(t)
}

// handshake reads the handshake reply and, when it grants a session,
// makes the exchange. It closes the connection when either fails.
func (c *saslConn) handshake() error {
	frame, err := readFrame(c.Conn, maxSASLFrame)
	if err != nil {
		c.Conn.Close()
		return err
	}
	c.pending = frame
	if !grantsSession(frame[4:]) {
		// An expired session: go-zookeeper starts a new one, which
		// authenticates on its own connection.
		return nil
	}
	err = c.exchange()
	c.client.record(c.server, err)
	if err != nil {
		c.Conn.Close()
		return err
	}
	return nil
}

// grantsSession reports whether a handshake reply (protocol version,
// timeout, session id, password) grants a session.
func grantsSession(body []byte) bool {
	if len(body) < 16 {
		return false
	}
	timeout := int32(binary.BigEndian.Uint32(body[4:8]))
	session := int64(binary.BigEndian.Uint64(body[8:16]))
	return timeout > 0 && session != 0
}

// exchange runs the mechanism's exchange within the client's bound, then
// puts back the caller's deadlines.
func (c *saslConn) exchange() error {
	deadline := time.Now().Add(c.client.timeout)
	ctx, cancel := context.WithDeadline(context.Background(), deadline)
	defer cancel()
	if err := c.Conn.SetDeadline(deadline); err != nil {
		return err
	}
	err := c.rounds(ctx)
	restoreErr := errors.Join(c.Conn.SetWriteDeadline(time.Time{}), c.Conn.SetReadDeadline(c.readDeadline))
	if err != nil {
		return err
	}
	return restoreErr
}

// rounds sends the mechanism's tokens and feeds it the server's until it
// is done.
func (c *saslConn) rounds(ctx context.Context) error {
	mech := c.client.mech
	ex, token, err := mech.start(ctx, c.server)
	if err != nil {
		return err
	}
	for xid := int32(1); xid <= maxSASLRounds; xid++ {
		if _, err := c.Conn.Write(saslRequest(xid, token)); err != nil {
			return fmt.Errorf("zkconn: SASL exchange with %s: send: %w", c.server, err)
		}
		code, challenge, err := c.readReply()
		if err != nil {
			return fmt.Errorf("zkconn: SASL exchange with %s: read the reply: %w", c.server, err)
		}
		if code != 0 {
			return &SASLError{Mechanism: mech.name(), Server: c.server, Failure: SASLRejected, Err: serverRefusal(code)}
		}
		response, done, err := ex.step(challenge)
		if err != nil || done {
			return err
		}
		token = response
	}
	return &SASLError{Mechanism: mech.name(), Server: c.server, Failure: SASLServerInvalid,
		Err: fmt.Errorf("no end after %d round trips", maxSASLRounds)}
}

// serverRefusal describes the error code of a SASL reply.
func serverRefusal(code int32) error {
	switch code {
	case errAuthFailed:
		return fmt.Errorf("the server replied AUTHFAILED (%d)", code)
	case errSessionRequiresSASL:
		return fmt.Errorf("the server replied SESSIONCLOSEDREQUIRESASLAUTH (%d)", code)
	}
	return fmt.Errorf("the server replied error %d", code)
}

// saslRequest frames a SASL request: a null token when token is nil.
func saslRequest(xid int32, token []byte) []byte {
	body := 4 + 4 + 4 + len(token)
	b := make([]byte, 0, 4+body)
	b = binary.BigEndian.AppendUint32(b, uint32(body))
	b = binary.BigEndian.AppendUint32(b, uint32(xid))
	b = binary.BigEndian.AppendUint32(b, saslOpcode)
	if token == nil {
		return binary.BigEndian.AppendUint32(b, ^uint32(0))
	}
	b = binary.BigEndian.AppendUint32(b, uint32(len(token)))
	return append(b, token...)
}

// readReply reads one SASL reply: its error code and its token (nil for
// a null token, as error replies carry).
func (c *saslConn) readReply() (code int32, token []byte, err error) {
	frame, err := readFrame(c.Conn, maxSASLFrame)
	if err != nil {
		return 0, nil, err
	}
	body := frame[4:]
	if len(body) < replyHeaderSize {
		return 0, nil, fmt.Errorf("a reply of %d bytes", len(body))
	}
	code = int32(binary.BigEndian.Uint32(body[12:16]))
	rest := body[replyHeaderSize:]
	if len(rest) < 4 {
		return code, nil, nil // no token at all: an ordinary error reply
	}
	n := int32(binary.BigEndian.Uint32(rest[:4]))
	switch {
	case n < 0:
		return code, nil, nil
	case int(n) > len(rest)-4:
		return 0, nil, fmt.Errorf("a token of %d bytes in a reply of %d", n, len(body))
	}
	return code, append([]byte{}, rest[4:4+n]...), nil
}

// readFrame reads one length-prefixed frame, prefix included.
func readFrame(r io.Reader, limit int) ([]byte, error) {
	var prefix [4]byte
	if _, err := io.ReadFull(r, prefix[:]); err != nil {
		return nil, err
	}
	n := binary.BigEndian.Uint32(prefix[:])
	if n > uint32(limit) {
		return nil, fmt.Errorf("zkconn: a frame of %d bytes", n)
	}
	frame := make([]byte, 4+n)
	copy(frame, prefix[:])
	if _, err := io.ReadFull(r, frame[4:]); err != nil {
		return nil, err
	}
	return frame, nil
}

// Transient reports whether trying again may succeed without a change of
// configuration: no KDC answered. Every other failure repeats until the
// credentials, the client's configuration or the server change.
func (e *SASLError) Transient() bool { return e.Failure == SASLKDCUnreachable }
