package zkconn

import (
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"time"
)

// TLSMismatchError reports a server that speaks TLS on the port a
// plaintext client dialled (a secureClientPort), or plaintext on the port a
// TLS client dialled (a clientPort). Open reports it only once a probe of
// the port has confirmed it: a server without quorum also closes
// connections before its handshake reply.
type TLSMismatchError struct {
	Server string
	// ServerSpeaksTLS is true for a plaintext client at a TLS port, false
	// for a TLS client at a plaintext port.
	ServerSpeaksTLS bool
	// Err is the failure of the attempt the probe explained.
	Err error
}

func (e *TLSMismatchError) Error() string {
	if e.ServerSpeaksTLS {
		return fmt.Sprintf("zkconn: %s: the server speaks TLS on this port (secureClientPort), and this client plaintext: connect with TLS (WithTLS) (%v)", e.Server, e.Err)
	}
	return fmt.Sprintf("zkconn: %s: the server speaks plaintext on this port (clientPort), and this client TLS: connect without TLS, or to the server's secureClientPort (%v)", e.Server, e.Err)
}

func (e *TLSMismatchError) Unwrap() error { return e.Err }

// probeTimeout bounds a probe of a port.
const probeTimeout = 2 * time.Second

// portProbe finds out whether a failed attempt at an address was a TLS
// mismatch: it returns a *TLSMismatchError when a probe confirms one, else
// nil.
type portProbe func(address string, failure error) error

// probeForTLS is the probe of a plaintext client: a server that completes
// a TLS handshake at address, or answers one with a TLS alert, speaks TLS.
func probeForTLS(address string, failure error) error {
	raw, err := net.DialTimeout("tcp", address, probeTimeout)
	if err != nil {
		return nil
	}
	defer raw.Close()
	_ = raw.SetDeadline(time.Now().Add(probeTimeout))
	errSawCertificate := errors.New("the server sent a certificate")
	c := tls.Client(raw, &tls.Config{
		InsecureSkipVerify: true, // only whether it speaks TLS is asked; nothing is sent after the handshake
		VerifyConnection:   func(tls.ConnectionState) error { return errSawCertificate },
	})
	err = c.Handshake()
	var alert tls.AlertError
	if err == nil || errors.Is(err, errSawCertificate) || errors.As(err, &alert) {
		return &TLSMismatchError{Server: address, ServerSpeaksTLS: true, Err: failure}
	}
	return nil
}

// probeForPlaintext is the probe of a TLS client: a server that answers
// ZooKeeper's four-letter word srvr in plaintext at address (with its
// statistics, or a refusal when the word is not allowed) speaks plaintext.
// ZooKeeper answers it with or without quorum.
func probeForPlaintext(address string, failure error) error {
	c, err := net.DialTimeout("tcp", address, probeTimeout)
	if err != nil {
		return nil
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(probeTimeout))
	if _, err := io.WriteString(c, "srvr"); err != nil {
		return nil
	}
	var first [1]byte
	if _, err := io.ReadFull(c, first[:]); err != nil || isTLSRecordType(first[0]) {
		return nil
	}
	return &TLSMismatchError{Server: address, ServerSpeaksTLS: false, Err: failure}
}

// isTLSRecordType reports whether b starts a TLS record: change cipher
// spec, alert, handshake or application data.
func isTLSRecordType(b byte) bool { return b >= 20 && b <= 23 }
