package monitor

import (
	"context"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// metric names one of the exporter's metrics. Every one is unlabelled:
// identities and epochs are values, never labels, and no metric carries a
// topic or partition label.
type metric int

// The metrics, in the order they are served.
const (
	mPolls metric = iota
	mPollErrors
	mZKUp
	mLastOK
	mStallAfter
	mCPPresent
	mCPOffset
	mCPMetaEpoch
	mCPCtlID
	mCPCtlEpoch
	mCPVersion
	mCPModified
	mCPAge
	mStalled
	mCtlPresent
	mCtlKRaft
	mCtlEphemeral
	mCtlID
	mCtlKRaftEpoch
	mIdentity
	mEpoch
	mHazard
	mElection
	mHighest
	mScanned
	mUndecodable
	mScanOK
	mScanTook
	mScans
	mScanErrors
	mKRaftUp
	mHW
	mLeader
	mLeaderEpoch
	mLag
	metricCount
)

// def is a metric's name (without the prefix), help, and kind.
type def struct {
	name, help string
	counter    bool
}

// defs are the metrics' definitions, indexed by metric.
func defs() [metricCount]def {
	return [metricCount]def{
		mPolls:         {"polls_total", "Reads of the control znodes (and of the quorum, when configured) made for scrapes.", true},
		mPollErrors:    {"poll_errors_total", "Reads of the control znodes that failed: ZooKeeper unreachable, no session, or no reply in time.", true},
		mZKUp:          {"zookeeper_up", "1 when the last read of the control znodes succeeded, else 0: the series read from ZooKeeper are served only then.", false},
		mLastOK:        {"zookeeper_last_success_timestamp_seconds", "When the last read of the control znodes that succeeded started, Unix seconds.", false},
		mStallAfter:    {"stall_after_seconds", "The checkpoint age above which the checkpoint counts as stalled (--stall-after).", false},
		mCPPresent:     {"checkpoint_present", "1 when /migration holds a checkpoint that decodes, else 0 (absent, null, empty, or not Kafka's format).", false},
		mCPOffset:      {"checkpoint_offset", "kraft_metadata_offset of /migration: the last KRaft metadata offset mirrored into ZooKeeper; -1 during the initial load.", false},
		mCPMetaEpoch:   {"checkpoint_metadata_epoch", "kraft_metadata_epoch of /migration.", false},
		mCPCtlID:       {"checkpoint_controller_id", "kraft_controller_id of /migration: the KRaft controller that wrote the checkpoint.", false},
		mCPCtlEpoch:    {"checkpoint_controller_epoch", "kraft_controller_epoch of /migration.", false},
		mCPVersion:     {"checkpoint_znode_version", "The znode version of /migration: it rises by one with every checkpoint written.", false},
		mCPModified:    {"checkpoint_modified_timestamp_seconds", "The mtime of /migration, Unix seconds, by ZooKeeper's clock.", false},
		mCPAge:         {"checkpoint_age_seconds", "This host's clock minus the mtime of /migration, at the scrape, not below 0; clock skew between ZooKeeper and this host is its limit.", false},
		mStalled:       {"checkpoint_stalled", "1 when a KRaft controller holds /controller, /migration is past the initial load and older than --stall-after: stalled, or finalized; else 0.", false},
		mCtlPresent:    {"controller_present", "1 when /controller holds a controller registration that decodes, else 0.", false},
		mCtlKRaft:      {"controller_kraft", "The kind of controller in /controller: 1 for a KRaft controller (kraftControllerEpoch set), 0 for a ZooKeeper-mode broker.", false},
		mCtlEphemeral:  {"controller_ephemeral", "1 when /controller is ephemeral, as a ZooKeeper-mode controller creates it, 0 when persistent, as a KRaft controller does.", false},
		mCtlID:         {"controller_id", "The broker or controller id in /controller.", false},
		mCtlKRaftEpoch: {"controller_kraft_epoch", "kraftControllerEpoch of /controller; -1 for a ZooKeeper-mode broker.", false},
		mIdentity:      {"controller_identity_matches_checkpoint", "With a KRaft controller in /controller and a checkpoint in /migration: 1 when /migration names that controller, by id and epoch, else 0.", false},
		mEpoch:         {"controller_epoch", "The value of /controller_epoch: the ZooKeeper controller epoch.", false},
		mHazard:        {"rollback_hazard_partitions", "Partitions stamped with a controller_epoch above the epoch leader elections would run under after a rollback (rollback_election_epoch): a ZooKeeper-mode controller would leave them offline. From the last scan.", false},
		mElection:      {"rollback_election_epoch", "The epoch leader elections would run under after a rollback at the last scan: /controller_epoch when a ZooKeeper-mode broker holds /controller, else /controller_epoch + 1.", false},
		mHighest:       {"partition_controller_epoch_max", "The highest controller_epoch stamped on a partition state at the last scan, -1 when none.", false},
		mScanned:       {"scan_partitions", "Partition states read by the last scan.", false},
		mUndecodable:   {"scan_undecodable_partitions", "Partition states the last scan could not decode (not counted in the hazard).", false},
		mScanOK:        {"scan_last_success_timestamp_seconds", "When the last scan that succeeded ended, Unix seconds.", false},
		mScanTook:      {"scan_duration_seconds", "How long the last scan that succeeded took.", false},
		mScans:         {"scans_total", "Scans of the partition states started.", true},
		mScanErrors:    {"scan_errors_total", "Scans of the partition states that failed.", true},
		mKRaftUp:       {"kraft_up", "With a quorum configured: 1 when the last DescribeQuorum was answered, else 0.", false},
		mHW:            {"kraft_high_watermark", "The high watermark of the KRaft metadata log (exclusive: the next offset to commit).", false},
		mLeader:        {"kraft_leader_id", "The id of the KRaft quorum's leader, the active controller.", false},
		mLeaderEpoch:   {"kraft_leader_epoch", "The KRaft quorum's leader epoch.", false},
		mLag:           {"kraft_lag_records", "The true lag: high watermark - 1 - checkpoint_offset, records not yet mirrored into ZooKeeper (NoOps included); /migration is read first, so it is never below 0.", false},
	}
}

// newDescs returns the prometheus.Desc of each metric.
func newDescs() [metricCount]*prometheus.Desc {
	var out [metricCount]*prometheus.Desc
	for m, d := range defs() {
		out[m] = prometheus.NewDesc(prometheus.BuildFQName(Namespace, "", d.name), d.help, nil, nil)
	}
	return out
}

// sample is one metric's value at a scrape.
type sample struct {
	m metric
	v float64
}

// Describe sends the descriptors of every metric.
func (e *Exporter) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range e.desc {
		ch <- d
	}
}

// Collect reads (or shares a read made less than MinPoll ago) and sends
// the metrics.
func (e *Exporter) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), e.cfg.PollTimeout)
	defer cancel()
	for _, s := range e.samples(e.refresh(ctx), time.Now()) {
		kind := prometheus.GaugeValue
		if e.defs[s.m].counter {
			kind = prometheus.CounterValue
		}
		ch <- prometheus.MustNewConstMetric(e.desc[s.m], kind, s.v)
	}
}

// samples returns the metrics of r at now, in the order of the metric
// constants: the ZooKeeper series only when r succeeded, the scan's once
// a scan succeeded, the quorum's when one is configured.
func (e *Exporter) samples(r *reading, now time.Time) []sample {
	out := make([]sample, 0, metricCount)
	add := func(m metric, v float64) { out = append(out, sample{m, v}) }
	e.mu.Lock()
	polls, pollErrors, lastOK := e.polls, e.pollErrors, e.lastOK
	e.mu.Unlock()
	add(mPolls, float64(polls))
	add(mPollErrors, float64(pollErrors))
	add(mZKUp, bool01(r.err == nil))
	if !lastOK.IsZero() {
		add(mLastOK, unix(lastOK))
	}
	add(mStallAfter, e.cfg.StallAfter.Seconds())
	s := e.scanned()
	if r.err == nil {
		checkpointSamples(add, r.control, now, e.cfg.StallAfter)
		controllerSamples(add, r.control)
		if s.ok {
			add(mHazard, float64(s.atRisk))
			add(mElection, float64(s.election))
			add(mHighest, float64(s.highest))
			add(mScanned, float64(s.partitions))
			add(mUndecodable, float64(s.bad))
			add(mScanOK, unix(s.at))
			add(mScanTook, s.duration.Seconds())
		}
	}
	add(mScans, float64(s.runs))
	add(mScanErrors, float64(s.errors))
	if e.cfg.Quorum != nil {
		quorumSamples(add, r)
	}
	return out
}

// checkpointSamples adds /migration's series.
func checkpointSamples(add func(metric, float64), c control, now time.Time, stallAfter time.Duration) {
	if c.migration == nil {
		add(mCPPresent, 0)
		return
	}
	m := c.migration
	add(mCPPresent, 1)
	add(mCPOffset, float64(m.KRaftMetadataOffset))
	add(mCPMetaEpoch, float64(m.KRaftMetadataEpoch))
	add(mCPCtlID, float64(m.KRaftControllerID))
	add(mCPCtlEpoch, float64(m.KRaftControllerEpoch))
	add(mCPVersion, float64(c.migrationVer))
	add(mCPModified, unix(c.migrationMtime))
	add(mCPAge, max(0, now.Sub(c.migrationMtime).Seconds()))
	add(mStalled, bool01(c.stalled(now, stallAfter)))
}

// controllerSamples adds /controller's and /controller_epoch's series.
func controllerSamples(add func(metric, float64), c control) {
	if c.controller == nil {
		add(mCtlPresent, 0)
	} else {
		add(mCtlPresent, 1)
		add(mCtlKRaft, bool01(c.controller.IsKRaft()))
		add(mCtlEphemeral, bool01(c.ephemeral))
		add(mCtlID, float64(c.controller.BrokerID))
		add(mCtlKRaftEpoch, float64(c.controller.KRaftControllerEpoch))
		if matches, ok := c.identityMatches(); ok {
			add(mIdentity, bool01(matches))
		}
	}
	if c.epoch != nil {
		add(mEpoch, float64(*c.epoch))
	}
}

// quorumSamples adds the quorum's series, and the true lag when the
// checkpoint was read too.
func quorumSamples(add func(metric, float64), r *reading) {
	if r.quorum == nil {
		add(mKRaftUp, 0)
		return
	}
	add(mKRaftUp, 1)
	add(mHW, float64(r.quorum.HighWatermark))
	add(mLeader, float64(r.quorum.LeaderID))
	add(mLeaderEpoch, float64(r.quorum.LeaderEpoch))
	if m := r.control.migration; r.err == nil && m != nil && m.KRaftMetadataOffset >= 0 {
		add(mLag, float64(max(0, r.quorum.HighWatermark-1-m.KRaftMetadataOffset)))
	}
}

func unix(t time.Time) float64 { return float64(t.UnixNano()) / 1e9 }

func bool01(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
