package bench_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/kraftmigration/zkwriter/internal/kraftdiff"
	"github.com/kraftmigration/zkwriter/internal/testkit/kraftfixtures"
	"github.com/kraftmigration/zkwriter/internal/testkit/must"
	"github.com/kraftmigration/zkwriter/migrationzk/dualwrite"
	"github.com/kraftmigration/zkwriter/migrationzk/kraftmeta"
	"github.com/kraftmigration/zkwriter/migrationzk/zktest"
)

// requestsOf counts the requests e's connection sends while fn runs, by
// opcode, pings left out.
func requestsOf(e *env, fn func()) map[zktest.Op]int64 {
	e.faults.ResetCounts()
	fn()
	counts := e.faults.Counts()
	delete(counts, zktest.OpPing)
	return counts
}

// extraRequests returns how many more requests of each opcode got sends
// than base, and how many of them are not the sync and read of
// /migration (one of each).
func extraRequests(got, base map[zktest.Op]int64) (extra, other int64) {
	for op, n := range got {
		d := n - base[op]
		extra += d
		switch {
		case (op == zktest.OpSync || op == zktest.OpGetData) && d == 1:
		default:
			other += max(d, -d)
		}
	}
	for op, n := range base {
		if _, ok := got[op]; !ok {
			extra -= n
			other += n
		}
	}
	return extra, other
}

// BenchmarkKRaftDiff times migrationzk kraft diff's work on the fixtures'
// large snapshot (100,000 partitions) against a ZooKeeper that holds its
// image, synced there once outside the timings with /migration at the
// snapshot's offset: kraftdiff.Compare, which reads /migration, replays
// the snapshot while dualwrite's Read reads the tree, and diffs; beside it
// Read alone, in turns. Figures: the requests Compare sends beyond Read's
// (goal: exactly the sync and read of /migration), and its own work, the
// replay and the diff, over Read's time, medians (goal: ≤ 5%).
func BenchmarkKRaftDiff(b *testing.B) {
	path := filepath.Join(kraftfixtures.Dir(b), "scenarios", "large", kraftmeta.MetadataPartitionDir, kraftSnapshotName)
	srv := zktest.Start(b)
	e := newTopicEnv(b, srv, srv.Connect(b), "kraftdiff")
	ctx := context.Background()
	r := must.Get(kraftmeta.Replay(ctx, path))
	s := e.s
	s.KRaftMetadataOffset, s.KRaftMetadataEpoch = r.Offset, r.Epoch
	c := must.Get(dualwrite.New(e.w))
	if _, _, err := c.Sync(ctx, s, r.Image); err != nil {
		b.Fatalf("Sync of the snapshot's image: %v", err)
	}
	read := func() {
		if _, err := must.Get(dualwrite.New(e.w)).Read(ctx, nil); err != nil {
			b.Fatal(err)
		}
	}
	var res *kraftdiff.Result
	compare := func() {
		var err error
		res, err = kraftdiff.Compare(ctx, must.Get(dualwrite.New(e.w)), e.w, path, kraftdiff.Options{})
		if err != nil || !res.Plan.Empty() || res.KRaft.After.Records != 0 {
			b.Fatalf("Compare: %v, %v", err, res)
		}
	}
	readCounts := requestsOf(e, read)
	extra, other := extraRequests(requestsOf(e, compare), readCounts)
	var readRequests int64
	for _, n := range readCounts {
		readRequests += n
	}
	b.Run(fmt.Sprintf("partitions=%d", kraftPartitions), func(b *testing.B) {
		smp := newSamples(b.N, "read", "kraftdiff", "own", "replay", "diff")
		for i := 0; i < b.N; i++ {
			for _, k := range order(i, 2) {
				start := time.Now()
				if k == 0 {
					read()
					smp.add(0, time.Since(start))
					continue
				}
				compare()
				smp.add(1, time.Since(start))
				smp.add(2, res.ReplayTime+res.DiffTime)
				smp.add(3, res.ReplayTime)
				smp.add(4, res.DiffTime)
			}
		}
		smp.report(b, [2]int{2, 0}, [2]int{1, 0})
		b.ReportMetric(float64(readRequests), "read-requests")
		b.ReportMetric(float64(extra), "extra-requests")
		b.ReportMetric(float64(other), "other-extra-requests")
	})
}
