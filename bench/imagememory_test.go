package bench_test

import (
	"fmt"
	"runtime"
	"slices"
	"testing"

	"github.com/kraftmigration/zkwriter/internal/testkit/must"
	"github.com/kraftmigration/zkwriter/migrationzk/dualwrite"
	"github.com/kraftmigration/zkwriter/migrationzk/zktest"
)

// BenchmarkImageMemory's trees, in topics of topicSize partitions.
var memoryTopics = []int{100, 1000}

// imageBytes Reads c's tree of partitions partition states and returns
// the bytes of live heap the Image holds: the live heap after a
// collection with the Image kept, less the live heap after one before
// the Read.
func imageBytes(tb testing.TB, c *dualwrite.Client, partitions int) float64 {
	tb.Helper()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	img := readImage(tb, c, partitions)
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(img)
	return float64(after.HeapAlloc) - float64(before.HeapAlloc)
}

// BenchmarkImageMemory measures the heap an Image holds after Read, per
// partition, for trees of 10,000 and 100,000 partition states (100 and
// 1,000 topics of 100 partitions, seeded once under roots of their own on
// one server, outside the timings), read in turn, in changing order (see
// order), each read once before the measurement starts. The figure of each is the
// median over the iterations; what an Image holds must grow linearly:
// 100000/10000-B/partition-ratio.
func BenchmarkImageMemory(b *testing.B) {
	srv := zktest.Start(b)
	admin := srv.Connect(b)
	clients := make([]*dualwrite.Client, len(memoryTopics))
	for k, topics := range memoryTopics {
		e := newTopicEnv(b, srv, admin, fmt.Sprintf("memory%d", topics))
		seedTopics(b, admin, e, "topic", topics)
		clients[k] = must.Get(dualwrite.New(e.w))
		readImage(b, clients[k], topics*topicSize)
	}
	b.Run("read", func(b *testing.B) {
		perPartition := make([][]float64, len(memoryTopics))
		for i := 0; i < b.N; i++ {
			for _, k := range order(i, len(memoryTopics)) {
				n := memoryTopics[k] * topicSize
				perPartition[k] = append(perPartition[k], imageBytes(b, clients[k], n)/float64(n))
			}
		}
		medians := make([]float64, len(memoryTopics))
		for k, topics := range memoryTopics {
			medians[k] = median(perPartition[k])
			b.ReportMetric(medians[k], fmt.Sprintf("partitions=%d-B/partition", topics*topicSize))
		}
		last := len(memoryTopics) - 1
		b.ReportMetric(medians[last]/medians[0], fmt.Sprintf("%d/%d-B/partition-ratio", memoryTopics[last]*topicSize, memoryTopics[0]*topicSize))
	})
}

// median returns the median of values.
func median(values []float64) float64 {
	v := slices.Clone(values)
	slices.Sort(v)
	return v[len(v)/2]
}
