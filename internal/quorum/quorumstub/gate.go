package main

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// gatedListener accepts gated connections.
type gatedListener struct {
	net.Listener
}

func (l *gatedListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &gatedConn{Conn: c}, nil
}

// gatedConn reads the Kafka requests of one connection before kfake does,
// and the responses kfake writes, to do what a Kafka SASL listener does
// and kfake's control hooks skip: a DescribeQuorum before the SASL
// authentication completes closes the connection, and an authentication
// kfake refuses (it closes the connection without an answer) is answered
// with SASL_AUTHENTICATION_FAILED first.
type gatedConn struct {
	net.Conn

	// pending holds the bytes of the last request read, not yet handed
	// to kfake.
	pending []byte

	mu sync.Mutex
	// mechanism is the SASLHandshake's; rounds counts the
	// SASLAuthenticate requests answered; authenticated is set once the
	// mechanism's last round is answered.
	mechanism     string
	rounds        int
	authenticated bool
	// authCorr and authVersion are those of a SASLAuthenticate read but
	// not yet answered; authPending tells whether there is one.
	authPending bool
	authCorr    int32
	authVersion int16
	// out holds response bytes written, not yet parsed.
	out []byte
}

// Read hands kfake the connection's requests one whole frame at a time,
// after looking at each.
func (c *gatedConn) Read(p []byte) (int, error) {
	if len(c.pending) == 0 {
		frame, err := c.readFrame()
		if err != nil {
			return 0, err
		}
		if err := c.inspectRequest(frame[4:]); err != nil {
			c.Conn.Close()
			return 0, err
		}
		c.pending = frame
	}
	n := copy(p, c.pending)
	c.pending = c.pending[n:]
	return n, nil
}

// maxFrame bounds the requests read, as a broker's
// socket.request.max.bytes does.
const maxFrame = 100 << 20

func (c *gatedConn) readFrame() ([]byte, error) {
	var size [4]byte
	if _, err := io.ReadFull(c.Conn, size[:]); err != nil {
		return nil, err
	}
	n := binary.BigEndian.Uint32(size[:])
	if n < 8 || n > maxFrame {
		return nil, fmt.Errorf("a request of %d bytes", n)
	}
	frame := make([]byte, 4+n)
	copy(frame, size[:])
	if _, err := io.ReadFull(c.Conn, frame[4:]); err != nil {
		return nil, err
	}
	return frame, nil
}

// errUnauthenticated closes a connection that asks for DescribeQuorum
// before it authenticated.
var errUnauthenticated = errors.New("a request before the SASL authentication completed")

// inspectRequest looks at one request: header (apiKey, apiVersion,
// correlationId, clientId) and, for SASLHandshake, the mechanism.
func (c *gatedConn) inspectRequest(b []byte) error {
	key := int16(binary.BigEndian.Uint16(b[0:]))
	version := int16(binary.BigEndian.Uint16(b[2:]))
	corr := int32(binary.BigEndian.Uint32(b[4:]))
	c.mu.Lock()
	defer c.mu.Unlock()
	switch key {
	case kmsg.DescribeQuorum.Int16():
		if !c.authenticated {
			return errUnauthenticated
		}
	case kmsg.SASLHandshake.Int16():
		// SASLHandshake is never flexible: clientId, then the mechanism,
		// each an int16-sized string.
		rest := b[8:]
		if len(rest) >= 2 {
			if n := int(int16(binary.BigEndian.Uint16(rest))); n > 0 && len(rest) >= 2+n {
				rest = rest[2+n:]
			} else {
				rest = rest[2:]
			}
		}
		if len(rest) >= 2 {
			if n := int(binary.BigEndian.Uint16(rest)); len(rest) >= 2+n {
				c.mechanism = string(rest[2 : 2+n])
			}
		}
	case kmsg.SASLAuthenticate.Int16():
		c.authPending, c.authCorr, c.authVersion = true, corr, version
	}
	return nil
}

// Write passes kfake's responses on, noting the answers to
// SASLAuthenticate.
func (c *gatedConn) Write(p []byte) (int, error) {
	c.mu.Lock()
	c.out = append(c.out, p...)
	for len(c.out) >= 8 {
		n := int(binary.BigEndian.Uint32(c.out))
		if len(c.out) < 4+n {
			break
		}
		if corr := int32(binary.BigEndian.Uint32(c.out[4:])); c.authPending && corr == c.authCorr {
			c.authPending = false
			c.rounds++
			c.authenticated = c.rounds >= roundsOf(c.mechanism)
		}
		c.out = c.out[4+n:]
	}
	c.mu.Unlock()
	return c.Conn.Write(p)
}

// roundsOf is how many SASLAuthenticate rounds the mechanism takes.
func roundsOf(mechanism string) int {
	if mechanism == "PLAIN" {
		return 1
	}
	return 2 // SCRAM's client-first and client-final messages
}

// Close answers a SASLAuthenticate that kfake refused, and closes.
func (c *gatedConn) Close() error {
	c.mu.Lock()
	pending, corr, version, mechanism := c.authPending, c.authCorr, c.authVersion, c.mechanism
	c.authPending = false
	c.mu.Unlock()
	if pending {
		_, _ = c.Conn.Write(authFailure(corr, version, mechanism))
	}
	return c.Conn.Close()
}

// authFailure is the frame of a SASLAuthenticate response carrying
// SASL_AUTHENTICATION_FAILED.
func authFailure(corr int32, version int16, mechanism string) []byte {
	resp := kmsg.NewPtrSASLAuthenticateResponse()
	resp.Version = version
	resp.ErrorCode = 58 // SASL_AUTHENTICATION_FAILED
	msg := "Authentication failed: invalid credentials with SASL mechanism " + mechanism
	resp.ErrorMessage = &msg
	body := resp.AppendTo(nil)
	header := binary.BigEndian.AppendUint32(nil, uint32(corr))
	if resp.IsFlexible() {
		header = append(header, 0) // the response header's empty tagged fields
	}
	frame := binary.BigEndian.AppendUint32(nil, uint32(len(header)+len(body)))
	return append(append(frame, header...), body...)
}
