// Package sasl authenticates go-zookeeper clients with SASL, as
// ZooKeeper's Java client does for a Kafka broker: DIGEST-MD5 (DigestMD5),
// Kerberos V5 through GSSAPI (Kerberos), or whichever of the two a Kafka
// JAAS file names (FromJAASFile, Settings). Its JAAS reader (ParseJAAS,
// and ParseJAASConfig for the sasl.jaas.config property of Kafka's
// clients) serves tools that read Kafka's configuration.
//
// A Mechanism starts one Exchange per connection. Dialer wraps a
// go-zookeeper dialer so that every connection it makes holds back the
// server's reply to the session handshake, makes the exchange, and only
// then lets go-zookeeper read the reply, so that none of its requests
// precedes the exchange; zkconn.WithSASL does the same for zkconn.Open. A
// refusal is an *Error, after which the dialer fails every later dial at
// once: go-zookeeper would otherwise retry it every second, forever,
// leaving a server session behind each time.
//
// A mechanism is one type implementing Mechanism and Exchange (see
// digest.go), and PreparingMechanism when it must get ready before the
// dial.
package sasl

import "context"

// Mechanism is the client side of a SASL mechanism. It may be shared by
// the connections of one client and by several clients, from any
// goroutine.
type Mechanism interface {
	// Name is the mechanism's SASL name, such as "DIGEST-MD5" or
	// "GSSAPI".
	Name() string
	// Authenticate begins an exchange with the server dialled at address
	// (host:port, as dialled), within ctx, which ends with the exchange.
	// It returns the exchange and the client's first token: empty and
	// non-nil for a mechanism without an initial response (DIGEST-MD5),
	// the initial token otherwise (GSSAPI's AP-REQ); nil is sent as a
	// null token. An error is a failure on the client's side before
	// anything was sent (no ticket, no KDC): an *Error, or it is
	// reported as one of Failure ClientFailure.
	Authenticate(ctx context.Context, address string) (Exchange, []byte, error)
}

// Exchange is one exchange in progress, on one connection.
type Exchange interface {
	// Challenge takes the token of the server's reply to the last
	// request, nil for a null token, and returns either done, when this
	// reply ends the exchange, or the next token to send. ZooKeeper
	// answers every request, so nothing is sent once done. An error means
	// the client refuses the reply (a wrong rspauth, a null token where a
	// challenge was due, a wrap token that fails its check): an *Error,
	// or it is reported as one of Failure ServerInvalid.
	Challenge(token []byte) (done bool, response []byte, err error)
}

// PreparingMechanism is a Mechanism that gets ready for a connection
// before it is dialled: Dialer calls Prepare first and fails the dial
// with its error, an *Error, so that a failure there opens no server
// session. Kerberos gets its tickets there.
type PreparingMechanism interface {
	Mechanism
	Prepare(ctx context.Context, address string) error
}
