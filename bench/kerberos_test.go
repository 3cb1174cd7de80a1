package bench_test

import (
	"testing"

	"github.com/kraftmigration/zkwriter/internal/testkit/securitytest"
	"github.com/kraftmigration/zkwriter/migrationzk/zkconn"
	"github.com/kraftmigration/zkwriter/migrationzk/zktest"
)

// kerberosVariants are the clients the Kerberos benchmarks compare, by
// name, on a plain-text and a TLS server of one realm that know GSSAPI
// and do not enforce SASL: without SASL, with GSSAPI as ZooKeeper's Java
// client speaks it (no mutual authentication), with mutual
// authentication, and the first two over TLS.
func kerberosVariants(b *testing.B) securityVariants {
	realm := zktest.StartRealm(b)
	plain, tls := zktest.Start(b, zktest.WithKerberos(realm)), securitytest.TLS(b, zktest.WithKerberos(realm))
	cfg := realm.ClientConfig(zktest.KerberosClientName, securitytest.KafkaKeytab(b, realm))
	cfg.MutualAuth = true
	mutual := func() []zkconn.Option { return []zkconn.Option{securitytest.KerberosClient(b, cfg)} }
	return securityVariants{
		names:   []string{"plain", "gssapi", "gssapi-mutual", "tls", "tls-gssapi"},
		servers: []*zktest.Server{plain, plain, plain, tls, tls},
		opts:    []clientOptions{withoutSASL, serverSASL, mutual, withoutSASL, serverSASL},
		ratios:  [][2]int{{1, 0}, {2, 0}, {4, 3}},
	}
}

// BenchmarkKerberosRecovery measures what SASL GSSAPI adds to the
// recovery from a lost acknowledgement, as BenchmarkSASLRecovery does for
// DIGEST-MD5: the reconnect authenticates with a new AP-REQ, from the
// service ticket the client holds (no KDC exchange), in two round trips
// (three with mutual authentication). Variants interleaved; metrics are
// medians in milliseconds and ratios over the same transport without
// SASL.
func BenchmarkKerberosRecovery(b *testing.B) { kerberosVariants(b).recovery(b) }

// BenchmarkKerberosConnect measures zkconn.Open up to the reply to a
// first Exists for a new client: with GSSAPI that includes logging in
// from the keytab (an AS exchange) and getting the service ticket (a TGS
// exchange) before the dial, then the SASL exchange.
func BenchmarkKerberosConnect(b *testing.B) { kerberosVariants(b).connect(b) }
