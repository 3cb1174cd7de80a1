package torture

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"

	"github.com/kraftmigration/zkwriter/internal/must"
	"github.com/kraftmigration/zkwriter/migrationzk"
	"github.com/kraftmigration/zkwriter/migrationzk/dualwrite"
	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

// syncTally counts the Sync calls: made, ended in an error, and the
// changes of those that succeeded.
type syncTally struct{ calls, stopped, changes int }

// syncEdit is one edit of the image a Sync makes ZooKeeper hold: a
// vocabulary entity written or removed. Its Sync plans one change, of
// subject, that writes notification (if it changes anything).
type syncEdit struct {
	edit         func(*dualwrite.Image)
	subject      string
	notification string
	// path is the znode the edit writes, relative to the root.
	path string
}

// chooseSync picks one to three edits of the vocabulary's entities (a
// topic's configs, a literal or prefixed ACL set, a user's quotas), each
// written with content stamped by the offset, or, a quarter of the time,
// removed: configs and ACL sets deleted, quotas emptied.
func (wl *workload) chooseSync(offset int64) []syncEdit {
	n := 1 + wl.rng.Intn(3)
	edits := make([]syncEdit, 0, n)
	for i := 0; i < n; i++ {
		k, remove := wl.rng.Intn(8), wl.rng.Float64() < 0.25
		switch wl.rng.Intn(3) {
		case 0:
			edits = append(edits, configEdit(k, strconv.FormatInt(offset, 10), remove))
		case 1:
			edits = append(edits, aclEdit(k, strconv.FormatInt(offset, 10), wl.rng.Intn(2) == 0, remove))
		default:
			edits = append(edits, quotaEdit(k, offset, remove))
		}
	}
	return edits
}

func configEdit(k int, stamp string, remove bool) syncEdit {
	res := dualwrite.ConfigResource{Type: dualwrite.TopicConfig, Name: fmt.Sprintf("c%d", k)}
	return syncEdit{
		edit: func(img *dualwrite.Image) {
			if remove {
				delete(img.Configs, res)
			} else {
				img.Configs[res] = map[string]string{"retention.ms": stamp}
			}
		},
		subject:      znode.TopicConfigEntity(res.Name).EntityPath(),
		notification: configChange(k, stamp).notification,
		path:         configChange(k, stamp).path,
	}
}

func aclEdit(k int, stamp string, literal, remove bool) syncEdit {
	pattern := dualwrite.ResourcePattern{Type: znode.ResourceTopic, Name: fmt.Sprintf("a%d", k), PatternType: znode.PatternLiteral}
	if !literal {
		pattern.PatternType = znode.PatternPrefixed
	}
	entries := []znode.ACLEntry{{Principal: "User:u" + stamp, PermissionType: znode.PermissionAllow, Operation: znode.OperationRead, Host: "*"}}
	return syncEdit{
		edit: func(img *dualwrite.Image) {
			if remove {
				delete(img.ACLs, pattern)
			} else {
				img.ACLs[pattern] = entries
			}
		},
		subject:      fmt.Sprintf("%s %s %s", pattern.PatternType, pattern.Type, pattern.Name),
		notification: aclChange(k, stamp, literal).notification,
		path:         aclChange(k, stamp, literal).path,
	}
}

func quotaEdit(k int, offset int64, remove bool) syncEdit {
	entity := dualwrite.QuotaEntity{User: fmt.Sprintf("q%d", k)}
	return syncEdit{
		edit: func(img *dualwrite.Image) {
			if remove {
				delete(img.ClientQuotas, entity)
			} else {
				img.ClientQuotas[entity] = map[string]float64{znode.QuotaProducerByteRate: quotaRate(offset)}
			}
		},
		subject:      znode.UserQuotaEntity(&entity.User).EntityPath(),
		notification: quotaChange(k, offset).notification,
		path:         quotaChange(k, offset).path,
	}
}

// sync makes one Sync with checkpoint s of the image ZooKeeper holds (read
// through the admin session) with edits, and records it as a dual-write
// batch, as if called at from (0 for now). The Sync must plan no change
// but the edits'.
func (d *driver) sync(ctx context.Context, g *generation, s migrationzk.State, edits []syncEdit, from int64) outcome {
	d.calls.Add(1)
	desired, err := d.adminClient().Read(ctx, nil)
	if err != nil {
		// Nothing was sent: the call is made again.
		return outcome{err: err, retry: true, deadline: ctx.Err() != nil}
	}
	notes := make([]string, len(edits))
	for i, e := range edits {
		e.edit(&desired)
		notes[i] = e.notification
	}
	var out migrationzk.State
	var rep dualwrite.SyncReport
	rc, err := d.withDualWrite(g, from, "", true, func(c *dualwrite.Client) (err error) {
		out, rep, err = c.Sync(ctx, s, desired)
		return err
	})
	o := d.classify(g, ctx, err)
	if errors.Is(err, migrationzk.ErrConflict) && !o.conflict {
		o.conflict = true
	}
	rc.Desc = fmt.Sprintf("sync by %d offset %d (%d edits, %d changes)", g.id, s.KRaftMetadataOffset, len(edits), len(rep.Plan.Changes))
	d.checkSyncPlan(rep.Plan, edits, rc.Desc)
	d.syncs.calls++
	if err != nil {
		d.syncs.stopped++
	} else {
		d.syncs.changes += len(rep.Plan.Changes)
	}
	d.recordApplyCheckpoint(g, s, out, o, refusedOps(rep.Results), rc)
	d.recordResults(g, rep.Results, err, o, out, rc)
	d.tallyNotifications(notes, rep.Results, err)
	return o
}

// checkSyncPlan reports a Sync's plan holding a change no edit asked for:
// ZooKeeper read back otherwise than the image it holds, or a Diff that
// finds a difference where there is none.
func (d *driver) checkSyncPlan(p dualwrite.Plan, edits []syncEdit, desc string) {
	subjects := make([]string, len(edits))
	for i, e := range edits {
		subjects[i] = e.subject
	}
	for _, c := range p.Changes {
		if !slices.Contains(subjects, c.Subject) {
			d.anomaly(CheckResults, "%s: planned %s %s, which no edit asked for", desc, c.Kind, c.Subject)
		}
	}
}

// client returns a dual-write Client of w.
func client(w *migrationzk.Writer) *dualwrite.Client { return must.Get(dualwrite.New(w)) }

// adminClient returns a dual-write Client of the admin session.
func (d *driver) adminClient() *dualwrite.Client {
	return client(must.Get(migrationzk.New(d.admin, migrationzk.WithRoot(root))))
}
