package zkconn

import "context"

// saslMechanism makes the client side of one SASL exchange for each
// connection go-zookeeper dials.
type saslMechanism interface {
	// name is the mechanism's SASL name: "DIGEST-MD5" or "GSSAPI".
	name() string
	// start begins an exchange with the server dialed at address
	// ("host:port", as dialed). It returns the exchange and the client's
	// first token, sent in the first SASL request: an empty, non-nil slice
	// for DIGEST-MD5, the GSS initial context token for GSSAPI. An error
	// is a failure on the client's side before anything was sent (no
	// ticket, KDC unreachable, ...): it must be a *SASLError.
	start(ctx context.Context, address string) (saslExchange, []byte, error)
}

// saslExchange is one exchange in progress.
type saslExchange interface {
	// step takes the token of the server's reply to the last request
	// (nil when the server sent a null token, length -1) and returns the
	// next token to send, or done when the exchange has ended on the
	// client's side with this reply and nothing more is to be sent. An
	// error means the client refuses the server's reply (bad rspauth,
	// null token where a challenge was due, bad wrap token): it must be
	// a *SASLError.
	step(challenge []byte) (response []byte, done bool, err error)
}
