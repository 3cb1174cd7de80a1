package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kraftmigration/zkwriter/migrationzk/zktest"
)

// TestExport100k exports a cluster of 1,000 topics with 100 partitions
// each to a file, then diffs the file with the live tree: equal.
// Fault: none; scale.
func TestExport100k(t *testing.T) {
	if testing.Short() {
		t.Skip("100,000 partitions: skipped with -short")
	}
	const topics, partitions = 1000, 100
	srv := zktest.Start(t)
	c := newCluster(t, srv, srv.Connect(t), "large")
	specs := make([]topic, topics)
	for i := range specs {
		specs[i] = uniform(fmt.Sprintf("topic-%04d", i), partitions, 40)
	}
	c.seedKafka(43, specs...)

	file := filepath.Join(t.TempDir(), "large.json")
	start := time.Now()
	r := c.run("export", "--output", file)
	wantCode(t, r, exitOK)
	if !strings.Contains(r.stderr, "1,000 topics, 100,000 partitions, 0 undecodable") {
		t.Fatalf("export: %s", r)
	}
	exported := time.Since(start)
	start = time.Now()
	r = c.run("diff", file, "live")
	wantCode(t, r, exitOK)
	fi, err := os.Stat(file)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("export of %d partitions: %v, %d bytes; diff with live: %v", topics*partitions, exported.Round(time.Millisecond), fi.Size(), time.Since(start).Round(time.Millisecond))
}
