package zkconn

import "fmt"

// SASLFailure says why a SASL exchange failed.
type SASLFailure int

const (
	// SASLRejected: the server refused the exchange (wrong password,
	// unknown principal): ZooKeeper's AUTHFAILED.
	SASLRejected SASLFailure = iota + 1
	// SASLRequired: the server enforces SASL and the client has none
	// (SESSIONCLOSEDREQUIRESASLAUTH on its first request).
	SASLRequired
	// SASLClientFailure: the client could not take part (bad credentials
	// file, missing keytab, expired ticket it cannot renew, ...).
	SASLClientFailure
	// SASLKDCUnreachable: no KDC answered.
	SASLKDCUnreachable
	// SASLServerInvalid: the server's reply failed the client's check
	// (rspauth, wrap token, null token where a challenge was due).
	SASLServerInvalid
)

// SASLError is a failed SASL exchange with a ZooKeeper server.
type SASLError struct {
	Mechanism string // "DIGEST-MD5" or "GSSAPI"
	Server    string // host:port
	Failure   SASLFailure
	Err       error // the cause; never carries a secret
}

func (e *SASLError) Error() string {
	mech := e.Mechanism
	if mech == "" {
		mech = "SASL"
	} else {
		mech = "SASL " + mech
	}
	return fmt.Sprintf("zkconn: %s authentication with %s failed: %v: %v", mech, e.Server, e.Failure, e.Err)
}

func (e *SASLError) Unwrap() error { return e.Err }

// String describes the failure for an operator.
func (f SASLFailure) String() string {
	switch f {
	case SASLRejected:
		return "the server rejected the credentials (check the user and password, or the principal and keytab)"
	case SASLRequired:
		return "the server requires SASL authentication and the client has no SASL credentials (give a JAAS file)"
	case SASLClientFailure:
		return "the client could not take part in the exchange (check its SASL configuration)"
	case SASLKDCUnreachable:
		return "no Kerberos KDC answered"
	case SASLServerInvalid:
		return "the server's reply failed the client's check (is it the server it claims to be?)"
	}
	return fmt.Sprintf("SASLFailure(%d)", int(f))
}
