package main

import (
	"fmt"
	"testing"
	"time"

	"github.com/kraftmigration/zkwriter/migrationzk/zktest"
)

// TestRollbackCheck100k scans a cluster of 1,000 topics with 100
// partitions each, one partition in ten stamped above the next
// controller's epoch, and reports all 10,000 at risk in json.
// Fault: none; scale.
func TestRollbackCheck100k(t *testing.T) {
	if testing.Short() {
		t.Skip("100,000 partitions: skipped with -short")
	}
	const topics, partitions = 1000, 100
	srv := zktest.Start(t)
	admin := srv.Connect(t)
	c := newCluster(t, srv, admin, "large")

	var specs []topic
	for i := 0; i < topics; i++ {
		tp := topic{name: fmt.Sprintf("topic-%04d", i), stamps: make([]int32, partitions)}
		for p := range tp.stamps {
			tp.stamps[p] = 40
			if p%10 == 3 {
				tp.stamps[p] = 50
			}
		}
		specs = append(specs, tp)
	}
	start := time.Now()
	c.seedKafka(43, specs...)
	t.Logf("seeded %d partitions in %v", topics*partitions, time.Since(start).Round(time.Millisecond))
	c.kraftController(3000, 50)

	start = time.Now()
	r := c.run("--output", "json", "rollback-check")
	elapsed := time.Since(start)
	wantCode(t, r, exitProblem)
	var out checkReport
	r.decode(t, &out)
	if out.Topics != topics || out.Partitions != topics*partitions || out.AtRiskCount != topics*partitions/10 ||
		len(out.AtRisk) != out.AtRiskCount || out.HighestStampedEpoch != 50 || out.NextControllerEpoch != 44 {
		t.Fatalf("json: topics %d, partitions %d, at risk %d (%d listed), highest %d, next %d",
			out.Topics, out.Partitions, out.AtRiskCount, len(out.AtRisk), out.HighestStampedEpoch, out.NextControllerEpoch)
	}
	first, last := out.AtRisk[0], out.AtRisk[len(out.AtRisk)-1]
	if first != (stampedPartition{"topic-0000", 3, 50}) || last != (stampedPartition{"topic-0999", 93, 50}) {
		t.Fatalf("at risk from %+v to %+v", first, last)
	}
	t.Logf("rollback-check of %d partitions: %v wall (scan %.2fs), %d bytes of json", out.Partitions, elapsed.Round(time.Millisecond), out.ScanSeconds, len(r.stdout))
}
