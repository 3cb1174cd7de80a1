package dualwrite_test

import (
	"testing"
)

// Fault: none. testEmptyWrite: Kafka sends nothing for an empty batch and
// its version stays; ours carries the checkpoint, so an empty Batch
// writes it alone, in one request: version 1.
func TestKafkaEmptyBatch(t *testing.T) {
	c := newCluster(t)
	c.faults.ResetCounts()
	s, results, err := c.c.Batch().Apply(testContext(t), at(c.s, 200))
	if err != nil || len(results) != 0 {
		t.Fatalf("%v, %d results", err, len(results))
	}
	if n := c.writeRequests(); n != 1 {
		t.Fatalf("%d write requests, want 1", n)
	}
	c.wantVersion(s, 1)
}
