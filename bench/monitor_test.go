package bench_test

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/kraftmigration/zkwriter/internal/epochscan"
	"github.com/kraftmigration/zkwriter/internal/monitor"
	"github.com/kraftmigration/zkwriter/internal/testkit/must"
	"github.com/kraftmigration/zkwriter/migrationzk/zktest"
	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

// controlPaths are the znodes one scrape of migrationzk monitor reads.
func controlPaths(root string) []string {
	return []string{root + znode.MigrationPath, root + znode.ControllerPath, root + znode.ControllerEpochPath}
}

// scrapeOnce serves one GET /metrics with the exporter's handler, as
// monitor serves Prometheus, without the network: it reads ZooKeeper and
// writes the text a scrape returns.
func scrapeOnce(tb testing.TB, h http.Handler, req *http.Request) {
	tb.Helper()
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	if !bytes.Contains(w.Body.Bytes(), []byte("migrationzk_zookeeper_up 1\n")) {
		tb.Fatalf("a scrape did not read ZooKeeper:\n%s", w.Body.Bytes())
	}
}

// BenchmarkMonitorScrape times one scrape of migrationzk monitor's
// exporter without the hazard scan and without sharing reads (MinPoll 0):
// its read of /migration, /controller and /controller_epoch, the metrics
// and their text encoding; beside it the same three reads made with the
// bare client, in flight together, on the same connection. The variants
// take turns in changing order. requests/scrape counts the requests the
// exporter sends: at most one read per control znode, no sync.
func BenchmarkMonitorScrape(b *testing.B) {
	srv := zktest.Start(b)
	admin := srv.Connect(b)
	e := newTopicEnv(b, srv, admin, "scrape")
	exp := must.Get(monitor.New(monitor.Config{Conn: e.conn, Root: e.root, StallAfter: 30 * time.Second, PollTimeout: 10 * time.Second}))
	h, req := exp.Handler(), httptest.NewRequest(http.MethodGet, "/metrics", nil)
	paths := controlPaths(e.root)
	bare := func() {
		if err := inFlight(len(paths), len(paths), func(i int) error {
			_, _, err := e.conn.Get(paths[i])
			return err
		}); err != nil {
			b.Fatal(err)
		}
	}
	scrapeOnce(b, h, req)
	e.faults.ResetCounts()
	scrapeOnce(b, h, req)
	scrapeRequests := e.faults.Requests() - e.faults.Count(zktest.OpPing)
	b.Run("control-znodes", func(b *testing.B) {
		smp := newSamples(b.N, "scrape", "bare")
		for i := 0; i < b.N; i++ {
			for _, k := range order(i, 2) {
				start := time.Now()
				if k == 0 {
					scrapeOnce(b, h, req)
				} else {
					bare()
				}
				smp.add(k, time.Since(start))
			}
		}
		smp.report(b, [2]int{0, 1})
		b.ReportMetric(float64(scrapeRequests), "requests/scrape")
	})
}

// rawScan makes the reads the hazard scan makes, with the bare client on
// the same connection, readInFlight at a time and nothing decoded: the
// listing of the topics, each topic's partitions listing, each
// partition's state. It returns how many states it read.
func rawScan(conn *zk.Conn, root string) (int, error) {
	topics, _, err := conn.Children(root + znode.TopicsPath)
	if err != nil {
		return 0, err
	}
	lists := make([][]string, len(topics))
	err = inFlight(len(topics), readInFlight, func(i int) (err error) {
		lists[i], _, err = conn.Children(root + znode.TopicPartitionsPath(topics[i]))
		return err
	})
	if err != nil {
		return 0, err
	}
	var states []string
	for i, t := range topics {
		for _, p := range lists[i] {
			states = append(states, root+znode.TopicPartitionsPath(t)+"/"+p+"/state")
		}
	}
	return len(states), rawGets(conn, states)
}

// scanRate is the --scan-rate of BenchmarkMonitorScan's bounded scan:
// 100,000 partition states take it some six seconds.
const scanRate = 20000

// BenchmarkMonitorScan times monitor's hazard scan of 100,000 partition
// states (1,000 topics of 100, seeded once outside the timings),
// unbounded, through the env's Writer, beside the same reads made with
// the bare client on the same connection, readInFlight in flight
// (rawScan), in turns, with the client on one processor (procs=1, the
// goal's, for the reason BenchmarkRead gives) and then on as many as the
// process has; then the scan bounded to scanRate requests a second,
// whose measured rate (requests on the wire over its duration) must not
// exceed it.
func BenchmarkMonitorScan(b *testing.B) {
	srv := zktest.Start(b)
	admin := srv.Connect(b)
	e := newTopicEnv(b, srv, admin, "scan")
	seedTopics(b, admin, e, "topic", readTopics)
	partitions := readTopics * topicSize
	scan := func(rate float64) epochscan.Result {
		res, err := epochscan.Scan(context.Background(), e.w, 44, epochscan.Options{Root: e.root, Rate: rate})
		if err != nil || res.Partitions != partitions {
			b.Fatalf("scan: %d partitions, %v", res.Partitions, err)
		}
		return res
	}
	runOnProcessors(b, fmt.Sprintf("partitions=%d", partitions), func(b *testing.B) {
		scanIterations(b, e, partitions, scan)
	})
	b.Run(fmt.Sprintf("partitions=%d/rate=%d", partitions, scanRate), func(b *testing.B) {
		var worst float64
		for i := 0; i < b.N; i++ {
			e.faults.ResetCounts()
			start := time.Now()
			scan(scanRate)
			elapsed := time.Since(start)
			rate := float64(e.faults.Requests()-e.faults.Count(zktest.OpPing)) / elapsed.Seconds()
			worst = max(worst, rate)
		}
		b.ReportMetric(worst, "max-requests/s")
		b.ReportMetric(scanRate, "bound-requests/s")
	})
}

// scanIterations runs BenchmarkMonitorScan's timed iterations, the scan
// and rawScan in turns, and reports them.
func scanIterations(b *testing.B, e *env, partitions int, scan func(rate float64) epochscan.Result) {
	smp := newSamples(b.N, "scan", "raw")
	cpu := newSamples(b.N, "scan-cpu", "raw-cpu")
	for i := 0; i < b.N; i++ {
		for _, k := range order(i, 2) {
			runtime.GC() // neither side pays for the garbage the other left
			start, startCPU := time.Now(), cpuTime()
			if k == 0 {
				scan(0)
			} else if n, err := rawScan(e.conn, e.root); err != nil || n != partitions {
				b.Fatalf("raw scan: %d states, %v", n, err)
			}
			smp.add(k, time.Since(start))
			cpu.add(k, cpuTime()-startCPU)
		}
	}
	smp.report(b, [2]int{0, 1})
	smp.reportPaired(b, [2]int{0, 1})
	cpu.report(b)
}
