// Package kraftdiff compares what ZooKeeper holds with what KRaft's own
// metadata says it must hold: KRaft's image replayed to the offset
// /migration records (or another), diffed with ZooKeeper's as
// dualwrite's Read finds it, and what KRaft's log holds after that
// offset, which ZooKeeper lacks. It is the work of migrationzk kraft diff,
// apart for its benchmark.
package kraftdiff

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/kraftmigration/zkwriter/migrationzk"
	"github.com/kraftmigration/zkwriter/migrationzk/dualwrite"
	"github.com/kraftmigration/zkwriter/migrationzk/kraftmeta"
	"github.com/kraftmigration/zkwriter/migrationzk/passwordencoder"
	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

// Options say where to compare.
type Options struct {
	// At is the offset to replay KRaft's metadata to, when AtSet; else
	// /migration's.
	At    int64
	AtSet bool
	// Passwords says that the Client decodes password configs (it has a
	// password encoder), so that they are compared; otherwise each one
	// both sides hold is left out and listed in Result.NotCompared.
	Passwords bool
	// Progress, if set, is given Read's progress.
	Progress func(dualwrite.ReadProgress)
}

// Result is what a comparison found.
type Result struct {
	// Migration is /migration as read; Checkpoint its content, nil when
	// it is absent.
	Migration  migrationzk.Znode
	Checkpoint *znode.Migration
	// Target is the offset KRaft's metadata was replayed to.
	Target int64
	// KRaft is the replay at Target. Its After says what the log holds
	// beyond it: what KRaft may have committed that ZooKeeper lacks.
	KRaft *kraftmeta.Result
	// Live is ZooKeeper's image, KRaftImage KRaft's, each as compared:
	// password configs both hold are left out unless Options.Passwords.
	Live, KRaftImage dualwrite.Image
	// Plan makes Live into KRaftImage: what differs.
	Plan dualwrite.Plan
	// NotCompared are the password configs both sides hold, left out
	// without a password encoder.
	NotCompared []Secret
	// ReplayTime, ReadTime and DiffTime are the time the replay, Read
	// and the diff took. The replay runs while Read does.
	ReplayTime, ReadTime, DiffTime time.Duration
}

// Secret names a password config: its config entity, "brokers/1", and
// key.
type Secret struct {
	Entity string `json:"entity"`
	Key    string `json:"key"`
}

// ErrNoMigration is a /migration that records no offset: absent, or at
// -1, before the migration's first checkpoint.
var ErrNoMigration = errors.New("no migration has run yet")

// EndError is a metadata log that ends below the offset to compare at: an
// old copy, or a follower that lags.
type EndError struct {
	Path string
	// End is the last offset the log holds, Target the offset asked for.
	End, Target int64
	// FromMigration says Target is /migration's.
	FromMigration bool
}

func (e *EndError) Error() string {
	whose := "--at"
	if e.FromMigration {
		whose = "/migration's offset"
	}
	return fmt.Sprintf("the KRaft metadata at %s ends at offset %d, below %s %d: an old copy, or the directory of a follower that lags; "+
		"give the active controller's directory, or the most up to date voter's", e.Path, e.End, whose, e.Target)
}

// MetadataError is a failure to read or replay KRaft's metadata, as
// opposed to ZooKeeper's.
type MetadataError struct {
	Path string
	Err  error
}

func (e *MetadataError) Error() string { return fmt.Sprintf("KRaft metadata %s: %v", e.Path, e.Err) }
func (e *MetadataError) Unwrap() error { return e.Err }

// Compare reads /migration through w, then replays KRaft's metadata at
// path to its offset (or Options.At) while c reads ZooKeeper's image,
// and diffs the two. Its requests are the sync and read of /migration,
// then Read's. An undecodable /migration is an error, and so is one
// recording no offset (ErrNoMigration) unless Options.At is set; a log
// ending below the offset is an *EndError, one cleaned past it a
// *MetadataError holding a *kraftmeta.OffsetError, and any other
// failure to read the metadata a *MetadataError.
func Compare(ctx context.Context, c *dualwrite.Client, w *migrationzk.Writer, path string, o Options) (*Result, error) {
	zs, err := w.Read(ctx, znode.MigrationPath)
	if err != nil {
		return nil, err
	}
	res := &Result{Migration: zs[0]}
	if res.Migration.Exists {
		m, err := znode.DecodeMigration(res.Migration.Data)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", znode.MigrationPath, err)
		}
		res.Checkpoint = &m
	}
	switch {
	case o.AtSet:
		res.Target = o.At
	case res.Checkpoint == nil || res.Checkpoint.KRaftMetadataOffset < 0:
		return res, ErrNoMigration
	default:
		res.Target = res.Checkpoint.KRaftMetadataOffset
	}
	if err := res.compare(ctx, c, path, o); err != nil {
		return res, err
	}
	return res, nil
}

// compare replays to res.Target while c reads, then diffs. A replay
// that fails ends the read at once.
func (res *Result) compare(ctx context.Context, c *dualwrite.Client, path string, o Options) error {
	rctx, cancel := context.WithCancel(ctx)
	defer cancel()
	type replayed struct {
		r   *kraftmeta.Result
		err error
		d   time.Duration
	}
	done := make(chan replayed, 1)
	go func() {
		start := time.Now()
		r, err := kraftmeta.Replay(rctx, path, kraftmeta.AtOffset(res.Target))
		if err != nil {
			cancel()
		}
		done <- replayed{r, err, time.Since(start)}
	}()
	start := time.Now()
	live, err := c.Read(rctx, o.Progress)
	res.ReadTime = time.Since(start)
	if err != nil {
		cancel()
	}
	rep := <-done
	res.ReplayTime = rep.d
	var oe *kraftmeta.OffsetError
	switch {
	case errors.As(rep.err, &oe) && errors.Is(oe, kraftmeta.ErrBeyondEnd):
		return &EndError{Path: path, End: oe.End, Target: res.Target, FromMigration: !o.AtSet}
	case rep.err != nil && !(err != nil && errors.Is(rep.err, context.Canceled)):
		return &MetadataError{Path: path, Err: rep.err}
	case err != nil:
		return err
	}
	res.KRaft = rep.r
	start = time.Now()
	res.Live, res.KRaftImage = live, rep.r.Image
	if !o.Passwords {
		res.Live, res.KRaftImage, res.NotCompared = withoutPasswords(live, rep.r.Image)
	}
	res.Plan = dualwrite.Diff(res.Live, res.KRaftImage)
	res.DiffTime = time.Since(start)
	return nil
}

// notCompared is the value both sides get for a password config neither
// is compared by.
const notCompared = "(not compared)"

// withoutPasswords returns copies of a and b in which every password
// config both hold has one value, so that Diff sees it unchanged, and
// lists them. A password config only one side holds is left as it is:
// Diff sees it appear or go.
func withoutPasswords(a, b dualwrite.Image) (dualwrite.Image, dualwrite.Image, []Secret) {
	var out []Secret
	ac, bc := maps.Clone(a.Configs), maps.Clone(b.Configs)
	for r, acfg := range a.Configs {
		bcfg, ok := b.Configs[r]
		if !ok {
			continue
		}
		var keys []string
		for k := range acfg {
			if _, both := bcfg[k]; both && passwordencoder.IsPasswordConfig(k) {
				keys = append(keys, k)
			}
		}
		if len(keys) == 0 {
			continue
		}
		ac[r], bc[r] = maps.Clone(acfg), maps.Clone(bcfg)
		for _, k := range keys {
			ac[r][k], bc[r][k] = notCompared, notCompared
			out = append(out, Secret{Entity: Entity(r), Key: k})
		}
	}
	slices.SortFunc(out, func(x, y Secret) int {
		return cmp.Or(strings.Compare(x.Entity, y.Entity), strings.Compare(x.Key, y.Key))
	})
	a.Configs, b.Configs = ac, bc
	return a, b, out
}

// Entity names a config resource as Kafka's change notifications do:
// "topics/orders", "brokers/1", "brokers/<default>".
func Entity(r dualwrite.ConfigResource) string {
	kind := "topics"
	if r.Type == dualwrite.BrokerConfig {
		kind = "brokers"
	}
	name := r.Name
	if name == "" {
		name = znode.DefaultEntityName
	}
	return kind + "/" + name
}
