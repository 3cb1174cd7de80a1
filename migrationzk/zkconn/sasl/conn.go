package sasl

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"time"
)

// The frames of ZooKeeper's SASL exchange: a request header with opcode
// saslOpcode and one buffer, the token; a reply header and one buffer.
const (
	saslOpcode = 102
	// replyHeaderSize is xid, zxid and err.
	replyHeaderSize = 4 + 8 + 4
	// maxFrame bounds a reply frame of the exchange; tokens are a few
	// kilobytes at most.
	maxFrame = 1 << 20
	// maxRounds bounds the round trips of one exchange.
	maxRounds = 16
	// errSessionRequiresSASL is SESSIONCLOSEDREQUIRESASLAUTH.
	errSessionRequiresSASL = -124
	// errAuthFailed is AUTHFAILED.
	errAuthFailed = -115
)

// conn makes the SASL exchange on its first Read: it reads the
// server's reply to the session handshake, holds it back, authenticates,
// and then hands the reply to go-zookeeper, which has sent nothing else
// yet. From then on it passes bytes through.
type conn struct {
	net.Conn
	client *clientState
	server string

	mu           sync.Mutex
	started      bool
	err          error
	pending      []byte    // the handshake reply, not yet read by the caller
	readDeadline time.Time // the caller's
}

func (c *conn) Read(p []byte) (int, error) {
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
func (c *conn) SetReadDeadline(t time.Time) error {
	c.mu.Lock()
	c.readDeadline = t
	c.mu.Unlock()
	return c.Conn.SetReadDeadline(t)
}

// SetDeadline records the caller's read deadline too.
func (c *conn) SetDeadline(t time.Time) error {
	c.mu.Lock()
	c.readDeadline = t
	c.mu.Unlock()
	return c.Conn.SetDeadline(t)
}

// handshake reads the handshake reply and, when it grants a session,
// makes the exchange. It closes the connection when either fails.
func (c *conn) handshake() error {
	frame, err := readFrame(c.Conn, maxFrame)
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
func (c *conn) exchange() error {
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
func (c *conn) rounds(ctx context.Context) error {
	mech := c.client.mech
	ex, token, err := mech.Authenticate(ctx, c.server)
	if err != nil {
		return c.client.asError(err, c.server, ClientFailure)
	}
	for xid := int32(1); xid <= maxRounds; xid++ {
		if _, err := c.Conn.Write(saslRequest(xid, token)); err != nil {
			return fmt.Errorf("sasl: exchange with %s: send: %w", c.server, err)
		}
		code, challenge, err := c.readReply()
		if err != nil {
			return fmt.Errorf("sasl: exchange with %s: read the reply: %w", c.server, err)
		}
		if code != 0 {
			return &Error{Mechanism: mech.Name(), Server: c.server, Failure: Rejected, Err: serverRefusal(code)}
		}
		done, response, err := ex.Challenge(challenge)
		if err != nil || done {
			return c.client.asError(err, c.server, ServerInvalid)
		}
		token = response
	}
	return &Error{Mechanism: mech.Name(), Server: c.server, Failure: ServerInvalid,
		Err: fmt.Errorf("no end after %d round trips", maxRounds)}
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
func (c *conn) readReply() (code int32, token []byte, err error) {
	frame, err := readFrame(c.Conn, maxFrame)
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
		return nil, fmt.Errorf("sasl: a frame of %d bytes", n)
	}
	frame := make([]byte, 4+n)
	copy(frame, prefix[:])
	if _, err := io.ReadFull(r, frame[4:]); err != nil {
		return nil, err
	}
	return frame, nil
}
