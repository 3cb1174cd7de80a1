package zktest

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"time"

	"github.com/kraftmigration/zkwriter/internal/wire"
)

// ExpireSession ends the session with the given id and password, as the
// server does when a session times out: it opens a second connection to
// addr that joins the session and then closes it. The client that owned
// the session is disconnected; when it reconnects the server tells it the
// session expired, and go-zookeeper starts a new one. FaultDialer.Session
// returns the id and password of a client dialled through it. For a
// server started with security options, call Security.ExpireSession.
func ExpireSession(ctx context.Context, addr string, id int64, password []byte) error {
	return (&Security{}).ExpireSession(ctx, addr, id, password)
}

// ExpireSession ends a session of the server or ensemble member at addr as
// the function ExpireSession does, connecting as its clients must: over
// TLS with ClientTLS when it serves TLS, and authenticated with digest
// credentials (SuperUser's, or any) when it enforces authentication.
func (s *Security) ExpireSession(ctx context.Context, addr string, id int64, password []byte) error {
	if id == 0 {
		return errors.New("zktest: ExpireSession: no session id")
	}
	// Joining a session closes the connection that held it, and the client
	// reconnects at once, which in turn closes ours. Send the handshake and
	// the close request together to make that window small, and try again
	// until the server confirms the session is gone.
	var last error
	for {
		closed, err := s.closeSession(ctx, addr, id, password)
		if closed {
			return nil
		}
		if err != nil {
			last = err
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("zktest: ExpireSession %x: %w (last attempt: %v)", id, ctx.Err(), last)
		case <-time.After(5 * time.Millisecond):
		}
	}
}

// dial connects to addr as a client of s, within deadline.
func (s *Security) dial(ctx context.Context, addr string, deadline time.Time) (net.Conn, error) {
	var d net.Dialer
	c, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, err
	}
	_ = c.SetDeadline(deadline)
	if s.ca == nil {
		return c, nil
	}
	tc := tls.Client(c, &tls.Config{InsecureSkipVerify: true, Certificates: []tls.Certificate{s.client.TLS}})
	if err := tc.HandshakeContext(ctx); err != nil {
		c.Close()
		return nil, err
	}
	return tc, nil
}

// closeSession makes one attempt; it reports true once the session is closed
// or unknown to the server.
func (s *Security) closeSession(ctx context.Context, addr string, id int64, password []byte) (bool, error) {
	deadline := time.Now().Add(5 * time.Second)
	if dl, ok := ctx.Deadline(); ok && dl.Before(deadline) {
		deadline = dl
	}
	if s.saslClient != nil {
		return s.closeSessionSASL(ctx, addr, id, password, deadline)
	}
	c, err := s.dial(ctx, addr, deadline)
	if err != nil {
		return false, err
	}
	defer c.Close()

	const closeXid = 1
	msg := wire.ConnectRequest{TimeoutMs: 10000, SessionID: id, Passwd: password}.Append(nil)
	if s.enforced {
		msg = s.appendDigestAuth(msg)
	}
	msg = wire.AppendRequestHeader(msg, closeXid, wire.OpClose)
	if _, err := c.Write(msg); err != nil {
		return false, err
	}
	return awaitClose(c, closeXid)
}

// awaitClose reads the handshake reply and the replies after it until the
// one to the close request.
func awaitClose(c net.Conn, closeXid int32) (bool, error) {
	frames := frameReader{r: c}
	frame, err := frames.next()
	if err != nil {
		return false, fmt.Errorf("handshake reply: %w", err)
	}
	r, err := wire.ParseConnectResponse(frame)
	if err != nil {
		return false, fmt.Errorf("handshake reply: %w", err)
	}
	if r.SessionID == 0 {
		return true, nil // the server no longer knows the session
	}
	for {
		frame, err := frames.next()
		if err != nil {
			return false, fmt.Errorf("close reply: %w", err)
		}
		if h, err := wire.ParseReplyHeader(frame); err == nil && h.Xid == closeXid {
			return true, nil
		}
	}
}

// appendDigestAuth appends a framed setAuth request with digest
// credentials: the super user's, or any, which the server accepts.
func (s *Security) appendDigestAuth(dst []byte) []byte {
	user, password := s.superUser, s.superPassword
	if user == "" {
		user, password = "zktest", "zktest"
	}
	return wire.AppendSetAuth(dst, wire.XidAuth, "digest", []byte(user+":"+password))
}

type frameReader struct {
	r   io.Reader
	f   wire.Framer
	buf [4096]byte
}

func (fr *frameReader) next() ([]byte, error) {
	for {
		frame, err := fr.f.Next()
		if err != nil {
			return nil, err
		}
		if frame != nil {
			return frame[wire.LengthPrefixSize:], nil
		}
		n, err := fr.r.Read(fr.buf[:])
		fr.f.Write(fr.buf[:n])
		if err != nil && n == 0 {
			if errors.Is(err, io.EOF) && fr.f.Buffered() > 0 {
				return nil, io.ErrUnexpectedEOF
			}
			return nil, err
		}
	}
}
