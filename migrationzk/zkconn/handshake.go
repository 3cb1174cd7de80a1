package zkconn

import (
	"encoding/binary"
	"net"
	"sync"
	"time"

	"github.com/go-zookeeper/zk"
)

// DefaultHandshakeTimeout bounds the wait for a server's reply to the
// session handshake on connections Open makes.
//
// go-zookeeper waits ten times two thirds of the session timeout for it
// (over a minute for a 10s session). A ZooKeeper 3.8 server that is
// starting accepts connections shortly before it runs, and a handshake it
// receives then is never answered: the connection stays open and the
// client waits out that timeout, every request held up behind it. With a
// bound the client gives up on that connection and reconnects.
const DefaultHandshakeTimeout = 3 * time.Second

// HandshakeTimeoutDialer returns a dialer that dials with d (net.DialTimeout
// when nil) and gives up on a connection whose handshake reply has not
// arrived within timeout of the dial. It only shortens the read deadlines
// go-zookeeper sets before the reply is read; later reads are untouched.
func HandshakeTimeoutDialer(d zk.Dialer, timeout time.Duration) zk.Dialer {
	if d == nil {
		d = net.DialTimeout
	}
	return func(network, address string, dialTimeout time.Duration) (net.Conn, error) {
		c, err := d(network, address, dialTimeout)
		if err != nil {
			return nil, err
		}
		hc := &handshakeConn{Conn: c, deadline: time.Now().Add(timeout), reply: newFirstFrame()}
		if err := c.SetReadDeadline(hc.deadline); err != nil {
			c.Close()
			return nil, err
		}
		return hc, nil
	}
}

// handshakeConn caps read deadlines until the first frame from the server,
// the handshake reply, has been read.
type handshakeConn struct {
	net.Conn
	deadline time.Time

	mu    sync.Mutex
	reply firstFrame
}

func (c *handshakeConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	c.mu.Lock()
	c.reply.consume(p[:n])
	c.mu.Unlock()
	return n, err
}

func (c *handshakeConn) SetReadDeadline(t time.Time) error {
	return c.Conn.SetReadDeadline(c.cap(t))
}

func (c *handshakeConn) SetDeadline(t time.Time) error {
	if err := c.Conn.SetWriteDeadline(t); err != nil {
		return err
	}
	return c.Conn.SetReadDeadline(c.cap(t))
}

// cap returns t, or the handshake deadline while the reply is awaited and
// t is later or none.
func (c *handshakeConn) cap(t time.Time) time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.reply.done() && (t.IsZero() || t.After(c.deadline)) {
		return c.deadline
	}
	return t
}

// firstFrame follows the first frame the server sends, the handshake reply,
// through the bytes read from a connection.
type firstFrame struct {
	header []byte // the length prefix, as far as read
	// remaining is how many bytes of the frame are still to read, -1 until
	// the length prefix is known; 0 once the frame is read.
	remaining int
}

func newFirstFrame() firstFrame { return firstFrame{remaining: -1} }

// done reports whether the whole frame has been read.
func (f *firstFrame) done() bool { return f.remaining == 0 }

// consume accounts for b, the next bytes read.
func (f *firstFrame) consume(b []byte) {
	for len(b) > 0 && f.remaining != 0 {
		if f.remaining < 0 {
			k := min(4-len(f.header), len(b))
			f.header, b = append(f.header, b[:k]...), b[k:]
			if len(f.header) == 4 {
				f.remaining = int(binary.BigEndian.Uint32(f.header))
			}
			continue
		}
		k := min(f.remaining, len(b))
		f.remaining, b = f.remaining-k, b[k:]
	}
}
