package torture

import (
	"fmt"
	"strconv"

	"github.com/kraftmigration/zkwriter/migrationzk/dualwrite"
	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

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
