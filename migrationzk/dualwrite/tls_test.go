package dualwrite_test

import (
	"testing"

	"github.com/kraftmigration/zkwriter/migrationzk/zktest"
)

// Fault: reply lost after commit and request lost, over TLS, for every
// Client method and a Batch: the FaultDialer sits below the TLS layer, so
// each recovery reconnects with a new handshake. The change lands exactly
// once, whole, as a fault-free run over TLS lands it, and the State carries
// the /migration version ZooKeeper holds.
func TestTLSEveryMethod(t *testing.T) {
	srv := zktest.Start(t, zktest.WithTLS())
	newC := func(t *testing.T) *cluster { return newTLSCluster(t, srv) }
	calls := append(append(topicCalls(), configCalls()...), otherCalls()...)
	for _, cl := range calls {
		for _, f := range faultKinds() {
			if f.fenced {
				continue // a rival is no matter of the transport
			}
			t.Run(cl.name+"/"+f.name, func(t *testing.T) { runFault(t, cl, f, newC) })
		}
	}
}
