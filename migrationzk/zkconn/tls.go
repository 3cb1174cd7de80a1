package zkconn

import (
	"crypto/tls"
	"net"
	"sync"
	"time"

	"github.com/go-zookeeper/zk"
)

// TLSDialer returns a dialer for ZooKeeper servers that serve clients over
// TLS (secureClientPort). It dials TCP with under (net.DialTimeout when
// nil), makes the TLS handshake with a copy of config (a zero one when nil:
// the system's CAs verify the server) within handshakeTimeout
// (DefaultHandshakeTimeout when zero or less), and then bounds the wait for
// ZooKeeper's handshake reply by handshakeTimeout too, as
// HandshakeTimeoutDialer does.
//
// go-zookeeper gives a dial one second, and a first handshake on a loaded
// machine can take longer: under gets that second for the TCP connection,
// and the TLS handshake gets its own bound.
//
// When config.ServerName is empty and config.InsecureSkipVerify is false,
// the host of the address dialled is the name verified: a host name, or an
// IP address matched against the certificate's IP addresses. When
// config.ClientSessionCache is nil the dialer keeps a cache of its own, so
// that a reconnection resumes the TLS session where the server allows it.
// Later changes to config have no effect on the dialer.
//
// A failed handshake returns a *HandshakeError. So does the first read of
// a connection when it fails with a TLS alert: under TLS 1.3 a server
// rejects a client certificate only after the client's side of the
// handshake has completed.
//
// Pass the dialer to go-zookeeper with zk.WithDialer, to Open with
// WithDialer, or as the Dialer of a zktest.FaultDialer, which then sits
// on the clear side of TLS and sees ZooKeeper's frames.
func TLSDialer(config *tls.Config, under zk.Dialer, handshakeTimeout time.Duration) zk.Dialer {
	if under == nil {
		under = net.DialTimeout
	}
	if handshakeTimeout <= 0 {
		handshakeTimeout = DefaultHandshakeTimeout
	}
	base := tlsConfigCopy(config)
	dialTLS := func(network, address string, dialTimeout time.Duration) (net.Conn, error) {
		raw, err := under(network, address, dialTimeout)
		if err != nil {
			return nil, err
		}
		c := tls.Client(raw, configFor(base, address))
		if err := handshake(c, raw, handshakeTimeout); err != nil {
			raw.Close()
			return nil, newHandshakeError(address, base, err)
		}
		return &tlsConn{Conn: c, server: address, config: base}, nil
	}
	return HandshakeTimeoutDialer(dialTLS, handshakeTimeout)
}

// tlsConfigCopy copies config (a zero one when nil) and gives it a session
// cache when it has none.
func tlsConfigCopy(config *tls.Config) *tls.Config {
	c := config.Clone()
	if c == nil {
		c = &tls.Config{}
	}
	if c.ClientSessionCache == nil {
		c.ClientSessionCache = tls.NewLRUClientSessionCache(0)
	}
	return c
}

// configFor returns config with ServerName set to the host of address when
// the name is to be verified and config names none.
func configFor(config *tls.Config, address string) *tls.Config {
	if config.ServerName != "" || config.InsecureSkipVerify {
		return config
	}
	host, _, err := net.SplitHostPort(address)
	if err != nil {
		host = address
	}
	c := config.Clone()
	c.ServerName = host
	return c
}

// handshake makes the TLS handshake within timeout, then clears the
// deadline it set on raw.
func handshake(c *tls.Conn, raw net.Conn, timeout time.Duration) error {
	if err := raw.SetDeadline(time.Now().Add(timeout)); err != nil {
		return err
	}
	if err := c.Handshake(); err != nil {
		return err
	}
	return raw.SetDeadline(time.Time{})
}

// tlsConn reports a TLS alert on its first read as a *HandshakeError.
type tlsConn struct {
	*tls.Conn
	server string
	config *tls.Config

	mu       sync.Mutex
	received bool // a read returned data
}

func (c *tlsConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	c.mu.Lock()
	first := !c.received
	c.received = c.received || n > 0
	c.mu.Unlock()
	if err != nil && first && n == 0 && isRemoteAlert(err) {
		err = newHandshakeError(c.server, c.config, err)
	}
	return n, err
}
