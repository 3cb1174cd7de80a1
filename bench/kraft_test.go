package bench_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kraftmigration/zkwriter/internal/testkit/kraftfixtures"
	"github.com/kraftmigration/zkwriter/internal/testkit/must"
	"github.com/kraftmigration/zkwriter/migrationzk/dualwrite"
	"github.com/kraftmigration/zkwriter/migrationzk/kraftmeta"
	"github.com/kraftmigration/zkwriter/migrationzk/zktest"
)

// kraftSnapshotName is the large scenario's snapshot: 1,000 topics of
// 100 partitions, written by Kafka 3.9's snapshot writer.
const kraftSnapshotName = "00000000000000102042-0000000001.checkpoint"

// kraftPartitions is how many partitions the large snapshot holds.
const kraftPartitions = 100_000

// largeSnapshot returns the bytes of the fixtures' large snapshot; the
// benchmark is skipped where the fixtures are absent.
func largeSnapshot(tb testing.TB) []byte {
	tb.Helper()
	path := filepath.Join(kraftfixtures.Dir(tb), "scenarios", "large", kraftmeta.MetadataPartitionDir, kraftSnapshotName)
	data, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	return data
}

// replaySnapshot replays the snapshot's bytes into an Image.
func replaySnapshot(tb testing.TB, data []byte) *kraftmeta.Result {
	r, err := kraftmeta.ReplayBytes(context.Background(), kraftSnapshotName, data)
	if err != nil {
		tb.Fatalf("ReplayBytes: %v", err)
	}
	if n := partitionsOf(r); n != kraftPartitions {
		tb.Fatalf("replayed %d partitions, want %d", n, kraftPartitions)
	}
	return r
}

func partitionsOf(r *kraftmeta.Result) int {
	n := 0
	for _, t := range r.Image.Topics {
		n += len(t.Partitions)
	}
	return n
}

// franzPass parses the snapshot's bytes with franz-go's
// ProcessFetchPartition as a consumer would: CRCs checked, every record
// framed into a kgo.Record, control records kept, no pools; no metadata
// body decoded.
func franzPass(tb testing.TB, data []byte) {
	rp := kmsg.NewFetchResponseTopicPartition()
	rp.RecordBatches = data
	rp.HighWatermark = 1 << 62
	fp, _ := kgo.ProcessFetchPartition(kgo.ProcessFetchPartitionOpts{KeepControlRecords: true, Topic: "__cluster_metadata"}, &rp, kgo.DefaultDecompressor(), nil)
	if fp.Err != nil || len(fp.Records) < kraftPartitions {
		tb.Fatalf("franz-go: %d records, %v", len(fp.Records), fp.Err)
	}
}

// BenchmarkKRaftReplay decodes and replays the fixtures' large snapshot
// (12.5 MB, 102,022 records, 100,000 partitions) from its bytes in memory
// into an Image, against franz-go's pass over the same bytes
// (ProcessFetchPartition: CRCs checked, records framed, nothing decoded
// further), on one goroutine (GOMAXPROCS=1), the two taking turns in
// changing order (see order), each run after a collection. Figures: the
// medians, their ratio (goal: replay ≤ 1.0× franz-go), the same of the
// process's CPU time (which a loaded machine inflates less), MB/s and
// allocations per partition of each.
func BenchmarkKRaftReplay(b *testing.B) {
	data := largeSnapshot(b)
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	replaySnapshot(b, data)
	franzPass(b, data)
	b.Run(fmt.Sprintf("partitions=%d", kraftPartitions), func(b *testing.B) {
		smp := newSamples(b.N, "replay", "franz")
		cpu := newSamples(b.N, "replay-cpu", "franz-cpu")
		var allocs [2]uint64
		for i := 0; i < b.N; i++ {
			for _, k := range order(i, 2) {
				var before, after runtime.MemStats
				runtime.GC()
				runtime.ReadMemStats(&before)
				start, startCPU := time.Now(), cpuTime()
				if k == 0 {
					replaySnapshot(b, data)
				} else {
					franzPass(b, data)
				}
				smp.add(k, time.Since(start))
				cpu.add(k, cpuTime()-startCPU)
				runtime.ReadMemStats(&after)
				allocs[k] += after.Mallocs - before.Mallocs
			}
		}
		smp.report(b, [2]int{0, 1})
		cpu.report(b, [2]int{0, 1})
		for k, name := range []string{"replay", "franz"} {
			b.ReportMetric(float64(len(data))/1e6/smp.quantile(k, 0.5).Seconds(), name+"-MB/s")
			b.ReportMetric(float64(allocs[k])/float64(b.N)/kraftPartitions, name+"-allocs/partition")
		}
	})
}

// replayedImageBytes replays data and returns the bytes of live heap its
// Image holds, measured as imageBytes measures Read's (a collection
// before, one after with the Image kept, the Result dropped), and the
// bytes the replay allocated, an upper bound of the heap it needed on
// top of the file's bytes at any moment.
func replayedImageBytes(tb testing.TB, data []byte) (retained, allocated float64) {
	tb.Helper()
	var before, done, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	r := replaySnapshot(tb, data)
	runtime.ReadMemStats(&done)
	img := r.Image
	r = nil
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(img)
	return float64(after.HeapAlloc) - float64(before.HeapAlloc), float64(done.TotalAlloc - before.TotalAlloc)
}

// fileBytesKept reports whether the Image replayed from a copy of data
// keeps the copy alive: a finalizer on the copy must run once the copy
// is dropped and the Image kept.
func fileBytesKept(tb testing.TB, data []byte) bool {
	tb.Helper()
	cp := bytes.Clone(data)
	freed := make(chan struct{})
	runtime.SetFinalizer(&cp[0], func(*byte) { close(freed) })
	img := replaySnapshot(tb, cp).Image
	cp = nil
	deadline := time.After(5 * time.Second)
	for {
		runtime.GC()
		select {
		case <-freed:
			runtime.KeepAlive(img)
			return false
		case <-deadline:
			runtime.KeepAlive(img)
			return true
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// seedKRaftImage makes e's ZooKeeper hold img, through dualwrite's Sync.
func seedKRaftImage(tb testing.TB, c *dualwrite.Client, e *env, img dualwrite.Image) {
	tb.Helper()
	s := e.s
	s.KRaftMetadataOffset++
	st, _, err := c.Sync(context.Background(), s, img)
	if err != nil {
		tb.Fatalf("Sync of the replayed image: %v", err)
	}
	e.s = st
	read, err := c.Read(context.Background(), nil)
	if err != nil {
		tb.Fatalf("Read: %v", err)
	}
	if p := dualwrite.Diff(read, img); !p.Empty() {
		tb.Fatalf("ZooKeeper does not hold the replayed image after Sync: %d changes", len(p.Changes))
	}
}

// BenchmarkKRaftImageMemory compares the heap held by the Image replayed
// from the large snapshot with the heap held by the Image Read reads
// from a ZooKeeper that holds the same content (Synced from the replayed
// one, outside the measures), taking turns in changing order, medians
// over the iterations. It also reports the bytes the replay allocates,
// which bound the heap it needs beyond the file's bytes, against the
// goal of the file's size plus twice the retained Image, and whether the
// Image keeps the file's bytes alive (it must not).
func BenchmarkKRaftImageMemory(b *testing.B) {
	data := largeSnapshot(b)
	srv := zktest.Start(b)
	admin := srv.Connect(b)
	e := newTopicEnv(b, srv, admin, "kraftmemory")
	c := must.Get(dualwrite.New(e.w))
	seedKRaftImage(b, c, e, replaySnapshot(b, data).Image)
	b.Run(fmt.Sprintf("partitions=%d", kraftPartitions), func(b *testing.B) {
		var read, replayed, allocated []float64
		for i := 0; i < b.N; i++ {
			for _, k := range order(i, 2) {
				if k == 0 {
					read = append(read, imageBytes(b, c, kraftPartitions))
					continue
				}
				r, a := replayedImageBytes(b, data)
				replayed, allocated = append(replayed, r), append(allocated, a)
			}
		}
		rd, rp, al := median(read), median(replayed), median(allocated)
		b.ReportMetric(rd/kraftPartitions, "read-B/partition")
		b.ReportMetric(rp/kraftPartitions, "replay-B/partition")
		b.ReportMetric(rp/rd, "replay/read-retained-ratio")
		b.ReportMetric((float64(len(data))+al)/1e6, "replay-peak-MB")
		b.ReportMetric((float64(len(data))+al)/(float64(len(data))+2*rp), "peak/(file+2×image)-ratio")
		kept := 0.0
		if fileBytesKept(b, data) {
			kept = 1
		}
		b.ReportMetric(kept, "file-bytes-kept")
	})
}
