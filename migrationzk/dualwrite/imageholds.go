package dualwrite

import (
	"strings"

	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

// Holds reports whether img holds, decoded, the znode at path (relative
// to the root, as UndecodableZnode.Path): a topic, a partition's state, a
// topic or broker config, a quota entity or a user's SCRAM credentials, a
// resource pattern's ACLs, a delegation token, or the producer-id block.
// A znode img lists as undecodable, or one it lacks, is not held; nor is
// one of no kind above. It tells a znode that does not decode on one side
// of a comparison from one the other side simply lacks.
func (img Image) Holds(path string) bool {
	if rest, ok := strings.CutPrefix(path, znode.TopicsPath+"/"); ok {
		topic, tail, hasTail := strings.Cut(rest, "/")
		return img.holdsTopic(topic, tail, hasTail)
	}
	if path == znode.ProducerIDBlockPath {
		return img.ProducerIDBlock != nil
	}
	for r := range img.Configs {
		if e, err := r.entity(); err == nil && e.Path() == path {
			return true
		}
	}
	for q := range img.ClientQuotas {
		if e, err := q.configEntity(); err == nil && e.Path() == path {
			return true
		}
	}
	for user := range img.Scram {
		if e, err := (QuotaEntity{User: user}).configEntity(); err == nil && e.Path() == path {
			return true
		}
	}
	for p := range img.ACLs {
		if patternPath(p) == path {
			return true
		}
	}
	for id := range img.DelegationTokens {
		if znode.DelegationTokenPath(id) == path {
			return true
		}
	}
	return false
}

// holdsTopic reports whether img holds the topic's znode (no rest), or
// the state of one of its partitions (rest partitions/<id>/state).
func (img Image) holdsTopic(topic, rest string, hasRest bool) bool {
	t, ok := img.Topics[topic]
	switch {
	case !ok:
		return false
	case !hasRest:
		return true
	}
	idText, isPartition := strings.CutPrefix(rest, "partitions/")
	idText, isState := strings.CutSuffix(idText, "/state")
	id, valid := parseID(idText)
	if !isPartition || !isState || !valid {
		return false
	}
	if p, assigned := t.Partitions[id]; assigned {
		return p.HasState()
	}
	u, unassigned := t.Unassigned[id]
	return unassigned && u.State != nil
}
