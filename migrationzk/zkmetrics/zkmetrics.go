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
//	zkwriter_retired                        1 once the Writer was fenced by another controller, else 0
//	zk_write_behind_lag                     committed offset minus confirmed offset, never below 0
//
// zk_write_behind_lag carries the name of Kafka's ZkWriteBehindLag but not
// its flaw: Kafka records the offset of a dual-write batch before its
// checkpoint is confirmed, so its lag stays at zero while writes are
// stuck. Here the confirmed side moves only once /migration is known to
// hold the checkpoint, so a stuck writer shows a lag that grows with every
// record the KRaft controller commits.
package zkmetrics

import (
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

// Collector is a prometheus.Collector for one Writer.
type Collector struct {
	w         *migrationzk.Writer
	committed func() int64

	writes, attempts, retries, lostAcks *prometheus.Desc
	latency, confirmed, retired, lag    *prometheus.Desc
}

var _ prometheus.Collector = (*Collector)(nil)

// NewCollector returns a Collector for w. committed returns the offset of
// the last record the KRaft controller committed to its metadata log, the
// offset that ZooKeeper should catch up with; it is called at each scrape
// and must be safe for concurrent use. With a nil committed the lag gauge
// is not exported.
func NewCollector(w *migrationzk.Writer, committed func() int64, opts ...Option) *Collector {
	cfg := config{namespace: DefaultNamespace}
	for _, o := range opts {
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
	}
	if committed != nil {
		c.lag = prometheus.NewDesc(LagMetric,
			"Committed KRaft metadata offset minus the offset of the last checkpoint confirmed in ZooKeeper, not below 0. It grows while writes are stuck.",
			nil, cfg.labels)
	}
	return c
}

// Describe sends the descriptors of the metrics.
func (c *Collector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{c.writes, c.attempts, c.retries, c.lostAcks, c.latency, c.confirmed, c.retired} {
		ch <- d
	}
	if c.lag != nil {
		ch <- c.lag
	}
}

// Collect reads the Writer's statistics and sends the metrics.
func (c *Collector) Collect(ch chan<- prometheus.Metric) {
	s := c.w.Stats()
	confirmed := c.w.ConfirmedOffset()
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
	if r, _ := c.w.Retired(); r {
		retired = 1
	}
	ch <- prometheus.MustNewConstMetric(c.retired, prometheus.GaugeValue, retired)
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
