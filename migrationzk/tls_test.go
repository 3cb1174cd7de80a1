package migrationzk_test

import (
	"testing"

	"github.com/kraftmigration/zkwriter/internal/testkit/securitytest"
	"github.com/kraftmigration/zkwriter/migrationzk/zkconn"
	"github.com/kraftmigration/zkwriter/migrationzk/zktest"
)

// newSecuredCluster is newCluster on srv, a server of a security
// mechanism: the Writer's client authenticates as srv's Connect does and
// then with client, and dials through the FaultDialer, over srv's dialer
// (on the clear side of TLS, where it sees ZooKeeper's frames).
func newSecuredCluster(t *testing.T, srv *zktest.Server, client ...zkconn.Option) *cluster {
	t.Helper()
	c := &cluster{t: t, srv: srv, root: srv.Root, admin: srv.Connect(t)}
	c.conn, c.faults = securitytest.FaultyClient(t, srv, client...)
	c.seed()
	return c
}

// Fault: connection cut after the server committed the checkpoint, over
// TLS: the Writer rereads after reconnecting (a new TLS handshake) and
// reports the write as landed.
func TestTLSUpdateDroppedReply(t *testing.T) {
	c := newSecuredCluster(t, securitytest.TLS(t))
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
	c := newSecuredCluster(t, securitytest.TLS(t))
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
