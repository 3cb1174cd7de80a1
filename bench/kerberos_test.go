package bench_test

import (
	"testing"

	"github.com/kraftmigration/zkwriter/internal/must"
	"github.com/kraftmigration/zkwriter/migrationzk/zkconn"
	"github.com/kraftmigration/zkwriter/migrationzk/zkconn/sasl"
	"github.com/kraftmigration/zkwriter/migrationzk/zktest"
)

// kerberosVariants are the clients the Kerberos benchmarks compare, by
// name, on a plain-text and a TLS server of one realm that know GSSAPI
// and do not enforce SASL: without SASL, with GSSAPI as ZooKeeper's Java
// client speaks it (no mutual authentication), with mutual
// authentication, and the first two over TLS.
func kerberosVariants(b *testing.B) (names []string, servers []*zktest.Server, opts []clientOptions) {
	realm := zktest.StartRealm(b)
	plain := zktest.Start(b, zktest.WithKerberos(realm))
	tls := zktest.Start(b, zktest.WithTLS(), zktest.WithKerberos(realm))
	keytab, err := realm.Keytab(zktest.KerberosClientName)
	if err != nil {
		b.Fatal(err)
	}
	cfg := realm.ClientConfig(zktest.KerberosClientName, keytab)
	cfg.MutualAuth = true
	mutual := func() []zkconn.Option { return []zkconn.Option{zkconn.WithSASL(must.Get(sasl.Kerberos(cfg)))} }
	return []string{"plain", "gssapi", "gssapi-mutual", "tls", "tls-gssapi"},
		[]*zktest.Server{plain, plain, plain, tls, tls},
		[]clientOptions{withoutSASL, serverSASL, mutual, withoutSASL, serverSASL}
}

// BenchmarkKerberosRecovery measures what SASL GSSAPI adds to the
// recovery from a lost acknowledgement, as BenchmarkSASLRecovery does for
// DIGEST-MD5: the reconnect authenticates with a new AP-REQ, from the
// service ticket the client holds (no KDC exchange), in two round trips
// (three with mutual authentication). Variants interleaved; metrics are
// medians in milliseconds and ratios over the same transport without
// SASL.
func BenchmarkKerberosRecovery(b *testing.B) {
	names, servers, opts := kerberosVariants(b)
	variants := make([]*recoverer, len(names))
	for i := range names {
		faults := zktest.NewFaultDialer(b)
		faults.Dialer = servers[i].Dialer()
		conn := servers[i].ConnectWith(b, append([]zkconn.Option{zkconn.WithDialer(faults.Dial)}, opts[i]()...)...)
		variants[i] = &recoverer{e: startEnv(b, conn, faults, servers[i].Connect(b), servers[i].Root+"/"+names[i], nil)}
	}
	b.ResetTimer()
	smp := newSamples(b.N, names...)
	for i := 0; i < b.N; i++ {
		for _, v := range order(i, len(variants)) {
			smp.add(v, variants[v].recover(b))
		}
	}
	reportKerberos(b, smp)
}

// BenchmarkKerberosConnect measures zkconn.Open up to the reply to a
// first Exists for a new client: with GSSAPI that includes logging in
// from the keytab (an AS exchange) and getting the service ticket (a TGS
// exchange) before the dial, then the SASL exchange.
func BenchmarkKerberosConnect(b *testing.B) {
	names, servers, opts := kerberosVariants(b)
	b.ResetTimer()
	smp := newSamples(b.N, names...)
	for i := 0; i < b.N; i++ {
		for _, v := range order(i, len(names)) {
			smp.add(v, connectOnce(b, servers[v], opts[v]))
		}
	}
	reportKerberos(b, smp)
}

// reportKerberos reports the medians and the GSSAPI over no-SASL ratios.
func reportKerberos(b *testing.B, smp *samples) {
	for i, name := range smp.names {
		b.ReportMetric(float64(smp.quantile(i, 0.5))/1e6, name+"-p50-ms")
	}
	for _, pair := range [][2]int{{1, 0}, {2, 0}, {4, 3}} {
		ratio := float64(smp.quantile(pair[0], 0.5)) / float64(smp.quantile(pair[1], 0.5))
		b.ReportMetric(ratio, smp.names[pair[0]]+"/"+smp.names[pair[1]]+"-p50-ratio")
	}
}
