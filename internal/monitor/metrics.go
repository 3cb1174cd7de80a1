package monitor

import (
	"context"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// descs are the exporter's metrics but its own counters. Every one is a
// plain gauge: identities and epochs are values, never labels, and no
// metric carries a topic or partition label.
type descs struct {
	zkUp, lastOK, stallAfter                                           *prometheus.Desc
	cpPresent, cpOffset, cpMetaEpoch, cpCtlID, cpCtlEpoch, cpVersion   *prometheus.Desc
	cpModified, cpAge, stalled                                         *prometheus.Desc
	ctlPresent, ctlKRaft, ctlEphemeral, ctlID, ctlKRaftEpoch, identity *prometheus.Desc
	epoch                                                              *prometheus.Desc
	hazard, election, highest, scanned, undecodable, scanOK, scanTook  *prometheus.Desc
	scans, scanErrors                                                  *prometheus.Desc
	kraftUp, hw, leader, leaderEpoch, lag                              *prometheus.Desc
}

func newDescs() descs {
	g := func(name, help string) *prometheus.Desc {
		return prometheus.NewDesc(prometheus.BuildFQName(Namespace, "", name), help, nil, nil)
	}
	return descs{
		zkUp:          g("zookeeper_up", "1 when the last read of the control znodes succeeded, else 0: the series read from ZooKeeper are served only then."),
		lastOK:        g("zookeeper_last_success_timestamp_seconds", "When the last read of the control znodes that succeeded started, Unix seconds."),
		stallAfter:    g("stall_after_seconds", "The checkpoint age above which the checkpoint counts as stalled (--stall-after)."),
		cpPresent:     g("checkpoint_present", "1 when /migration holds a checkpoint that decodes, else 0 (absent, null, empty, or not Kafka's format)."),
		cpOffset:      g("checkpoint_offset", "kraft_metadata_offset of /migration: the last KRaft metadata offset mirrored into ZooKeeper; -1 during the initial load."),
		cpMetaEpoch:   g("checkpoint_metadata_epoch", "kraft_metadata_epoch of /migration."),
		cpCtlID:       g("checkpoint_controller_id", "kraft_controller_id of /migration: the KRaft controller that wrote the checkpoint."),
		cpCtlEpoch:    g("checkpoint_controller_epoch", "kraft_controller_epoch of /migration."),
		cpVersion:     g("checkpoint_znode_version", "The znode version of /migration: it rises by one with every checkpoint written."),
		cpModified:    g("checkpoint_modified_timestamp_seconds", "The mtime of /migration, Unix seconds, by ZooKeeper's clock."),
		cpAge:         g("checkpoint_age_seconds", "This host's clock minus the mtime of /migration, at the scrape, not below 0; clock skew between ZooKeeper and this host is its limit."),
		stalled:       g("checkpoint_stalled", "1 when a KRaft controller holds /controller, /migration is past the initial load and older than --stall-after: stalled, or finalized; else 0."),
		ctlPresent:    g("controller_present", "1 when /controller holds a controller registration that decodes, else 0."),
		ctlKRaft:      g("controller_kraft", "The kind of controller in /controller: 1 for a KRaft controller (kraftControllerEpoch set), 0 for a ZooKeeper-mode broker."),
		ctlEphemeral:  g("controller_ephemeral", "1 when /controller is ephemeral, as a ZooKeeper-mode controller creates it, 0 when persistent, as a KRaft controller does."),
		ctlID:         g("controller_id", "The broker or controller id in /controller."),
		ctlKRaftEpoch: g("controller_kraft_epoch", "kraftControllerEpoch of /controller; -1 for a ZooKeeper-mode broker."),
		identity:      g("controller_identity_matches_checkpoint", "With a KRaft controller in /controller and a checkpoint in /migration: 1 when /migration names that controller, by id and epoch, else 0."),
		epoch:         g("controller_epoch", "The value of /controller_epoch: the ZooKeeper controller epoch."),
		hazard:        g("rollback_hazard_partitions", "Partitions stamped with a controller_epoch above the epoch leader elections would run under after a rollback (rollback_election_epoch): a ZooKeeper-mode controller would leave them offline. From the last scan."),
		election:      g("rollback_election_epoch", "The epoch leader elections would run under after a rollback at the last scan: /controller_epoch when a ZooKeeper-mode broker holds /controller, else /controller_epoch + 1."),
		highest:       g("partition_controller_epoch_max", "The highest controller_epoch stamped on a partition state at the last scan, -1 when none."),
		scanned:       g("scan_partitions", "Partition states read by the last scan."),
		undecodable:   g("scan_undecodable_partitions", "Partition states the last scan could not decode (not counted in the hazard)."),
		scanOK:        g("scan_last_success_timestamp_seconds", "When the last scan that succeeded ended, Unix seconds."),
		scanTook:      g("scan_duration_seconds", "How long the last scan that succeeded took."),
		scans:         prometheus.NewDesc(Namespace+"_scans_total", "Scans of the partition states started.", nil, nil),
		scanErrors:    prometheus.NewDesc(Namespace+"_scan_errors_total", "Scans of the partition states that failed.", nil, nil),
		kraftUp:       g("kraft_up", "With a quorum configured: 1 when the last DescribeQuorum was answered, else 0."),
		hw:            g("kraft_high_watermark", "The high watermark of the KRaft metadata log (exclusive: the next offset to commit)."),
		leader:        g("kraft_leader_id", "The id of the KRaft quorum's leader, the active controller."),
		leaderEpoch:   g("kraft_leader_epoch", "The KRaft quorum's leader epoch."),
		lag:           g("kraft_lag_records", "The true lag: high watermark - 1 - checkpoint_offset, records not yet mirrored into ZooKeeper (NoOps included); /migration is read first, so it is never below 0."),
	}
}

// Describe sends the descriptors of every metric.
func (e *Exporter) Describe(ch chan<- *prometheus.Desc) {
	d := e.desc
	for _, x := range []*prometheus.Desc{d.zkUp, d.lastOK, d.stallAfter, d.cpPresent, d.cpOffset, d.cpMetaEpoch, d.cpCtlID, d.cpCtlEpoch,
		d.cpVersion, d.cpModified, d.cpAge, d.stalled, d.ctlPresent, d.ctlKRaft, d.ctlEphemeral, d.ctlID, d.ctlKRaftEpoch, d.identity,
		d.epoch, d.hazard, d.election, d.highest, d.scanned, d.undecodable, d.scanOK, d.scanTook, d.scans, d.scanErrors,
		d.kraftUp, d.hw, d.leader, d.leaderEpoch, d.lag} {
		ch <- x
	}
	e.polls.Describe(ch)
	e.pollErrors.Describe(ch)
}

// Collect reads (or shares a read made less than MinPoll ago) and sends
// the metrics.
func (e *Exporter) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), e.cfg.PollTimeout)
	defer cancel()
	e.collect(ch, e.refresh(ctx), time.Now())
}

// collect sends the metrics of r at now.
func (e *Exporter) collect(ch chan<- prometheus.Metric, r *reading, now time.Time) {
	d := e.desc
	gauge := func(desc *prometheus.Desc, v float64) {
		ch <- prometheus.MustNewConstMetric(desc, prometheus.GaugeValue, v)
	}
	e.polls.Collect(ch)
	e.pollErrors.Collect(ch)
	gauge(d.stallAfter, e.cfg.StallAfter.Seconds())
	s := e.scanned()
	ch <- prometheus.MustNewConstMetric(d.scans, prometheus.CounterValue, float64(s.runs))
	ch <- prometheus.MustNewConstMetric(d.scanErrors, prometheus.CounterValue, float64(s.errors))
	e.collectQuorum(gauge, r)
	e.mu.Lock()
	lastOK := e.lastOK
	e.mu.Unlock()
	if !lastOK.IsZero() {
		gauge(d.lastOK, unix(lastOK))
	}
	if r.err != nil {
		gauge(d.zkUp, 0)
		return
	}
	gauge(d.zkUp, 1)
	e.collectCheckpoint(gauge, r.control, now)
	e.collectController(gauge, r.control)
	if s.ok {
		gauge(d.hazard, float64(s.atRisk))
		gauge(d.election, float64(s.election))
		gauge(d.highest, float64(s.highest))
		gauge(d.scanned, float64(s.partitions))
		gauge(d.undecodable, float64(s.bad))
		gauge(d.scanOK, unix(s.at))
		gauge(d.scanTook, s.duration.Seconds())
	}
	if r.quorum != nil && r.control.migration != nil && r.control.migration.KRaftMetadataOffset >= 0 {
		gauge(d.lag, float64(max(0, r.quorum.HighWatermark-1-r.control.migration.KRaftMetadataOffset)))
	}
}

// collectCheckpoint sends /migration's series.
func (e *Exporter) collectCheckpoint(gauge func(*prometheus.Desc, float64), c control, now time.Time) {
	d := e.desc
	if c.migration == nil {
		gauge(d.cpPresent, 0)
		return
	}
	m := c.migration
	gauge(d.cpPresent, 1)
	gauge(d.cpOffset, float64(m.KRaftMetadataOffset))
	gauge(d.cpMetaEpoch, float64(m.KRaftMetadataEpoch))
	gauge(d.cpCtlID, float64(m.KRaftControllerID))
	gauge(d.cpCtlEpoch, float64(m.KRaftControllerEpoch))
	gauge(d.cpVersion, float64(c.migrationVer))
	gauge(d.cpModified, unix(c.migrationMtime))
	gauge(d.cpAge, max(0, now.Sub(c.migrationMtime).Seconds()))
	gauge(d.stalled, bool01(c.stalled(now, e.cfg.StallAfter)))
}

// collectController sends /controller's and /controller_epoch's series.
func (e *Exporter) collectController(gauge func(*prometheus.Desc, float64), c control) {
	d := e.desc
	if c.epoch != nil {
		gauge(d.epoch, float64(*c.epoch))
	}
	if c.controller == nil {
		gauge(d.ctlPresent, 0)
		return
	}
	gauge(d.ctlPresent, 1)
	gauge(d.ctlKRaft, bool01(c.controller.IsKRaft()))
	gauge(d.ctlEphemeral, bool01(c.ephemeral))
	gauge(d.ctlID, float64(c.controller.BrokerID))
	gauge(d.ctlKRaftEpoch, float64(c.controller.KRaftControllerEpoch))
	if matches, ok := c.identityMatches(); ok {
		gauge(d.identity, bool01(matches))
	}
}

// collectQuorum sends the quorum's series, when one is configured.
func (e *Exporter) collectQuorum(gauge func(*prometheus.Desc, float64), r *reading) {
	if e.cfg.Quorum == nil {
		return
	}
	d := e.desc
	if r.quorum == nil {
		gauge(d.kraftUp, 0)
		return
	}
	gauge(d.kraftUp, 1)
	gauge(d.hw, float64(r.quorum.HighWatermark))
	gauge(d.leader, float64(r.quorum.LeaderID))
	gauge(d.leaderEpoch, float64(r.quorum.LeaderEpoch))
}

func unix(t time.Time) float64 { return float64(t.UnixNano()) / 1e9 }

func bool01(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
