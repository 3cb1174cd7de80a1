package dualwrite_test

import (
	"testing"

	"github.com/kraftmigration/zkwriter/internal/testkit/securitytest"
	"github.com/kraftmigration/zkwriter/migrationzk/zktest"
)

// Fault: reply lost after commit and request lost, over TLS, for every
// Client method and a Batch: the FaultDialer sits below the TLS layer, so
// each recovery reconnects with a new handshake. The change lands exactly
// once, whole, as a fault-free run over TLS lands it, and the State carries
// the /migration version ZooKeeper holds.
func TestTLSEveryMethod(t *testing.T) {
	transportFaults(t, securitytest.TLS(t), allCalls())
}

// allCalls are every Client method and a Batch.
func allCalls() []call {
	return append(append(topicCalls(), configCalls()...), otherCalls()...)
}

// transportFaults runs each of calls on srv under each fault that is no
// matter of a rival: a reply or a request lost, after which the client
// reconnects through srv's security mechanism.
func transportFaults(t *testing.T, srv *zktest.Server, calls []call) {
	newC := func(t *testing.T) *cluster { return newTLSCluster(t, srv) }
	for _, cl := range calls {
		for _, f := range faultKinds() {
			if f.fenced {
				continue // a rival is no matter of the transport
			}
			t.Run(cl.name+"/"+f.name, func(t *testing.T) { runFault(t, cl, f, newC) })
		}
	}
}
