package migrationzk_test

import (
	"slices"
	"testing"
	"time"

	"github.com/kraftmigration/zkwriter/migrationzk"
	"github.com/kraftmigration/zkwriter/migrationzk/zkconn"
	"github.com/kraftmigration/zkwriter/migrationzk/zktest"
)

// newTLSCluster is newCluster on a server that serves TLS only. The
// FaultDialer wraps the server's TLS dialer: it sits on the clear side and
// sees ZooKeeper's frames.
func newTLSCluster(t *testing.T, opts ...zktest.Option) *cluster {
	t.Helper()
	srv := zktest.Start(t, append([]zktest.Option{zktest.WithTLS()}, opts...)...)
	c := &cluster{t: t, srv: srv, faults: zktest.NewFaultDialer(t), root: srv.Root}
	c.faults.Dialer = srv.Dialer()
	c.conn = srv.ConnectWith(t, zkconn.WithDialer(c.faults.Dial))
	c.admin = srv.Connect(t)
	c.seed()
	return c
}

// Fault: connection cut after the server committed the checkpoint, over
// TLS: the Writer rereads after reconnecting (a new TLS handshake) and
// reports the write as landed.
func TestTLSUpdateDroppedReply(t *testing.T) {
	c := newTLSCluster(t)
	w := c.writer()
	s := c.start(w)
	dials := c.faults.Dials()
	armed := c.faults.Arm(zktest.Fault{Action: zktest.DropReply, Op: zktest.OpSetData, Path: "/migration"})
	s.KRaftMetadataOffset = 500
	next, err := w.Update(testContext(t), s)
	if err != nil {
		t.Fatalf("Update after dropped reply: %v", err)
	}
	if !armed.HasFired() || c.faults.Dials() == dials {
		t.Fatalf("fault fired %v, %d new connections", armed.HasFired(), c.faults.Dials()-dials)
	}
	if !next.Recovered || next.MigrationZkVersion != s.MigrationZkVersion+1 {
		t.Fatalf("recovered %v version %d, want recovered at %d", next.Recovered, next.MigrationZkVersion, s.MigrationZkVersion+1)
	}
	c.checkMatches(next)
	c.tenMoreWrites(w, next)
}

// Fault: connection cut instead of sending the checkpoint, over TLS: the
// Writer sends it again on the new connection.
func TestTLSUpdateDroppedRequest(t *testing.T) {
	c := newTLSCluster(t)
	w := c.writer()
	s := c.start(w)
	armed := c.faults.Arm(zktest.Fault{Action: zktest.DropRequest, Op: zktest.OpMulti, Path: c.p("/migration")})
	s.KRaftMetadataOffset = 500
	next, err := w.Update(testContext(t), s)
	if err != nil {
		t.Fatal(err)
	}
	if !armed.HasFired() || next.Recovered || next.MigrationZkVersion != s.MigrationZkVersion+1 {
		t.Fatalf("fired %v recovered %v version %d", armed.HasFired(), next.Recovered, next.MigrationZkVersion)
	}
	if st := w.Stats(); st.Retries != 1 {
		t.Fatalf("stats %+v", st)
	}
	c.checkMatches(next)
	c.tenMoreWrites(w, next)
}

// TestTLSRecoveryCost logs what a TLS handshake adds to the recovery of a
// lost acknowledgement: the median time of an Update whose reply is
// dropped, in plain text, over TLS with session resumption (the dialer's
// default), and over TLS with a full handshake each time. It asserts
// nothing about the times, which depend on the machine's load.
func TestTLSRecoveryCost(t *testing.T) {
	const runs = 9
	plain := newCluster(t)
	secure := newTLSCluster(t)
	full := newTLSCluster(t)
	noResumption := full.srv.ClientTLS()
	noResumption.SessionTicketsDisabled = true
	full.faults.Dialer = zkconn.TLSDialer(noResumption, nil, 0)
	for _, v := range []struct {
		name string
		c    *cluster
	}{{"plain", plain}, {"TLS, resumed", secure}, {"TLS, full handshake", full}} {
		w := v.c.writer()
		s := v.c.start(w)
		ok, s := medianUpdate(t, v.c, w, s, runs, false)
		lost, _ := medianUpdate(t, v.c, w, s, runs, true)
		t.Logf("%-20s median of %d: acknowledged %v, lost acknowledgement recovered %v (+%v)", v.name, runs, ok, lost, lost-ok)
	}
}

// medianUpdate returns the median duration of runs Updates from s, each
// with its reply dropped when dropReply is set, and the state after them.
func medianUpdate(t *testing.T, c *cluster, w *migrationzk.Writer, s migrationzk.State, runs int, dropReply bool) (time.Duration, migrationzk.State) {
	t.Helper()
	times := make([]time.Duration, 0, runs)
	for i := 0; i < runs; i++ {
		if dropReply {
			c.faults.Arm(zktest.Fault{Action: zktest.DropReply, Op: zktest.OpSetData, Path: "/migration"})
		}
		s.KRaftMetadataOffset++
		start := time.Now()
		next, err := w.Update(testContext(t), s)
		times = append(times, time.Since(start))
		if err != nil || next.Recovered != dropReply {
			t.Fatalf("run %d: recovered %v, %v", i, next.Recovered, err)
		}
		s = next
	}
	slices.Sort(times)
	return times[runs/2].Round(10 * time.Microsecond), s
}
