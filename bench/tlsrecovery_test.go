package bench_test

import (
	"testing"

	"github.com/go-zookeeper/zk"

	"github.com/kraftmigration/zkwriter/internal/testkit/securitytest"
	"github.com/kraftmigration/zkwriter/migrationzk/zkconn"
	"github.com/kraftmigration/zkwriter/migrationzk/zktest"
)

// BenchmarkTLSRecovery measures what TLS adds to the recovery from a lost
// acknowledgement: the reply to a fenced checkpoint write is dropped after
// the server committed it, and the time runs from the drop to Update
// returning the corrected version. The recovery reconnects, so over TLS it
// includes a handshake: resumed from a session ticket (what a client keeps
// by default) or full (tickets disabled). The three variants are
// interleaved in one run, each against a standalone server of its own
// kind. Metrics are medians in milliseconds and each TLS variant's median
// over the plain one.
func BenchmarkTLSRecovery(b *testing.B) {
	plainSrv := zktest.Start(b)
	plain := &recoverer{e: newEnv(b, plainSrv.Servers, zktest.Connect(b, plainSrv.Servers), plainSrv.Root+"/plain", nil)}
	tlsSrv := securitytest.TLS(b)
	resumed := &recoverer{e: tlsEnv(b, tlsSrv, "/resumed", tlsSrv.Dialer())}
	noTickets := tlsSrv.ClientTLS()
	noTickets.SessionTicketsDisabled = true
	full := &recoverer{e: tlsEnv(b, tlsSrv, "/full", zkconn.TLSDialer(noTickets, nil, 0))}
	variants := []*recoverer{plain, resumed, full}
	b.ResetTimer()
	smp := newSamples(b.N, "plain", "tls-resumed", "tls-full")
	for i := 0; i < b.N; i++ {
		for _, v := range order(i, len(variants)) {
			smp.add(v, variants[v].recover(b))
		}
	}
	for i, name := range smp.names {
		b.ReportMetric(float64(smp.quantile(i, 0.5))/1e6, name+"-p50-ms")
	}
	for _, i := range []int{1, 2} {
		ratio := float64(smp.quantile(i, 0.5)) / float64(smp.quantile(0, 0.5))
		b.ReportMetric(ratio, smp.names[i]+"/plain-p50-ratio")
	}
}

// tlsEnv starts an env on root under srv, its connection dialing through a
// FaultDialer over dialer.
func tlsEnv(b *testing.B, srv *zktest.Server, root string, dialer zk.Dialer) *env {
	faults := zktest.NewFaultDialer(b)
	faults.Dialer = dialer
	conn := srv.ConnectWith(b, zkconn.WithDialer(faults.Dial))
	return startEnv(b, conn, faults, srv.Connect(b), srv.Root+root, nil)
}
