package torture

import (
	"fmt"
	"strconv"

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

// notificationsOf returns the notification each change writes.
func notificationsOf(changes []vocabChange) []string {
	notes := make([]string, len(changes))
	for i, ch := range changes {
		notes[i] = ch.notification
	}
	return notes
}

// quotaRate is the byte rate a quota change stamped by offset writes:
// above 0, as Kafka requires, from the first checkpoint, at offset 0.
func quotaRate(offset int64) float64 { return float64(offset + 1) }
