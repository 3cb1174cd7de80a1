package bench_test

import (
	"context"
	"testing"
	"time"

	"github.com/kraftmigration/zkwriter/internal/testkit/securitytest"
	"github.com/kraftmigration/zkwriter/migrationzk/zkconn"
	"github.com/kraftmigration/zkwriter/migrationzk/zktest"
)

// securityVariants are the clients a benchmark of a security mechanism
// compares, interleaved, by name: each with its server and options, and
// the pairs whose medians are reported as ratios (with, without).
type securityVariants struct {
	names   []string
	servers []*zktest.Server
	opts    []clientOptions
	ratios  [][2]int
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

// saslVariants are four clients, by name: plain text and TLS, each
// without and with SASL DIGEST-MD5, on a plain-text and a TLS server that
// know the user and do not enforce SASL, so that clients with and without
// compare on the same server.
func saslVariants(b *testing.B) securityVariants {
	user := zktest.WithSASLDigestUser(securitytest.SASLUser, securitytest.SASLPassword)
	plain, tls := zktest.Start(b, user), securitytest.TLS(b, user)
	return securityVariants{
		names:   []string{"plain", "sasl", "tls", "tls-sasl"},
		servers: []*zktest.Server{plain, plain, tls, tls},
		opts:    []clientOptions{withoutSASL, serverSASL, withoutSASL, serverSASL},
		ratios:  [][2]int{{1, 0}, {3, 2}},
	}
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
func BenchmarkSASLRecovery(b *testing.B) { saslVariants(b).recovery(b) }

// BenchmarkSASLConnect measures zkconn.Open up to the reply to a first
// Exists, with and without SASL DIGEST-MD5, over plain text and TLS (a
// full handshake: each client is new), interleaved as in
// BenchmarkSASLRecovery.
func BenchmarkSASLConnect(b *testing.B) { saslVariants(b).connect(b) }

// recovery times the recovery from a lost acknowledgement, as
// BenchmarkSASLRecovery describes, for each variant on a root of its own.
func (v securityVariants) recovery(b *testing.B) {
	recoverers := make([]*recoverer, len(v.names))
	for i, name := range v.names {
		conn, faults := securitytest.FaultyClient(b, v.servers[i], v.opts[i]()...)
		recoverers[i] = &recoverer{e: startEnv(b, conn, faults, v.servers[i].Connect(b), v.servers[i].Root+"/"+name, nil)}
	}
	b.ResetTimer()
	smp := newSamples(b.N, v.names...)
	for i := 0; i < b.N; i++ {
		for _, k := range order(i, len(recoverers)) {
			smp.add(k, recoverers[k].recover(b))
		}
	}
	v.report(b, smp)
}

// connect times a new client of each variant, as BenchmarkSASLConnect
// describes.
func (v securityVariants) connect(b *testing.B) {
	b.ResetTimer()
	smp := newSamples(b.N, v.names...)
	for i := 0; i < b.N; i++ {
		for _, k := range order(i, len(v.names)) {
			smp.add(k, connectOnce(b, v.servers[k], v.opts[k]))
		}
	}
	v.report(b, smp)
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

// report reports the medians, and the ratios of the medians of v.ratios.
func (v securityVariants) report(b *testing.B, smp *samples) {
	for i, name := range smp.names {
		b.ReportMetric(float64(smp.quantile(i, 0.5))/1e6, name+"-p50-ms")
	}
	for _, pair := range v.ratios {
		ratio := float64(smp.quantile(pair[0], 0.5)) / float64(smp.quantile(pair[1], 0.5))
		b.ReportMetric(ratio, smp.names[pair[0]]+"/"+smp.names[pair[1]]+"-p50-ratio")
	}
}
