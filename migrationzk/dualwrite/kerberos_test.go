package dualwrite_test

import (
	"testing"

	"github.com/kraftmigration/zkwriter/internal/testkit/securitytest"
)

// Fault: reply lost after commit and request lost, over SASL GSSAPI
// against a server that enforces it, for a Batch and a topic's creation:
// each recovery reconnects and authenticates with a new AP-REQ. The
// change lands exactly once, whole, as a fault-free run lands it, and the
// State carries the /migration version ZooKeeper holds.
func TestKerberosBatch(t *testing.T) {
	_, srv := securitytest.Kerberos(t)
	var calls []call
	for _, cl := range append(topicCalls(), otherCalls()...) {
		if cl.name == "Batch" || cl.name == "CreateTopic" {
			calls = append(calls, cl)
		}
	}
	transportFaults(t, srv, calls)
}
