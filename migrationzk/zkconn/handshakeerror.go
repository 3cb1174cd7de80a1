package zkconn

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"syscall"
	"time"
)

// HandshakeFailure says why a TLS handshake with a ZooKeeper server failed.
type HandshakeFailure int

// The reasons a TLS handshake fails. All but InterruptedHandshake are
// mistakes in the configuration of the client or the server, which trying
// again does not cure.
const (
	// OtherHandshakeFailure is a TLS error not classified below, such as
	// no protocol version or cipher suite in common.
	OtherHandshakeFailure HandshakeFailure = iota
	// InterruptedHandshake: the connection broke or timed out during the
	// handshake, as it does while a server starts or is overloaded.
	InterruptedHandshake
	// UntrustedServerCertificate: the server's certificate is not signed by
	// a CA the client trusts (x509.UnknownAuthorityError).
	UntrustedServerCertificate
	// ServerHostnameMismatch: the server's certificate does not name the
	// host dialled (x509.HostnameError).
	ServerHostnameMismatch
	// ExpiredServerCertificate: the server's certificate has expired or is
	// not yet valid.
	ExpiredServerCertificate
	// MissingClientCertificate: the server requires a client certificate
	// and the client has none configured.
	MissingClientCertificate
	// RejectedClientCertificate: the server refused the client's
	// certificate, most often because it is not signed by a CA the server
	// trusts.
	RejectedClientCertificate
	// ExpiredClientCertificate: the server refused the client's
	// certificate, which has expired or is not yet valid.
	ExpiredClientCertificate
)

// String describes the failure for an operator.
func (f HandshakeFailure) String() string {
	switch f {
	case InterruptedHandshake:
		return "the connection broke or timed out during the handshake"
	case UntrustedServerCertificate:
		return "the server's certificate is not signed by a trusted CA (check the truststore)"
	case ServerHostnameMismatch:
		return "the server's certificate is not valid for the address dialled"
	case ExpiredServerCertificate:
		return "the server's certificate has expired or is not yet valid"
	case MissingClientCertificate:
		return "the server requires a client certificate and none is configured (check the keystore)"
	case RejectedClientCertificate:
		return "the server rejected the client certificate (is it signed by a CA the server trusts?)"
	case ExpiredClientCertificate:
		return "the server rejected the client certificate, which has expired or is not yet valid"
	}
	return "TLS error"
}

// HandshakeError reports a failed TLS handshake with a ZooKeeper server. A
// dialer from TLSDialer returns it, and Open fails with it (see Open).
// Err is the error from crypto/tls, which unwraps to the x509 error or the
// tls.AlertError the server sent.
type HandshakeError struct {
	// Server is the address dialled, host:port.
	Server  string
	Failure HandshakeFailure
	Err     error
}

func (e *HandshakeError) Error() string {
	return fmt.Sprintf("zkconn: TLS handshake with %s failed: %v: %v", e.Server, e.Failure, e.Err)
}

func (e *HandshakeError) Unwrap() error { return e.Err }

// Transient reports whether trying again may succeed: the handshake was
// interrupted rather than refused.
func (e *HandshakeError) Transient() bool { return e.Failure == InterruptedHandshake }

// newHandshakeError classifies err, from a handshake made with config.
func newHandshakeError(server string, config *tls.Config, err error) *HandshakeError {
	return &HandshakeError{Server: server, Failure: classifyHandshake(config, err), Err: err}
}

func classifyHandshake(config *tls.Config, err error) HandshakeFailure {
	var unknownAuthority x509.UnknownAuthorityError
	var hostname x509.HostnameError
	var invalid x509.CertificateInvalidError
	switch {
	case errors.As(err, &unknownAuthority):
		return UntrustedServerCertificate
	case errors.As(err, &hostname):
		return ServerHostnameMismatch
	case errors.As(err, &invalid) && invalid.Reason == x509.Expired:
		return ExpiredServerCertificate
	case rejectsClientCertificate(err):
		return clientCertificateFailure(config)
	case isInterruption(err):
		return InterruptedHandshake
	}
	return OtherHandshakeFailure
}

// clientCertificateAlerts are the alerts by which a server refuses the
// client's certificate (RFC 8446 section 6.2): bad_certificate,
// unsupported_certificate, certificate_revoked, certificate_expired,
// certificate_unknown, unknown_ca, access_denied, certificate_required.
func clientCertificateAlerts() []tls.AlertError {
	return []tls.AlertError{42, 43, 44, 45, 46, 48, 49, 116}
}

// rejectsClientCertificate reports whether err is an alert from the server
// that refuses the client's certificate. crypto/tls reports a received
// alert as a *net.OpError "remote error" whose error is an unexported
// alert type, which prints as the tls.AlertError of the same code.
func rejectsClientCertificate(err error) bool {
	var op *net.OpError
	if !errors.As(err, &op) || op.Op != "remote error" || op.Err == nil {
		return false
	}
	for _, a := range clientCertificateAlerts() {
		if op.Err.Error() == a.Error() {
			return true
		}
	}
	return false
}

// isRemoteAlert reports whether err is an alert the server sent.
func isRemoteAlert(err error) bool {
	var op *net.OpError
	return errors.As(err, &op) && op.Op == "remote error"
}

// clientCertificateFailure tells a missing client certificate from an
// expired one and from one the server does not trust.
func clientCertificateFailure(config *tls.Config) HandshakeFailure {
	if config == nil || (len(config.Certificates) == 0 && config.GetClientCertificate == nil) {
		return MissingClientCertificate
	}
	for _, c := range config.Certificates {
		leaf := c.Leaf
		if leaf == nil && len(c.Certificate) > 0 {
			leaf, _ = x509.ParseCertificate(c.Certificate[0])
		}
		if leaf != nil && outsideValidity(leaf, time.Now()) {
			return ExpiredClientCertificate
		}
	}
	return RejectedClientCertificate
}

func outsideValidity(c *x509.Certificate, now time.Time) bool {
	return now.Before(c.NotBefore) || now.After(c.NotAfter)
}

// isInterruption reports whether err is a broken or timed-out connection
// rather than a refusal.
func isInterruption(err error) bool {
	var ne net.Error
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) ||
		errors.Is(err, net.ErrClosed) || (errors.As(err, &ne) && ne.Timeout())
}
