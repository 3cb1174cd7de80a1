package dualwrite_test

import (
	"testing"

	"github.com/kraftmigration/zkwriter/internal/testkit/securitytest"
)

// Fault: reply lost after commit and request lost, on a server that
// enforces SASL (DIGEST-MD5), for every Client method and a Batch: each
// recovery reconnects and authenticates again before the transaction is
// resent. The change lands exactly once, whole, as a fault-free run lands
// it.
func TestSASLEveryMethod(t *testing.T) {
	transportFaults(t, securitytest.SASLDigest(t), allCalls())
}
