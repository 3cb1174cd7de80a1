package zkconn

import (
	"net"
	"sync"
	"time"

	"github.com/go-zookeeper/zk"
)

// DefaultHandshakeTimeout bounds the wait for a server's reply to the
// session handshake on connections Connect makes.
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
		hc := &handshakeConn{Conn: c, deadline: time.Now().Add(timeout), remaining: -1}
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

	mu     sync.Mutex
	header []byte // the reply's length prefix, as far as read
	// remaining is how many bytes of the reply are still to read, -1 until
	// the length prefix is known; 0 once the reply is read.
	remaining int
}

func (c *handshakeConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	c.mu.Lock()
	defer c.mu.Unlock()
	for b := p[:n]; len(b) > 0 && c.remaining != 0; {
		if c.remaining < 0 {
			k := min(4-len(c.header), len(b))
			c.header, b = append(c.header, b[:k]...), b[k:]
			if len(c.header) == 4 {
				c.remaining = int(uint32(c.header[0])<<24 | uint32(c.header[1])<<16 | uint32(c.header[2])<<8 | uint32(c.header[3]))
			}
			continue
		}
		k := min(c.remaining, len(b))
		c.remaining, b = c.remaining-k, b[k:]
	}
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
	if c.remaining != 0 && (t.IsZero() || t.After(c.deadline)) {
		return c.deadline
	}
	return t
}
