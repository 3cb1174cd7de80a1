package zktest_test

import (
	"strings"
	"testing"

	"github.com/go-zookeeper/zk"

	"github.com/kraftmigration/zkwriter/internal/testkit/securitytest"
	"github.com/kraftmigration/zkwriter/migrationzk/zkconn"
	"github.com/kraftmigration/zkwriter/migrationzk/zkconn/sasl"
	"github.com/kraftmigration/zkwriter/migrationzk/zktest"
)

// Fault: none. The SASL exchange is no request of the caller's: a
// FaultDialer counts it apart (OpSASL), and OpAny faults pass it by.
func TestFaultDialerUnderSASL(t *testing.T) {
	srv := securitytest.SASLDigest(t)
	faults := zktest.NewFaultDialer(t)
	faults.Dialer = srv.Dialer()
	armed := faults.Arm(zktest.Fault{Action: zktest.DropReply, Op: zktest.OpAny, Path: "/node"})
	conn := srv.ConnectWith(t, zkconn.WithDialer(faults.Dial))
	if n := faults.Count(zktest.OpSASL); n != 2 || faults.Requests() != 0 {
		t.Fatalf("%d SASL requests, %d others after connecting; want 2, 0 (%v)", n, faults.Requests(), faults.Counts())
	}
	_, err := conn.Create("/node", nil, 0, zk.AuthACL(zk.PermAll))
	if !armed.HasFired() {
		t.Fatalf("the fault did not fire on the create: %v", err)
	}
	if _, _, err := conn.Exists("/node"); err != nil {
		t.Fatal(err)
	}
	if n := faults.Count(zktest.OpSASL); n != 4 {
		t.Fatalf("%d SASL requests after the reconnect; want 4", n)
	}
}

// Bad SASL options are errors, and no server starts.
func TestSASLOptionErrors(t *testing.T) {
	for name, c := range map[string]struct {
		opts []zktest.Option
		want string
	}{
		"enforced without a user": {[]zktest.Option{zktest.WithSASLEnforced()}, "WithSASLEnforced needs a SASL option"},
		"a name JAAS cannot hold": {[]zktest.Option{zktest.WithSASLDigestUser("a b", "x")}, "a JAAS file cannot hold"},
		"a password with a quote": {[]zktest.Option{zktest.WithSASLDigestUser("kafka", `x"y`)}, "a JAAS file cannot hold"},
	} {
		srv, err := zktest.NewServer(c.opts...)
		if err == nil {
			srv.Close()
			t.Fatalf("%s: a server started", name)
		}
		if strings.Contains(err.Error(), "no ZooKeeper available") {
			t.Skip(err)
		}
		if !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v; want %q", name, err, c.want)
		}
	}
}

// Fault: the member the client is connected to is stopped. The members of
// an ensemble share the JAAS file; the client authenticates with the next
// member and keeps its session.
func TestSASLEnsemble(t *testing.T) {
	e := zktest.StartEnsemble(t, 3, zktest.WithSASLDigestUser("kafka", "kafka-secret"), zktest.WithSASLEnforced())
	var stats sasl.Stats
	conn := e.ConnectWith(t, zkconn.WithSASLStats(&stats))
	if _, err := conn.Create("/node", nil, 0, zk.AuthACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}
	server := conn.Server()
	for _, m := range e.Members {
		if m.Addr == server {
			if err := m.Stop(); err != nil {
				t.Fatal(err)
			}
		}
	}
	// A Set sent before the client notices fails with
	// zk.ErrConnectionClosed, and may be sent again.
	setUntilLanded(t, conn, "/node", []byte("v1"), -1)
	if conn.Server() == server || stats.Succeeded() < 2 {
		t.Fatalf("server %s after stopping %s, %d exchanges", conn.Server(), server, stats.Succeeded())
	}
}
