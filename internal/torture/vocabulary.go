package torture

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"

	"github.com/kraftmigration/zkwriter/migrationzk"
	"github.com/kraftmigration/zkwriter/migrationzk/dualwrite"
	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

// vocabChange is one change of a dual-write batch: how to add it to a
// Batch, and the notification its landing writes.
type vocabChange struct {
	add          func(*dualwrite.Batch)
	notification string
	desc         string
	// path is the znode the change writes, relative to the root.
	path string
}

// notificationRoots are the parents Kafka's change notifications live
// under.
var notificationRoots = []string{znode.ConfigChangesPath, znode.LiteralACLChangesPath, znode.ExtendedACLChangesPath}

// chooseVocabulary picks one to three changes in Kafka's dual-write
// vocabulary: a topic's configs, a literal or prefixed ACL set, or a user's
// quotas, each with content stamped by the offset so that it always
// changes and writes one notification.
func (wl *workload) chooseVocabulary(offset int64) []vocabChange {
	n := 1 + wl.rng.Intn(3)
	changes := make([]vocabChange, 0, n)
	for i := 0; i < n; i++ {
		k := wl.rng.Intn(8) // a small set of entities, so that changes meet
		stamp := strconv.FormatInt(offset, 10)
		switch wl.rng.Intn(3) {
		case 0:
			changes = append(changes, configChange(k, stamp))
		case 1:
			changes = append(changes, aclChange(k, stamp, wl.rng.Intn(2) == 0))
		default:
			changes = append(changes, quotaChange(k, offset))
		}
	}
	return changes
}

func configChange(k int, stamp string) vocabChange {
	res := dualwrite.ConfigResource{Type: dualwrite.TopicConfig, Name: fmt.Sprintf("c%d", k)}
	return vocabChange{
		add:          func(b *dualwrite.Batch) { b.WriteConfigs(res, map[string]string{"retention.ms": stamp}) },
		notification: string(znode.TopicConfigEntity(res.Name).Change().Encode()),
		desc:         "configs of topic " + res.Name,
		path:         znode.TopicConfigEntity(res.Name).Path(),
	}
}

func aclChange(k int, stamp string, literal bool) vocabChange {
	pattern := dualwrite.ResourcePattern{Type: znode.ResourceTopic, Name: fmt.Sprintf("a%d", k), PatternType: znode.PatternLiteral}
	note := string(znode.LiteralACLChange{ResourceType: pattern.Type, Name: pattern.Name}.Encode())
	path := znode.LiteralACLPath(pattern.Type, pattern.Name)
	if !literal {
		path = znode.PrefixedACLPath(pattern.Type, pattern.Name)
		pattern.PatternType = znode.PatternPrefixed
		note = string(znode.ExtendedACLChange{ResourceType: pattern.Type, Name: pattern.Name, PatternType: pattern.PatternType}.Encode())
	}
	entries := []znode.ACLEntry{{Principal: "User:u" + stamp, PermissionType: znode.PermissionAllow, Operation: znode.OperationRead, Host: "*"}}
	return vocabChange{
		add:          func(b *dualwrite.Batch) { b.WriteACLs(pattern, entries) },
		notification: note,
		desc:         fmt.Sprintf("ACLs of %s %s", pattern.PatternType, pattern.Name),
		path:         path,
	}
}

func quotaChange(k int, offset int64) vocabChange {
	entity := dualwrite.QuotaEntity{User: fmt.Sprintf("q%d", k)}
	e := znode.UserQuotaEntity(&entity.User)
	return vocabChange{
		add: func(b *dualwrite.Batch) {
			b.WriteClientQuotas(entity, map[string]float64{znode.QuotaProducerByteRate: quotaRate(offset)}, nil)
		},
		notification: string(e.Change().Encode()),
		desc:         "quotas of user " + entity.User,
		path:         e.Path(),
	}
}

// vocabulary makes one dual-write batch of changes with checkpoint s and
// records it, as if called at from (0 for now): the checkpoint and the
// ops as Apply's are, and the notifications each change wrote.
func (d *driver) vocabulary(ctx context.Context, g *generation, s migrationzk.State, changes []vocabChange, from int64) outcome {
	d.calls.Add(1)
	var out migrationzk.State
	var res []migrationzk.OpResult
	rc, err := d.withDualWrite(g, from, fmt.Sprintf("dual-write by %d offset %d (%d changes)", g.id, s.KRaftMetadataOffset, len(changes)), false, func(c *dualwrite.Client) (err error) {
		b := c.Batch()
		for _, ch := range changes {
			ch.add(b)
		}
		out, res, err = b.Apply(ctx, s)
		return err
	})
	o := d.classify(g, ctx, err)
	if errors.Is(err, migrationzk.ErrConflict) && !o.conflict {
		o.conflict = true
	}
	d.recordApplyCheckpoint(g, s, out, o, refusedOps(res), rc)
	d.recordResults(g, res, err, o, out, rc)
	d.tallyNotifications(notificationsOf(changes), res, err)
	d.countNotificationInDoubt(res)
	return o
}

// notificationsOf returns the notification each change writes.
func notificationsOf(changes []vocabChange) []string {
	notes := make([]string, len(changes))
	for i, ch := range changes {
		notes[i] = ch.notification
	}
	return notes
}

// tallyNotifications counts, of notes (one for each change of a call),
// the ones a successful call reported written, and the ones a call that
// did not say may have written.
func (d *driver) tallyNotifications(notes []string, res []migrationzk.OpResult, err error) {
	if err != nil {
		for _, n := range notes {
			d.notes.maybe[n]++
		}
		return
	}
	allowed := map[string]int{}
	for _, n := range notes {
		allowed[n]++
	}
	for _, r := range res {
		if !r.Op.Sequential() || r.Err != nil {
			continue
		}
		note := string(r.Op.Data())
		if allowed[note]--; allowed[note] < 0 {
			d.anomaly(CheckNotification, "a call wrote notification %s more often than it had changes for it", note)
		}
		d.notes.landed[note]++
		d.notes.paths = append(d.notes.paths, r.Path)
	}
}

// notificationTally is what the calls said of change notifications.
type notificationTally struct {
	landed map[string]int // by content: reported written by successful calls
	maybe  map[string]int // by content: of calls that did not say
	paths  []string       // reported written
}

// checkNotifications reads every change notification ZooKeeper holds and
// checks that each content appears once per landed change: at least as
// often as successful calls reported writing it, at most as often more as
// calls that did not say may have written it. Every reported path is
// distinct.
func (d *driver) checkNotifications() {
	held, ok := d.readNotifications()
	if !ok {
		return
	}
	contents := map[string]bool{}
	for c := range held {
		contents[c] = true
	}
	for c := range d.notes.landed {
		contents[c] = true
	}
	for c := range contents {
		if n := held[c]; n < d.notes.landed[c] || n > d.notes.landed[c]+d.notes.maybe[c] {
			d.anomaly(CheckNotification, "notification %s: ZooKeeper holds %d, calls reported %d written and %d in doubt",
				c, n, d.notes.landed[c], d.notes.maybe[c])
		}
	}
	sort.Strings(d.notes.paths)
	for i := 1; i < len(d.notes.paths); i++ {
		if d.notes.paths[i] == d.notes.paths[i-1] {
			d.anomaly(CheckNotification, "notification %s reported written by two calls", d.notes.paths[i])
		}
	}
}

// readNotifications counts the notifications ZooKeeper holds by content.
func (d *driver) readNotifications() (map[string]int, bool) {
	held := map[string]int{}
	for _, parent := range notificationRoots {
		names, _, err := d.admin.Children(d.p(parent))
		if err != nil {
			continue // none were written there
		}
		paths := childPaths(d.p(parent), names)
		for len(paths) > 0 {
			part := paths[:min(len(paths), 200)]
			paths = paths[len(part):]
			_, datas, _, err := d.adminGet(part...)
			if err != nil {
				return nil, false
			}
			for _, data := range datas {
				held[string(data)]++
			}
		}
	}
	return held, true
}

// childPaths returns the paths of parent's children named in names.
func childPaths(parent string, names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = parent + "/" + n
	}
	return out
}

// quotaRate is the byte rate a quota change stamped by offset writes:
// above 0, as Kafka requires, from the first checkpoint, at offset 0.
func quotaRate(offset int64) float64 { return float64(offset + 1) }
