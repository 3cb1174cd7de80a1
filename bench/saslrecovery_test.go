package bench_test

import (
	"context"
	"testing"
	"time"

	"github.com/kraftmigration/zkwriter/migrationzk/zkconn"
	"github.com/kraftmigration/zkwriter/migrationzk/zktest"
)

// saslServers are a plain-text and a TLS server that know the SASL
// DIGEST-MD5 user kafka and do not enforce SASL, so that clients with and
// without SASL compare on the same server.
type saslServers struct {
	plain, tls *zktest.Server
}

func startSASLServers(b *testing.B) saslServers {
	user := zktest.WithSASLDigestUser("kafka", "kafka-secret")
	return saslServers{plain: zktest.Start(b, user), tls: zktest.Start(b, zktest.WithTLS(), user)}
}

// clientOptions makes the options of a new client of a variant, after
// those of its server's Connect: a mechanism of its own holds no ticket.
type clientOptions func() []zkconn.Option

// withoutSASL is a client without SASL; serverSASL one that authenticates
// as its server's Connect does.
var (
	withoutSASL clientOptions = func() []zkconn.Option { return []zkconn.Option{zkconn.WithoutSASL()} }
	serverSASL  clientOptions = func() []zkconn.Option { return nil }
)

// saslVariants are the four clients, by name: plain text and TLS, each
// without and with SASL.
func (s saslServers) variants() (names []string, servers []*zktest.Server, opts []clientOptions) {
	return []string{"plain", "sasl", "tls", "tls-sasl"},
		[]*zktest.Server{s.plain, s.plain, s.tls, s.tls},
		[]clientOptions{withoutSASL, serverSASL, withoutSASL, serverSASL}
}

// BenchmarkSASLRecovery measures what SASL DIGEST-MD5 adds to the
// recovery from a lost acknowledgement, as BenchmarkTLSRecovery does for
// TLS: the reply to a fenced checkpoint write is dropped after the server
// committed it, and the time runs from the drop to Update returning the
// corrected version. The recovery reconnects, and with SASL it
// authenticates again (two more round trips) before resending. Four
// variants, interleaved: plain text and TLS (session resumed), each
// without and with SASL, on the same two servers. Metrics are medians in
// milliseconds and each SASL variant's median over the same transport's
// without.
func BenchmarkSASLRecovery(b *testing.B) {
	names, servers, opts := startSASLServers(b).variants()
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
	reportSASL(b, smp)
}

// BenchmarkSASLConnect measures zkconn.Open up to the reply to a first
// Exists, with and without SASL DIGEST-MD5, over plain text and TLS (a
// full handshake: each client is new), interleaved as in
// BenchmarkSASLRecovery.
func BenchmarkSASLConnect(b *testing.B) {
	names, servers, opts := startSASLServers(b).variants()
	b.ResetTimer()
	smp := newSamples(b.N, names...)
	for i := 0; i < b.N; i++ {
		for _, v := range order(i, len(names)) {
			smp.add(v, connectOnce(b, servers[v], opts[v]))
		}
	}
	reportSASL(b, smp)
}

// connectOnce opens a new client of srv with opts, reads once, and
// returns the time that took; the close is not timed.
func connectOnce(b *testing.B, srv *zktest.Server, opts clientOptions) time.Duration {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	all := append(append([]zkconn.Option{zkconn.WithDialer(srv.Dialer())}, srv.SASL()...), opts()...)
	start := time.Now()
	conn, err := zkconn.Open(ctx, srv.Servers, zktest.SessionTimeout, all...)
	if err != nil {
		b.Fatal(err)
	}
	if _, _, err := conn.Exists("/"); err != nil {
		b.Fatal(err)
	}
	d := time.Since(start)
	b.StopTimer()
	conn.Close()
	b.StartTimer()
	return d
}

// reportSASL reports the medians and the SASL over no-SASL ratios.
func reportSASL(b *testing.B, smp *samples) {
	for i, name := range smp.names {
		b.ReportMetric(float64(smp.quantile(i, 0.5))/1e6, name+"-p50-ms")
	}
	for _, pair := range [][2]int{{1, 0}, {3, 2}} {
		ratio := float64(smp.quantile(pair[0], 0.5)) / float64(smp.quantile(pair[1], 0.5))
		b.ReportMetric(ratio, smp.names[pair[0]]+"/"+smp.names[pair[1]]+"-p50-ratio")
	}
}
