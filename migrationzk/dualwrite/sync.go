package dualwrite

import (
	"context"
	"time"

	"github.com/kraftmigration/zkwriter/migrationzk"
)

// SyncReport says what a Sync found and did.
type SyncReport struct {
	// Plan is what differed, and was applied unless Sync failed.
	Plan Plan
	// Partitions counts the partition states read.
	Partitions int
	// ReadTime and ApplyTime split the time Sync took.
	ReadTime, ApplyTime time.Duration
	// Results are the results of the plan's ops, as Batch.Apply returns
	// them; nil when the plan wrote nothing but the checkpoint.
	Results []migrationzk.OpResult
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

// buildSyncOptions applies opts; a nil one is invalid.
func buildSyncOptions(opts []SyncOption) (syncOptions, error) {
	var o syncOptions
	for i, opt := range opts {
		if opt == nil {
			return o, invalidf("Sync: option %d is nil", i)
		}
		opt(&o)
	}
	return o, nil
}

// Sync makes ZooKeeper hold desired, as Kafka's full sync (handleSnapshot)
// does when a KRaft controller takes over, and returns the State
// ZooKeeper holds. It reads the tree (Read), plans what differs (Diff),
// and applies the plan as one Batch: fenced by s's controller epoch,
// atomic, the checkpoint s written by its last transaction only. A plan
// larger than one transaction is split by the Writer's size limit; the
// transactions before the last leave the checkpoint's content as it was,
// so a Sync stopped partway (a fault, a crash, a cancelled ctx) shows no
// checkpoint for it, and the next Sync, reading what ZooKeeper holds,
// finishes the job. When nothing differs and /migration holds s already,
// Sync writes nothing, so a second Sync right after the first writes
// nothing. A fenced Sync (ErrFenced) stops at once, and its Writer writes
// nothing more.
//
// Znodes whose data does not decode are left alone, neither rewritten nor
// deleted with a topic above them, and listed in the report's
// Plan.Skipped, unless OverwriteUndecodable. Where Kafka's full sync is
// right Sync keeps its semantics: a quota entity ZooKeeper holds that
// desired lacks keeps its znode with an empty config, and a config or ACL
// set desired holds empty is deleted. Where it is wrong Sync does better:
// deviations 14 to 16 of
// https://github.com/kraftmigration/zkwriter/blob/main/docs/deviations.md,
// besides those of every dual-write (6 to 13).
//
// Secrets follow the rules of every write (SecretError): a plan that
// would write a redacted value, such as one of a redacted export's, fails
// with a *SecretError and writes nothing; secrets the plan leaves as
// ZooKeeper holds them are not looked at. Before anything is sent, Sync
// refuses, with an error matching migrationzk.ErrInvalidArgument, a
// desired image whose Secrets its Client would store wrongly:
// SecretsPlain needs a Client built WithPasswordEncoder, SecretsEncoded
// one without.
//
// On error the State is what ZooKeeper is known to hold, as Batch.Apply
// returns it; the report holds what was read and planned. A nil option
// fails the call before anything is read, with an error wrapping
// migrationzk.ErrInvalidArgument.
func (c *Client) Sync(ctx context.Context, s migrationzk.State, desired Image, opts ...SyncOption) (migrationzk.State, SyncReport, error) {
	o, err := buildSyncOptions(opts)
	if err != nil {
		return s, SyncReport{}, err
	}
	if err := c.checkSecretForm(desired); err != nil {
		return s, SyncReport{}, err
	}
	start := time.Now()
	var rep SyncReport
	c.enter(s)
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
	b.keepHeld = true
	if o.overwrite {
		b.overwrite = undecodablePaths(current)
		current.Undecodable = nil
	}
	rep.Plan = Diff(current, desired)
	if err := rep.Plan.AddTo(b); err != nil {
		return s, rep, err
	}
	st, res, err := b.Apply(ctx, s)
	rep.Results = res
	rep.ApplyTime = time.Since(start) - rep.ReadTime
	return st, rep, err
}

// undecodablePaths returns img's undecodable paths as a set.
func undecodablePaths(img Image) map[string]bool {
	paths := make(map[string]bool, len(img.Undecodable))
	for _, u := range img.Undecodable {
		paths[u.Path] = true
	}
	return paths
}
