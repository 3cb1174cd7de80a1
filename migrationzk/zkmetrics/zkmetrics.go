// Package zkmetrics exports the statistics of a migrationzk.Writer to
// Prometheus. It lives apart from migrationzk so that the writer itself
// depends on no metrics library.
//
// A Collector reads Writer.Stats and Writer.ConfirmedOffset at scrape time
// and exports, with the default namespace "zkwriter":
//
//	zkwriter_writes_total{outcome}          write calls by outcome: ok, recovered, conflict, fenced, error
//	zkwriter_write_attempts_total           write requests sent
//	zkwriter_write_retries_total            write requests sent again within a call
//	zkwriter_lost_acks_recovered_total      writes whose acknowledgement was lost but which a reread proved had landed
//	zkwriter_write_duration_seconds         histogram of write call latency
//	zkwriter_confirmed_offset               KRaft metadata offset of the last checkpoint confirmed in ZooKeeper, -1 before the first
//	zkwriter_checkpoint_age_seconds         time since the mtime of the last checkpoint confirmed, absent before the first
//	zkwriter_retired                        1 once the Writer was fenced by another controller, else 0
//	zk_write_behind_lag                     committed offset minus confirmed offset, never below 0
//
// A controller replaces its Writer after migrationzk.ErrStaleSession and at
// each new leadership tenure; Collector.SetWriter hands the new one to the
// Collector, whose counters carry on from the replaced Writer's final
// counts while its gauges follow the new Writer.
//
// zk_write_behind_lag carries the name of Kafka's ZkWriteBehindLag but not
// its flaw: Kafka records the offset of a dual-write batch before its
// checkpoint is confirmed, so its lag stays at zero while writes are
// stuck. Here the confirmed side moves only once /migration is known to
// hold the checkpoint, so a stuck writer shows a lag that grows with every
// record the KRaft controller commits.
package zkmetrics

import (
	"fmt"
	"sync"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/kraftmigration/zkwriter/migrationzk"
)

// DefaultNamespace prefixes every metric name but zk_write_behind_lag.
const DefaultNamespace = "zkwriter"

// LagMetric is the name of the write-behind lag gauge.
const LagMetric = "zk_write_behind_lag"

// Option configures a Collector.
type Option func(*config)

type config struct {
	namespace string
	labels    prometheus.Labels
}

// WithNamespace replaces the "zkwriter" prefix of the metric names; ""
// removes it. zk_write_behind_lag keeps its name.
func WithNamespace(ns string) Option { return func(c *config) { c.namespace = ns } }

// WithConstLabels adds labels with fixed values to every metric, such as
// the cluster a Writer serves when a process runs several.
func WithConstLabels(labels prometheus.Labels) Option {
	return func(c *config) {
		c.labels = prometheus.Labels{}
		for k, v := range labels {
			c.labels[k] = v
		}
	}
}

// Collector is a prometheus.Collector for the current Writer of a
// controller. SetWriter replaces that Writer, as a controller does after
// ErrStaleSession and at each new leadership tenure, and the counters go on
// from where the replaced Writer left them.
type Collector struct {
	committed func() int64

	mu sync.RWMutex
	w  *migrationzk.Writer
	// base holds the final counts of the Writers replaced so far, added to
	// the current Writer's.
	base migrationzk.Stats

	writes, attempts, retries, lostAcks *prometheus.Desc
	latency, confirmed, retired, lag    *prometheus.Desc
	age                                 *prometheus.Desc
}

var _ prometheus.Collector = (*Collector)(nil)

// NewCollector returns a Collector reading w until SetWriter replaces it.
// committed returns the offset of the last record the KRaft controller
// committed to its metadata log, the offset that ZooKeeper should catch up
// with; it is called at each scrape and must be safe for concurrent use.
// With a nil committed the lag gauge is not exported. A nil w or a nil
// option fails it with an error wrapping migrationzk.ErrInvalidArgument.
func NewCollector(w *migrationzk.Writer, committed func() int64, opts ...Option) (*Collector, error) {
	if w == nil {
		return nil, fmt.Errorf("%w: zkmetrics: NewCollector: nil Writer", migrationzk.ErrInvalidArgument)
	}
	cfg := config{namespace: DefaultNamespace}
	for i, o := range opts {
		if o == nil {
			return nil, fmt.Errorf("%w: zkmetrics: NewCollector: option %d is nil", migrationzk.ErrInvalidArgument, i)
		}
		o(&cfg)
	}
	name := func(n string) string { return prometheus.BuildFQName(cfg.namespace, "", n) }
	desc := func(n, help string, labels ...string) *prometheus.Desc {
		return prometheus.NewDesc(name(n), help, labels, cfg.labels)
	}
	c := &Collector{
		w:         w,
		committed: committed,
		writes:    desc("writes_total", "Write calls by outcome: ok, recovered (acknowledgement lost, landed per the reread), conflict, fenced, error.", "outcome"),
		attempts:  desc("write_attempts_total", "Write requests sent to ZooKeeper."),
		retries:   desc("write_retries_total", "Write requests sent again within a call, after a lost connection or a transaction that lost an op."),
		lostAcks:  desc("lost_acks_recovered_total", "Write requests whose acknowledgement was lost but which a reread proved had landed."),
		latency:   desc("write_duration_seconds", "Latency of write calls, from call to return."),
		confirmed: desc("confirmed_offset", "KRaft metadata offset of the last /migration checkpoint confirmed in ZooKeeper, -1 before the first."),
		retired:   desc("retired", "1 once the Writer was fenced by another controller and writes nothing more, else 0."),
		age:       desc("checkpoint_age_seconds", ageHelp),
	}
	if committed != nil {
		c.lag = prometheus.NewDesc(LagMetric,
			"Committed KRaft metadata offset minus the offset of the last checkpoint confirmed in ZooKeeper, not below 0. It grows while writes are stuck.",
			nil, cfg.labels)
	}
	return c, nil
}

// Describe sends the descriptors of the metrics.
func (c *Collector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{c.writes, c.attempts, c.retries, c.lostAcks, c.latency, c.confirmed, c.retired, c.age} {
		ch <- d
	}
	if c.lag != nil {
		ch <- c.lag
	}
}

// SetWriter makes w the Writer the Collector reads from the next scrape
// on. It is safe for concurrent use with scrapes and other calls.
//
// Counters continue: SetWriter takes a snapshot of the replaced Writer's
// Stats at the moment of the call and adds it, from then on, to the
// current Writer's counts (writes by outcome, attempts, retries, lost
// acknowledgements recovered, and the latency histogram's buckets, count
// and sum), so no counter goes down. Whatever the replaced Writer does
// after that moment is not counted: a call still in progress counts only
// if it had returned, and later calls not at all. Stop using a Writer
// before replacing it: after ErrStaleSession its client is to be closed,
// and once a leadership tenure is over its writes would be fenced.
//
// Gauges follow w alone: the confirmed offset reads -1, and the lag grows
// accordingly, until w confirms a checkpoint (GetOrCreate does), and the
// retired gauge reads 0 until w is fenced.
//
// Setting the current Writer again changes nothing. Setting a Writer that
// was replaced earlier counts its earlier calls twice: make a new Writer
// instead. w must not be nil.
func (c *Collector) SetWriter(w *migrationzk.Writer) {
	if w == nil {
		panic("zkmetrics: SetWriter with a nil Writer")
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if w == c.w {
		return
	}
	c.base = add(c.base, c.w.Stats())
	c.w = w
}

// read returns the counts of the replaced Writers plus the current
// Writer's, with the current Writer's gauges. Under the lock a scrape
// neither pairs a base with the wrong Writer nor reads a replaced Writer
// after its snapshot was taken, so its counts never exceed those of a
// later scrape.
func (c *Collector) read() (s migrationzk.Stats, confirmed int64, retired bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	s = add(c.base, c.w.Stats())
	retired, _ = c.w.Retired()
	return s, c.w.ConfirmedOffset(), retired
}

// Collect reads the statistics of the current Writer, adds those of the
// Writers it replaced, and sends the metrics.
func (c *Collector) Collect(ch chan<- prometheus.Metric) {
	s, confirmed, isRetired := c.read()
	for _, w := range [...]struct {
		outcome string
		n       uint64
	}{{"ok", s.OK}, {"recovered", s.Recovered}, {"conflict", s.Conflicts}, {"fenced", s.Fenced}, {"error", s.Errors}} {
		ch <- prometheus.MustNewConstMetric(c.writes, prometheus.CounterValue, float64(w.n), w.outcome)
	}
	ch <- prometheus.MustNewConstMetric(c.attempts, prometheus.CounterValue, float64(s.Attempts))
	ch <- prometheus.MustNewConstMetric(c.retries, prometheus.CounterValue, float64(s.Retries))
	ch <- prometheus.MustNewConstMetric(c.lostAcks, prometheus.CounterValue, float64(s.LostAcks))
	ch <- prometheus.MustNewConstHistogram(c.latency, s.Latency.Count, s.Latency.Sum.Seconds(), buckets(s.Latency))
	ch <- prometheus.MustNewConstMetric(c.confirmed, prometheus.GaugeValue, float64(confirmed))
	retired := 0.0
	if isRetired {
		retired = 1
	}
	ch <- prometheus.MustNewConstMetric(c.retired, prometheus.GaugeValue, retired)
	c.collectAge(ch)
	if c.lag != nil {
		ch <- prometheus.MustNewConstMetric(c.lag, prometheus.GaugeValue, float64(Lag(c.committed(), confirmed)))
	}
}

// Lag is the write-behind lag: committed minus confirmed, or 0 when
// ZooKeeper is not behind.
func Lag(committed, confirmed int64) int64 {
	if committed <= confirmed {
		return 0
	}
	return committed - confirmed
}

// buckets converts the Writer's cumulative histogram to Prometheus'
// buckets: upper bound in seconds to cumulative count, +Inf left out.
func buckets(h migrationzk.Histogram) map[float64]uint64 {
	b := make(map[float64]uint64, len(h.Bounds))
	for i, bound := range h.Bounds {
		if i < len(h.Counts) {
			b[bound.Seconds()] = h.Counts[i]
		}
	}
	return b
}

// add returns the sum of two Writers' counts. The Writers share the
// latency bounds; a zero Stats, the base before any replacement, adds
// nothing.
func add(a, b migrationzk.Stats) migrationzk.Stats {
	s := migrationzk.Stats{
		OK: a.OK + b.OK, Recovered: a.Recovered + b.Recovered, Conflicts: a.Conflicts + b.Conflicts,
		Fenced: a.Fenced + b.Fenced, Errors: a.Errors + b.Errors,
		Attempts: a.Attempts + b.Attempts, Retries: a.Retries + b.Retries, LostAcks: a.LostAcks + b.LostAcks,
	}
	s.Latency.Bounds = b.Latency.Bounds
	s.Latency.Counts = make([]uint64, len(b.Latency.Counts))
	for i, n := range b.Latency.Counts {
		s.Latency.Counts[i] = n
		if i < len(a.Latency.Counts) {
			s.Latency.Counts[i] += a.Latency.Counts[i]
		}
	}
	s.Latency.Count = a.Latency.Count + b.Latency.Count
	s.Latency.Sum = a.Latency.Sum + b.Latency.Sum
	return s
}
