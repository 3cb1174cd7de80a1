package main

import (
	"context"
	"flag"
	"fmt"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/kraftmigration/zkwriter/internal/quorum"
	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

// lagReport is the output of lag.
type lagReport struct {
	header
	Migration migrationView `json:"migration"`
	Quorum    quorumView    `json:"quorum"`
	// Lag is high_watermark - 1 - the checkpoint's offset: the records of
	// the metadata log not yet mirrored into ZooKeeper, NoOps included;
	// absent when /migration holds no checkpoint yet.
	Lag *int64 `json:"lag,omitempty"`
	// Text says what the figure is.
	Text string `json:"text"`
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
	// A metadata directory (--metadata-dir), read without the network,
	// would give the log's end offset as an upper bound on the committed
	// offset; it waits for the reader of KRaft's metadata log.
	return func(ctx context.Context, conn *zk.Conn) int {
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
	rctx, cancel := a.step(ctx)
	z, err := a.readZnode(rctx, conn, znode.MigrationPath)
	cancel()
	if err != nil {
		return a.fail(err)
	}
	m := viewMigration(a.path(znode.MigrationPath), z)
	qctx, cancel := a.step(ctx)
	st, err := c.Describe(qctx)
	cancel()
	if err != nil {
		return a.fail(&kafkaError{err: err})
	}
	r := lagReport{header: a.header(), Migration: m, Quorum: quorumView{
		Asked: st.Addr, Version: st.Version, LeaderID: st.LeaderID, LeaderEpoch: st.LeaderEpoch, HighWatermark: st.HighWatermark,
		Voters: nonNil(st.Voters), Observers: nonNil(st.Observers),
	}}
	r.Lag, r.Text = trueLag(m, st.HighWatermark)
	if a.json() {
		a.emitJSON(r)
		return exitOK
	}
	a.printLag(r)
	return exitOK
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
