// Package monitor is the exporter behind migrationzk monitor. It reads
// the control znodes of a cluster in migration (/migration,
// /controller, /controller_epoch) at each scrape, scans the partition
// states for the rollback hazard at its own slower pace, asks the KRaft
// quorum for its high watermark when one is configured, never writes,
// and exports what it read to Prometheus under one prefix, migrationzk_.
//
// A scrape reads ZooKeeper at most once per control znode, and scrapes
// closer together than Config.MinPoll share one read, so that several
// Prometheus replicas do not multiply the load. When the last read failed
// (ZooKeeper down, or no session), a scrape serves
// migrationzk_zookeeper_up 0 and the time of the last read that
// succeeded, and none of the series read from ZooKeeper: stale values
// are never served as current. They come back with the next read that
// succeeds.
package monitor

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/kraftmigration/zkwriter/migrationzk"
)

// Namespace prefixes every metric of the exporter.
const Namespace = "migrationzk"

// Quorum is what the KRaft quorum said of its metadata log.
type Quorum struct {
	LeaderID    int32
	LeaderEpoch int32
	// HighWatermark is the leader's high watermark: the next offset to
	// commit (exclusive).
	HighWatermark int64
}

// QuorumSource asks the KRaft quorum, by DescribeQuorum, for its leader
// and high watermark. It must be safe for concurrent use.
type QuorumSource interface {
	DescribeQuorum(ctx context.Context) (Quorum, error)
}

// Config configures an Exporter.
type Config struct {
	// Conn is the client of the cluster's ZooKeeper, a *zk.Conn or
	// anything with the same methods. The exporter only reads through it;
	// while it holds no session, reads fail at once, so that scrapes
	// during an outage answer at once.
	Conn migrationzk.Conn
	// Root is the chroot the cluster runs under, such as /kafka; "" for
	// none.
	Root string
	// StallAfter is the checkpoint age above which, with a KRaft
	// controller in /controller, the checkpoint counts as stalled.
	StallAfter time.Duration
	// MinPoll is the interval within which scrapes share one read.
	MinPoll time.Duration
	// PollTimeout bounds one read of the control znodes (and the quorum's
	// answer); a scrape waits at most that long, or less when Prometheus
	// says its scrape times out sooner.
	PollTimeout time.Duration
	// ScanInterval is the time between the end of one scan of the
	// partition states and the start of the next; 0 turns the scan off.
	ScanInterval time.Duration
	// ScanRate bounds the scan's requests a second; 0 leaves them
	// unbounded.
	ScanRate float64
	// ScanStep bounds each step of the scan (see epochscan.Options.Step).
	ScanStep time.Duration
	// Quorum, when set, is asked for the high watermark at each read.
	Quorum QuorumSource
	// Logger logs failed reads and scans; nil discards.
	Logger *slog.Logger
}

// Exporter reads ZooKeeper, and the quorum when configured, and exports
// the figures. It is a prometheus.Collector; Handler serves it.
type Exporter struct {
	cfg Config
	// poller reads the control znodes and sends nothing again; scanner
	// reads the partition states, sending a read lost with its
	// connection again.
	poller, scanner *migrationzk.Writer
	log             *slog.Logger
	defs            [metricCount]def
	desc            [metricCount]*prometheus.Desc
	// text is what the text format writes of each metric before its
	// value.
	text     [metricCount]string
	textSize int

	mu sync.Mutex
	// polls and pollErrors count the reads made, and those that failed.
	polls, pollErrors uint64
	// last is the last read that finished; inFlight is the one under
	// way, if any, closed when it finishes.
	last     *reading
	inFlight chan struct{}
	// lastOK is when the last read that succeeded started.
	lastOK time.Time

	scans scanState
}

var _ prometheus.Collector = (*Exporter)(nil)

// New returns an Exporter of cfg. A nil Conn, an invalid Root, or a
// negative or zero setting that has no meaning, is an error.
func New(cfg Config) (*Exporter, error) {
	switch {
	case cfg.Conn == nil:
		return nil, errors.New("monitor: nil Conn")
	case cfg.StallAfter <= 0:
		return nil, errors.New("monitor: StallAfter must be positive")
	case cfg.PollTimeout <= 0:
		return nil, errors.New("monitor: PollTimeout must be positive")
	case cfg.MinPoll < 0, cfg.ScanInterval < 0, cfg.ScanRate < 0, cfg.ScanStep < 0:
		return nil, errors.New("monitor: MinPoll, ScanInterval, ScanRate and ScanStep must not be negative")
	}
	poller, err := migrationzk.New(cfg.Conn, migrationzk.WithRoot(cfg.Root), migrationzk.WithBackOff(noRetry))
	if err != nil {
		return nil, fmt.Errorf("monitor: Root: %w", err)
	}
	scanner, err := migrationzk.New(cfg.Conn, migrationzk.WithRoot(cfg.Root))
	if err != nil {
		return nil, fmt.Errorf("monitor: Root: %w", err)
	}
	e := &Exporter{cfg: cfg, poller: poller, scanner: scanner, log: cfg.Logger, defs: defs(), desc: newDescs()}
	e.text, e.textSize = textHeads(e.defs)
	if e.log == nil {
		e.log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	return e, nil
}

// noRetry is the retry policy of the reads of the control znodes: none.
func noRetry() migrationzk.BackOff { return nil }

// Run scans the partition states for the rollback hazard, at once and
// then ScanInterval after each scan ends, until ctx ends. Without a scan
// interval it only waits for ctx.
func (e *Exporter) Run(ctx context.Context) {
	if e.cfg.ScanInterval <= 0 {
		<-ctx.Done()
		return
	}
	for {
		e.scan(ctx)
		t := time.NewTimer(e.cfg.ScanInterval)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
	}
}
