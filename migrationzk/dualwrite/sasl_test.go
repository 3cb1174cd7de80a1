package dualwrite_test

import (
	"testing"

	"github.com/kraftmigration/zkwriter/migrationzk/zktest"
)

// Fault: reply lost after commit and request lost, on a server that
// enforces SASL (DIGEST-MD5), for every Client method and a Batch: each
// recovery reconnects and authenticates again before the transaction is
// resent. The change lands exactly once, whole, as a fault-free run lands
// it.
func TestSASLEveryMethod(t *testing.T) {
	srv := zktest.Start(t, zktest.WithSASLDigestUser("kafka", "kafka-secret"), zktest.WithSASLEnforced())
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
