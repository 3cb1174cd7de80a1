package zkconn

import "errors"

// KerberosConfig is the client side of GSSAPI, as Kafka's JAAS
// Krb5LoginModule and ZooKeeper's client settings describe it.
type KerberosConfig struct {
	Principal      string // e.g. "kafka/broker1.example.com@EXAMPLE.COM"
	KeyTab         string // path; empty with UseTicketCache
	UseTicketCache bool
	TicketCache    string // path; empty means KRB5CCNAME or the default
	Krb5Conf       string // path; empty means $KRB5_CONFIG or /etc/krb5.conf
	// ServiceName is zookeeper.sasl.client.username: the server
	// principal's first component; empty means "zookeeper".
	ServiceName string
	// ServerPrincipal is zookeeper.server.principal: when set, the whole
	// server principal, and ServiceName and CanonicalizeHostname are not used.
	ServerPrincipal string
	// CanonicalizeHostname is zookeeper.sasl.client.canonicalize.hostname
	// (ZooKeeper's default: true).
	CanonicalizeHostname bool
}

// newKerberosMechanism returns GSSAPI for cfg. Errors are *SASLError
// with Failure SASLClientFailure (bad config, missing keytab) or
// SASLKDCUnreachable.
func newKerberosMechanism(cfg KerberosConfig) (saslMechanism, error) {
	return nil, &SASLError{Mechanism: "GSSAPI", Failure: SASLClientFailure, Err: errors.New("GSSAPI is not built in")}
}
