package dualwrite_test

import (
	"testing"

	"github.com/kraftmigration/zkwriter/migrationzk/zktest"
)

// Fault: reply lost after commit and request lost, over SASL GSSAPI
// against a server that enforces it, for a Batch and a topic's creation:
// each recovery reconnects and authenticates with a new AP-REQ. The
// change lands exactly once, whole, as a fault-free run lands it, and the
// State carries the /migration version ZooKeeper holds.
func TestKerberosBatch(t *testing.T) {
	realm := zktest.StartRealm(t)
	srv := zktest.Start(t, zktest.WithKerberos(realm), zktest.WithSASLEnforced())
	newC := func(t *testing.T) *cluster { return newTLSCluster(t, srv) }
	for _, cl := range append(topicCalls(), otherCalls()...) {
		if cl.name != "Batch" && cl.name != "CreateTopic" {
			continue
		}
		for _, f := range faultKinds() {
			if f.fenced {
				continue // a rival is no matter of the transport
			}
			t.Run(cl.name+"/"+f.name, func(t *testing.T) { runFault(t, cl, f, newC) })
		}
	}
}
