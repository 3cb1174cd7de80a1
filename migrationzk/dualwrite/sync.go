package dualwrite

import (
	"context"
	"time"

	"github.com/kraftmigration/zkwriter/migrationzk"
	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

// SyncReport says what a Sync found and did.
type SyncReport struct {
	// Plan is what differed, and was applied unless Sync failed.
	Plan Plan
	// Partitions counts the partition states read.
	Partitions int
	// ReadTime and ApplyTime split the time Sync took.
	ReadTime, ApplyTime time.Duration
}

// SyncOption configures a Sync.
type SyncOption func(*syncOptions)

type syncOptions struct {
	overwrite bool
	progress  func(ReadProgress)
}

// OverwriteUndecodable makes Sync write the desired content over znodes
// whose data does not decode, instead of leaving them alone.
func OverwriteUndecodable() SyncOption { return func(o *syncOptions) { o.overwrite = true } }

// WithReadProgress makes Sync report how far its read is, as Read does.
func WithReadProgress(progress func(ReadProgress)) SyncOption {
	return func(o *syncOptions) { o.progress = progress }
}

// Sync makes ZooKeeper hold desired, as Kafka's full sync does when a KRaft
// controller takes over: it reads the tree (Read), plans what differs
// (Diff), and applies the plan in one Batch, fenced transactions with the
// checkpoint s written last. It writes nothing when nothing differs and
// /migration holds s already, so a second Sync writes nothing; one stopped
// by a fault or a crash is finished by the next from what ZooKeeper holds;
// none writes under a tenure that ended. Znodes that do not decode are
// left alone (listed in the plan as skipped) unless OverwriteUndecodable.
// Where Kafka's full sync is right this keeps its semantics: a quota
// entity ZooKeeper holds that desired lacks keeps its znode with an empty
// config.
func (c *Client) Sync(ctx context.Context, s migrationzk.State, desired Image, opts ...SyncOption) (migrationzk.State, SyncReport, error) {
	var o syncOptions
	for _, opt := range opts {
		opt(&o)
	}
	start := time.Now()
	var rep SyncReport
	current, err := c.Read(ctx, func(p ReadProgress) {
		rep.Partitions = p.Partitions
		if o.progress != nil {
			o.progress(p)
		}
	})
	rep.ReadTime = time.Since(start)
	if err != nil {
		return s, rep, err
	}
	b := c.Batch()
	if o.overwrite {
		b.overwrite = undecodablePaths(current)
		current.Undecodable = nil
	}
	rep.Plan = Diff(current, desired)
	rep.Plan.AddTo(b)
	st, err := c.syncApply(ctx, s, b, rep.Plan)
	rep.ApplyTime = time.Since(start) - rep.ReadTime
	return st, rep, err
}

// syncApply applies b, or, when the plan is empty, writes the checkpoint
// s only if /migration does not hold it already.
func (c *Client) syncApply(ctx context.Context, s migrationzk.State, b *Batch, plan Plan) (migrationzk.State, error) {
	if !plan.Empty() {
		st, _, err := b.Apply(ctx, s)
		return st, err
	}
	zs, err := c.w.Read(ctx, znode.MigrationPath)
	if err != nil {
		return s, err
	}
	if m, err := znode.DecodeMigration(zs[0].Data); err == nil && zs[0].Version == s.MigrationZkVersion && m == checkpointOf(s) {
		return s, nil
	}
	return c.w.Update(ctx, s)
}

// checkpointOf is the content of /migration that s stands for.
func checkpointOf(s migrationzk.State) znode.Migration {
	return znode.Migration{KRaftMetadataOffset: s.KRaftMetadataOffset, KRaftControllerID: s.KRaftControllerID,
		KRaftMetadataEpoch: s.KRaftMetadataEpoch, KRaftControllerEpoch: s.KRaftControllerEpoch}
}

// undecodablePaths returns img's undecodable paths as a set.
func undecodablePaths(img Image) map[string]bool {
	paths := make(map[string]bool, len(img.Undecodable))
	for _, u := range img.Undecodable {
		paths[u.Path] = true
	}
	return paths
}
