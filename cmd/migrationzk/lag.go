package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/kraftmigration/zkwriter/internal/kraftdiff"
	"github.com/kraftmigration/zkwriter/internal/quorum"
	"github.com/kraftmigration/zkwriter/migrationzk/kraftmeta"
)

// lagReport is the output of lag.
type lagReport struct {
	header
	Migration migrationView `json:"migration"`
	// Quorum is DescribeQuorum's answer; absent with --metadata-dir.
	Quorum *quorumView `json:"quorum,omitempty"`
	// Lag is high_watermark - 1 - the checkpoint's offset: the records of
	// the metadata log not yet mirrored into ZooKeeper, NoOps included;
	// absent when /migration holds no checkpoint yet, and with
	// --metadata-dir.
	Lag *int64 `json:"lag,omitempty"`
	// Metadata is the directory --metadata-dir gives, read instead of
	// asking the quorum; LagAtMost and LagAtLeast bound the lag from it.
	Metadata   *lagMetadataView `json:"metadata,omitempty"`
	LagAtMost  *int64           `json:"lag_at_most,omitempty"`
	LagAtLeast *int64           `json:"lag_at_least,omitempty"`
	// Text says what the figure is.
	Text string `json:"text"`
}

// lagMetadataView is what lag reads of a metadata directory.
type lagMetadataView struct {
	Path string `json:"path"`
	// LogEndOffset is the offset after its last record: what this node
	// may count as committed is below it.
	LogEndOffset int64 `json:"log_end_offset"`
	LastEpoch    int32 `json:"last_epoch"`
	// SnapshotOffset is the latest snapshot's last contained offset, -1
	// for none: the quorum committed at least that far.
	SnapshotOffset int64 `json:"snapshot_offset"`
}

// quorumView is DescribeQuorum's answer in the output.
type quorumView struct {
	// Asked is the node that answered, Version the answer's version.
	Asked         string           `json:"asked"`
	Version       int16            `json:"version"`
	LeaderID      int32            `json:"leader_id"`
	LeaderEpoch   int32            `json:"leader_epoch"`
	HighWatermark int64            `json:"high_watermark"`
	Voters        []quorum.Replica `json:"voters"`
	Observers     []quorum.Replica `json:"observers"`
}

func setupLag(a *app, fs *flag.FlagSet) func(context.Context, *zk.Conn) int {
	var f kafkaFlags
	f.register(fs)
	dir := fs.String("metadata-dir", "", "instead of asking the quorum, read this KRaft metadata `directory` (a controller's, without the network): "+
		"its log's end offset bounds the lag from above, its latest snapshot from below")
	return func(ctx context.Context, conn *zk.Conn) int {
		if *dir != "" && (f.configured() || f.commandConfig != "") {
			return a.fail(usageError{errors.New("--metadata-dir and a quorum to ask (--bootstrap-controller, --bootstrap-server, --command-config): give one of them")})
		}
		if *dir != "" {
			return a.lagFromMetadata(ctx, conn, *dir)
		}
		if err := f.check(true); err != nil {
			return a.fail(err)
		}
		return a.lag(ctx, conn, f)
	}
}

// lag reads /migration, then asks the quorum for its high watermark: in
// that order the lag is never below 0.
func (a *app) lag(ctx context.Context, conn *zk.Conn, f kafkaFlags) int {
	c, err := a.quorumClient(f)
	if err != nil {
		return a.fail(err)
	}
	defer c.Close()
	m, err := a.readMigration(ctx, conn)
	if err != nil {
		return a.fail(err)
	}
	qctx, cancel := a.step(ctx)
	st, err := c.Describe(qctx)
	cancel()
	if err != nil {
		return a.fail(&kafkaError{err: err})
	}
	r := lagReport{header: a.header(), Migration: m, Quorum: &quorumView{
		Asked: st.Addr, Version: st.Version, LeaderID: st.LeaderID, LeaderEpoch: st.LeaderEpoch, HighWatermark: st.HighWatermark,
		Voters: nonNil(st.Voters), Observers: nonNil(st.Observers),
	}}
	r.Lag, r.Text = trueLag(m, st.HighWatermark)
	return a.emitLag(r)
}

// trueLag is high watermark - 1 - the checkpoint's offset, not below 0,
// and what it means; nil without a checkpoint.
func trueLag(m migrationView, hw int64) (*int64, string) {
	offset := checkpointOffset(m)
	switch {
	case m.State == stateAbsent:
		return nil, fmt.Sprintf("none to tell: %s is absent, so no migration has started", m.Path)
	case m.State != stateOK:
		return nil, fmt.Sprintf("none to tell: %s holds no checkpoint (%s data)", m.Path, m.State)
	case offset < 0:
		return nil, fmt.Sprintf("none to tell: %s holds offset -1, no checkpoint yet (the initial load)", m.Path)
	}
	lag := max(0, hw-1-offset)
	return &lag, fmt.Sprintf("%s (high watermark %d - 1 - checkpoint offset %d), NoOps included", pluralVerb(int(lag), "record", "records"), hw, offset)
}

func nonNil(r []quorum.Replica) []quorum.Replica {
	if r == nil {
		return []quorum.Replica{}
	}
	return r
}

// printLag prints the lag report as text.
func (a *app) printLag(r lagReport) {
	a.printHeader()
	q := r.Quorum
	w := labelWidth(r.Migration.Path, "Observers")
	a.field(w, r.Migration.Path, describeMigration(r.Migration)...)
	if r.Quorum == nil {
		a.field(w, "Metadata", fmt.Sprintf("%s: log end offset %d, last epoch %d (read without the network)",
			r.Metadata.Path, r.Metadata.LogEndOffset, r.Metadata.LastEpoch))
		a.printf("\nLag: %s.\n", r.Text)
		return
	}
	a.field(w, "Quorum", fmt.Sprintf("leader %d, epoch %d, high watermark %d (answered by %s, DescribeQuorum v%d)",
		q.LeaderID, q.LeaderEpoch, q.HighWatermark, q.Asked, q.Version))
	a.field(w, "Voters", replicaLines(q.Voters)...)
	a.field(w, "Observers", replicaLines(q.Observers)...)
	a.printf("\nTrue lag: %s.\n", r.Text)
}

// replicaLines describes each replica on a line.
func replicaLines(rs []quorum.Replica) []string {
	if len(rs) == 0 {
		return []string{"none"}
	}
	lines := make([]string, len(rs))
	for i, r := range rs {
		lines[i] = fmt.Sprintf("%d  log end offset %d", r.ID, r.LogEndOffset)
		if r.LastCaughtUpTimestamp >= 0 {
			lines[i] += ", caught up " + time.UnixMilli(r.LastCaughtUpTimestamp).UTC().Format(time.RFC3339)
		}
	}
	return lines
}

// lagFromMetadata reads /migration, then the metadata directory dir
// instead of the quorum: without the network the lag is known only
// within bounds. The log's end offset is an upper bound of what this node
// counts as committed (its tail may not be committed), the latest
// snapshot a lower bound of what the quorum committed.
func (a *app) lagFromMetadata(ctx context.Context, conn *zk.Conn, dir string) int {
	m, err := a.readMigration(ctx, conn)
	if err != nil {
		return a.fail(err)
	}
	d, err := kraftmeta.Inspect(ctx, dir)
	if err != nil {
		return a.fail(metadataFailure(dir, err))
	}
	r := lagReport{header: a.header(), Migration: m, Metadata: &lagMetadataView{Path: dir, LogEndOffset: d.LogEndOffset, LastEpoch: d.LastEpoch, SnapshotOffset: -1}}
	if n := len(d.Snapshots); n > 0 {
		r.Metadata.SnapshotOffset = d.Snapshots[n-1].LastContainedOffset()
	}
	offset := checkpointOffset(m)
	if r.LagAtMost, r.Text = trueLag(m, d.LogEndOffset); r.LagAtMost == nil {
		return a.emitLag(r)
	}
	if end := d.LogEndOffset - 1; end < offset {
		return a.fail(&metadataError{&kraftdiff.EndError{Path: dir, End: end, Target: offset, FromMigration: true}})
	}
	least := max(0, r.Metadata.SnapshotOffset-offset)
	r.LagAtLeast = &least
	lower := "no snapshot says what was committed"
	if r.Metadata.SnapshotOffset >= 0 {
		lower = fmt.Sprintf("the latest snapshot, at offset %d, is committed", r.Metadata.SnapshotOffset)
	}
	r.Text = fmt.Sprintf("at most %s (log end offset %d - 1 - checkpoint offset %d: an upper bound, read without the network; "+
		"the log's end may not be committed, and a follower's log ends below what the quorum committed), at least %d (%s), NoOps included",
		pluralVerb(int(*r.LagAtMost), "record", "records"), d.LogEndOffset, offset, least, lower)
	return a.emitLag(r)
}

// emitLag prints a lag report; lag exits 0 whatever the figure.
func (a *app) emitLag(r lagReport) int {
	return a.emit(r, nil, func() { a.printLag(r) })
}
