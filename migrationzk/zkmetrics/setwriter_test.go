package zkmetrics_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/kraftmigration/zkwriter/internal/testkit/must"
	"github.com/kraftmigration/zkwriter/migrationzk"
	"github.com/kraftmigration/zkwriter/migrationzk/zkmetrics"
	"github.com/kraftmigration/zkwriter/migrationzk/zktest"
	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

// counterNames are the keys of sample.counters: the counter families,
// writes_total split by outcome.
var counterNames = []string{
	"writes_total/ok", "writes_total/recovered", "writes_total/conflict", "writes_total/fenced", "writes_total/error",
	"write_attempts_total", "write_retries_total", "lost_acks_recovered_total",
}

// sample is one scrape of a Collector with the default namespace.
type sample struct {
	counters  map[string]float64
	count     uint64   // of the latency histogram
	sum       float64  // of the latency histogram, in seconds
	buckets   []uint64 // cumulative, +Inf left out
	confirmed float64
	retired   float64
}

// fromStats returns the counters a Collector exports for st alone.
func fromStats(st migrationzk.Stats) sample {
	s := sample{counters: map[string]float64{
		"writes_total/ok": float64(st.OK), "writes_total/recovered": float64(st.Recovered),
		"writes_total/conflict": float64(st.Conflicts), "writes_total/fenced": float64(st.Fenced),
		"writes_total/error": float64(st.Errors), "write_attempts_total": float64(st.Attempts),
		"write_retries_total": float64(st.Retries), "lost_acks_recovered_total": float64(st.LostAcks),
	}, count: st.Latency.Count, sum: st.Latency.Sum.Seconds()}
	for i := range st.Latency.Bounds {
		s.buckets = append(s.buckets, st.Latency.Counts[i])
	}
	return s
}

// plus returns the counters of a and b added; the gauges are b's.
func plus(a, b sample) sample {
	s := b
	s.counters = map[string]float64{}
	for _, n := range counterNames {
		s.counters[n] = a.counters[n] + b.counters[n]
	}
	s.count, s.sum = a.count+b.count, a.sum+b.sum
	s.buckets = make([]uint64, len(b.buckets))
	for i := range b.buckets {
		s.buckets[i] = a.buckets[i] + b.buckets[i]
	}
	return s
}

// read gathers one sample from g.
func read(g prometheus.Gatherer) (sample, error) {
	families, err := g.Gather()
	if err != nil {
		return sample{}, err
	}
	s := sample{counters: map[string]float64{}}
	for _, f := range families {
		family, ok := strings.CutPrefix(f.GetName(), zkmetrics.DefaultNamespace+"_")
		if !ok {
			continue // the lag gauge
		}
		for _, m := range f.GetMetric() {
			name := family
			for _, l := range m.GetLabel() {
				if l.GetName() == "outcome" {
					name += "/" + l.GetValue()
				}
			}
			switch {
			case name == "write_duration_seconds":
				h := m.GetHistogram()
				s.count, s.sum = h.GetSampleCount(), h.GetSampleSum()
				for _, b := range h.GetBucket() {
					s.buckets = append(s.buckets, b.GetCumulativeCount())
				}
			case name == "confirmed_offset":
				s.confirmed = m.GetGauge().GetValue()
			case name == "retired":
				s.retired = m.GetGauge().GetValue()
			case name == "checkpoint_age_seconds":
				// A gauge of the current Writer, read by TestCheckpointAge.
			default:
				s.counters[name] = m.GetCounter().GetValue()
			}
		}
	}
	if len(s.counters) != len(counterNames) {
		return s, fmt.Errorf("%d counters, want %d: %v", len(s.counters), len(counterNames), s.counters)
	}
	return s, nil
}

func scrape(t *testing.T, g prometheus.Gatherer) sample {
	t.Helper()
	s, err := read(g)
	if err != nil {
		t.Fatalf("scrape: %v", err)
	}
	return s
}

// compare reports the first counter of got that is not as want has it:
// equal, or with atLeast, not below.
func compare(got, want sample, atLeast bool) error {
	// The histogram sums are added in float64 here, hence the tolerance.
	differs := func(g, w float64) bool { return g < w-1e-9 || (!atLeast && math.Abs(g-w) > 1e-9) }
	for _, n := range counterNames {
		if differs(got.counters[n], want.counters[n]) {
			return fmt.Errorf("%s = %v, want %v", n, got.counters[n], want.counters[n])
		}
	}
	if differs(float64(got.count), float64(want.count)) || differs(got.sum, want.sum) {
		return fmt.Errorf("histogram count %d sum %v, want %d and %v", got.count, got.sum, want.count, want.sum)
	}
	if len(got.buckets) != len(want.buckets) {
		return fmt.Errorf("%d buckets, want %d", len(got.buckets), len(want.buckets))
	}
	for i := range got.buckets {
		if differs(float64(got.buckets[i]), float64(want.buckets[i])) {
			return fmt.Errorf("bucket %d = %d, want %d", i, got.buckets[i], want.buckets[i])
		}
	}
	return nil
}

// lead makes w the leader for KRaft controller 3000 at epoch and reads the
// checkpoint, as a controller does at the start of a tenure.
func lead(ctx context.Context, t *testing.T, w *migrationzk.Writer, epoch int32) migrationzk.State {
	t.Helper()
	s := migrationzk.InitialState()
	s.KRaftControllerID, s.KRaftControllerEpoch, s.KRaftMetadataEpoch = 3000, epoch, epoch
	s, err := w.ClaimLeadership(ctx, s)
	if err != nil {
		t.Fatalf("claim at epoch %d: %v", epoch, err)
	}
	if s, _, err = w.GetOrCreate(ctx, s); err != nil {
		t.Fatalf("GetOrCreate at epoch %d: %v", epoch, err)
	}
	return s
}

// checkpoint writes s at offset and requires the outcome recovered says.
func checkpoint(ctx context.Context, t *testing.T, w *migrationzk.Writer, s migrationzk.State, offset int64, recovered bool) migrationzk.State {
	t.Helper()
	s.KRaftMetadataOffset = offset
	s, err := w.Update(ctx, s)
	if err != nil || s.Recovered != recovered {
		t.Fatalf("checkpoint %d: recovered %v, %v; want recovered %v", offset, s.Recovered, err, recovered)
	}
	return s
}

// TestSetWriterContinuesCounters replaces the Writer of a Collector, as a
// controller does for a new leadership tenure, and checks that the counters
// carry on from the replaced Writer's while the gauges follow the new one,
// that the replaced Writer's later calls are not counted, and that the
// retired gauge is the new Writer's.
//
// Fault: the reply to the fenced multi to /migration is dropped after the
// server applied it, once; later, other controllers claim leadership.
func TestSetWriterContinuesCounters(t *testing.T) {
	srv := zktest.Start(t)
	faults := zktest.NewFaultDialer(t)
	first := must.Get(migrationzk.New(srv.Connect(t, faults.Option()), migrationzk.WithRoot(srv.Root)))
	c := must.Get(zkmetrics.NewCollector(first, nil))
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(c)
	ctx := testContext(t, time.Minute)
	s := firstTenure(ctx, t, srv, faults, first)
	before := scrape(t, reg)
	if err := compare(before, fromStats(first.Stats()), false); err != nil {
		t.Fatalf("before the swap: %v", err)
	}
	for _, n := range []string{"writes_total/recovered", "writes_total/conflict", "lost_acks_recovered_total", "write_retries_total"} {
		if before.counters[n] != 1 {
			t.Fatalf("before the swap: %s = %v, want 1", n, before.counters[n])
		}
	}
	if before.confirmed != 20 {
		t.Fatalf("before the swap: confirmed offset %v, want 20", before.confirmed)
	}

	// The next tenure, on a new connection.
	second := must.Get(migrationzk.New(srv.Connect(t), migrationzk.WithRoot(srv.Root)))
	c.SetWriter(second)
	at := scrape(t, reg)
	if err := compare(at, before, false); err != nil {
		t.Fatalf("right after the swap: %v", err)
	}
	if at.confirmed != -1 || at.retired != 0 {
		t.Fatalf("right after the swap: confirmed %v retired %v, want the new Writer's -1 and 0", at.confirmed, at.retired)
	}
	s2 := checkpoint(ctx, t, second, lead(ctx, t, second, 6), 30, false)
	c.SetWriter(second)          // again, with counts of its own: changes nothing
	fenced(ctx, t, first, s, 40) // the replaced Writer's late call: not counted
	after := scrape(t, reg)
	checkGrown(t, before, after, second)
	if after.confirmed != 30 || after.retired != 0 {
		t.Fatalf("after the new Writer's writes: confirmed %v retired %v, want 30 and 0", after.confirmed, after.retired)
	}

	// A rival's claim fences the new Writer, whose retired gauge shows it.
	rival := must.Get(migrationzk.New(srv.Connect(t), migrationzk.WithRoot(srv.Root)))
	lead(ctx, t, rival, 7)
	fenced(ctx, t, second, s2, 50)
	if got := scrape(t, reg); got.retired != 1 || got.counters["writes_total/fenced"] != 1 {
		t.Fatalf("new Writer fenced: retired %v, writes_total/fenced %v; want 1 and 1", got.retired, got.counters["writes_total/fenced"])
	}
}

// firstTenure leads at epoch 5 and writes three checkpoints through w: one
// acknowledged, one whose acknowledgement is lost and recovered, one at a
// stale version that conflicts. It returns the State of the recovered one,
// at offset 20.
func firstTenure(ctx context.Context, t *testing.T, srv *zktest.Server, faults *zktest.FaultDialer, w *migrationzk.Writer) migrationzk.State {
	t.Helper()
	s := checkpoint(ctx, t, w, lead(ctx, t, w, 5), 10, false)
	stale := s
	faults.Arm(zktest.Fault{Action: zktest.DropReply, Op: zktest.OpMulti, Path: srv.Path(znode.MigrationPath)})
	s = checkpoint(ctx, t, w, s, 20, true)
	stale.KRaftMetadataOffset = 15
	var ce *migrationzk.ConflictError
	if _, err := w.Update(ctx, stale); !errors.As(err, &ce) {
		t.Fatalf("Update at a stale version: %v, want a conflict", err)
	}
	return s
}

// fenced requires a checkpoint of s at offset through w to be fenced, and
// w retired with one fenced write.
func fenced(ctx context.Context, t *testing.T, w *migrationzk.Writer, s migrationzk.State, offset int64) {
	t.Helper()
	s.KRaftMetadataOffset = offset
	if _, err := w.Update(ctx, s); !errors.Is(err, migrationzk.ErrFenced) {
		t.Fatalf("checkpoint %d after another controller's claim: %v, want fenced", offset, err)
	}
	if r, _ := w.Retired(); !r || w.Stats().Fenced != 1 {
		t.Fatalf("after checkpoint %d: retired %v, %d fenced, want retired with 1", offset, r, w.Stats().Fenced)
	}
}

// checkGrown checks the counters after the swap: those before plus the
// new Writer's exactly, which leaves out the replaced Writer's later calls,
// and more writes and attempts than before.
func checkGrown(t *testing.T, before, after sample, w *migrationzk.Writer) {
	t.Helper()
	if err := compare(after, plus(before, fromStats(w.Stats())), false); err != nil {
		t.Fatalf("after the new Writer's writes: %v", err)
	}
	for _, n := range []string{"writes_total/ok", "write_attempts_total"} {
		if after.counters[n] <= before.counters[n] {
			t.Fatalf("%s = %v after the new Writer's writes, %v before", n, after.counters[n], before.counters[n])
		}
	}
	if after.count <= before.count {
		t.Fatalf("histogram count %d after the new Writer's writes, %d before", after.count, before.count)
	}
}

// TestSetWriterConcurrentScrapes replaces the Writer again and again while
// other goroutines scrape, and checks that no scrape sees a counter lower
// than the one before it and that the counts end exact. The replaced
// Writers are called again after their replacement, which must not count.
//
// Fault: none; the calls fail on invalid input, which counts as an error
// and needs no ZooKeeper.
func TestSetWriterConcurrentScrapes(t *testing.T) {
	const writers, calls, scrapers = 30, 20, 2
	w := must.Get(migrationzk.New(noConn{}))
	c := must.Get(zkmetrics.NewCollector(w, func() int64 { return 0 }))
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(c)

	stop := make(chan struct{})
	errs := make(chan error, scrapers)
	var scrapes atomic.Int64
	for i := 0; i < scrapers; i++ {
		go func() { errs <- scrapeUntil(reg, stop, &scrapes) }()
	}
	replaced := make(chan *migrationzk.Writer)
	var late sync.WaitGroup
	late.Add(1)
	go func() {
		defer late.Done()
		for old := range replaced {
			fail(old, calls)
		}
	}()
	for i := 0; i < writers; i++ {
		fail(w, calls)
		c.SetWriter(w) // the current Writer again: changes nothing
		next := must.Get(migrationzk.New(noConn{}))
		c.SetWriter(next)
		replaced <- w
		w = next
		// Let the scrapers in between the swaps.
		for n := scrapes.Load(); scrapes.Load() < n+scrapers; {
			time.Sleep(100 * time.Microsecond)
		}
	}
	close(replaced)
	late.Wait()
	close(stop)
	for i := 0; i < scrapers; i++ {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	if got := scrape(t, reg); got.counters["writes_total/error"] != writers*calls || got.count != writers*calls {
		t.Fatalf("writes_total{outcome=error} %v, histogram count %d; want %d", got.counters["writes_total/error"], got.count, writers*calls)
	}
}

// fail makes n calls on w that fail on invalid input.
func fail(w *migrationzk.Writer, n int) {
	for i := 0; i < n; i++ {
		if _, err := w.Update(context.Background(), migrationzk.InitialState()); !errors.Is(err, migrationzk.ErrInvalidArgument) {
			panic(fmt.Sprintf("Update without a version: %v", err))
		}
	}
}

// scrapeUntil scrapes g until stop is closed, counting its scrapes in
// scrapes, and returns the first error: a failed scrape, or a counter that
// went down from one scrape to the next. It goes on scraping after an
// error, so that the swaps waiting for scrapes finish.
func scrapeUntil(g prometheus.Gatherer, stop <-chan struct{}, scrapes *atomic.Int64) error {
	var first error
	var last sample
	for n := 0; ; n++ {
		select {
		case <-stop:
			return first
		default:
		}
		s, err := read(g)
		if err == nil && n > 0 {
			if err = compare(s, last, true); err != nil {
				err = fmt.Errorf("scrape %d went down: %v", n, err)
			}
		}
		if first == nil {
			first = err
		}
		last = s
		scrapes.Add(1)
	}
}
