package main

import (
	"context"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/kraftmigration/zkwriter/internal/epochscan"
	"github.com/kraftmigration/zkwriter/internal/zkerr"
)

// stampedPartition is a partition and the controller epoch its state
// carries.
type stampedPartition struct {
	Topic           string `json:"topic"`
	Partition       int32  `json:"partition"`
	ControllerEpoch int32  `json:"controller_epoch"`
}

// badPartition is a partition whose state znode does not decode.
type badPartition struct {
	Topic     string `json:"topic"`
	Partition string `json:"partition"`
	Path      string `json:"path"`
	Error     string `json:"error"`
	Data      string `json:"data"`
}

// scanResult is what a scan of every partition state found.
type scanResult struct {
	Topics int
	// Partitions counts the partition state znodes read.
	Partitions int
	// WithoutState counts partitions with no state znode yet.
	WithoutState int
	// Highest is the highest controller epoch stamped, -1 when none.
	Highest   int32
	HighestAt *stampedPartition
	// AtRisk are the partitions stamped with an epoch above the threshold
	// given to scan, in topic and partition order.
	AtRisk      []stampedPartition
	Undecodable []badPartition
	Elapsed     time.Duration
}

// scan reads the state of every partition under /brokers/topics and
// collects those stamped with a controller epoch above threshold (see
// epochscan.Scan: after a sync, through a Writer, which sends a read
// again after a lost connection), each page of the scan bounded by --timeout, drawing a
// progress bar on a terminal.
func (a *app) scan(ctx context.Context, conn *zk.Conn, threshold int32) (scanResult, error) {
	w, err := a.newWriter(conn)
	if err != nil {
		return scanResult{}, err
	}
	bar := &scanBar{a: a}
	defer bar.finish()
	s, err := epochscan.Scan(ctx, w, threshold, epochscan.Options{Root: a.g.root, Step: a.g.timeout, List: true, Progress: bar})
	res := scanResult{
		Topics: s.Topics, Partitions: s.Partitions, WithoutState: s.WithoutState, Highest: s.Highest,
		AtRisk: make([]stampedPartition, len(s.AtRisk)), Undecodable: []badPartition{}, Elapsed: s.Elapsed,
	}
	if s.HighestAt != nil {
		at := stampedPartition(*s.HighestAt)
		res.HighestAt = &at
	}
	for i, p := range s.AtRisk {
		res.AtRisk[i] = stampedPartition(p)
	}
	for _, u := range s.Undecodable {
		res.Undecodable = append(res.Undecodable, badPartition{Topic: u.Topic, Partition: u.Partition, Path: u.Path,
			Error: decodeDetail(u.Err), Data: rawText(u.Data)})
	}
	return res, err
}

// scanBar draws the progress of a scan on a terminal; elsewhere it draws
// nothing.
type scanBar struct {
	a   *app
	bar *progress
}

func (b *scanBar) Topics(n int) {
	if b.a.tty {
		b.bar = startProgress(b.a.stderr, n)
	}
}

func (b *scanBar) Listed(n int) {
	if b.bar != nil {
		b.bar.listed.Add(int64(n))
	}
}

func (b *scanBar) Partitions(n int) {
	if b.bar != nil {
		b.bar.total.Store(int64(n))
	}
}

func (b *scanBar) Read(n int) {
	if b.bar != nil {
		b.bar.partitions.Add(int64(n))
	}
}

func (b *scanBar) finish() {
	if b.bar != nil {
		b.bar.finish()
	}
}

// firstJoined returns err showing only the first of the errors it joins,
// and how many more there were (see zkerr.FirstJoined).
func firstJoined(err error) error { return zkerr.FirstJoined(err) }
