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
	return fmt.Sprintf("zkconn: SASL %s with %s: %v: %v", e.Mechanism, e.Server, e.Failure, e.Err)
}

func (e *SASLError) Unwrap() error { return e.Err }

func (f SASLFailure) String() string {
	switch f {
	case SASLRejected:
		return "rejected by the server"
	case SASLRequired:
		return "required by the server"
	case SASLClientFailure:
		return "client failure"
	case SASLKDCUnreachable:
		return "KDC unreachable"
	case SASLServerInvalid:
		return "invalid server reply"
	}
	return fmt.Sprintf("SASLFailure(%d)", int(f))
}
