package sasl

import "fmt"

// Failure says why a SASL exchange failed.
type Failure int

const (
	// Rejected: the server refused the exchange (wrong password, unknown
	// principal): ZooKeeper's AUTHFAILED.
	Rejected Failure = iota + 1
	// Required: the server enforces SASL and the client has none
	// (SESSIONCLOSEDREQUIRESASLAUTH on its first request).
	Required
	// ClientFailure: the client could not take part (bad credentials
	// file, missing keytab, expired ticket it cannot renew, ...).
	ClientFailure
	// KDCUnreachable: no Kerberos KDC answered.
	KDCUnreachable
	// ServerInvalid: the server's reply failed the client's check
	// (rspauth, wrap token, null token where a challenge was due).
	ServerInvalid
)

// Error is a failed SASL exchange with a ZooKeeper server.
type Error struct {
	Mechanism string // "DIGEST-MD5" or "GSSAPI"
	Server    string // host:port
	Failure   Failure
	Err       error // the cause; never carries a secret
}

func (e *Error) Error() string {
	mech := e.Mechanism
	if mech == "" {
		mech = "SASL"
	}
	return fmt.Sprintf("sasl: %s authentication with %s failed: %v: %v", mech, e.Server, e.Failure, e.Err)
}

func (e *Error) Unwrap() error { return e.Err }

// Transient reports whether trying again may succeed without a change of
// configuration: no KDC answered. Every other failure repeats until the
// credentials, the client's configuration or the server change.
func (e *Error) Transient() bool { return e.Failure == KDCUnreachable }

// String describes the failure for an operator.
func (f Failure) String() string {
	switch f {
	case Rejected:
		return "the server rejected the credentials (check the user and password, or the principal and keytab)"
	case Required:
		return "the server requires SASL authentication and the client has no SASL credentials (give a JAAS file)"
	case ClientFailure:
		return "the client could not take part in the exchange (check its SASL configuration)"
	case KDCUnreachable:
		return "no Kerberos KDC answered"
	case ServerInvalid:
		return "the server's reply failed the client's check (is it the server it claims to be?)"
	}
	return fmt.Sprintf("Failure(%d)", int(f))
}
