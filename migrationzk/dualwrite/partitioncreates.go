package dualwrite

import (
	"slices"
	"strconv"
	"strings"

	"github.com/kraftmigration/zkwriter/migrationzk"
	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

// partitionCreates plans the creates of new partitions of one topic, and
// of their states, under a partitions znode the ops planned so far
// create, where nothing below it exists: a new topic's thousands of
// partitions. It plans what createPartition plans, but writes the paths
// and the states into one buffer each instead of allocating each, and
// keeps the partitions by id (createdPartitions) rather than by path in
// view.planned.
type partitionCreates struct {
	v      *view
	c      *createdPartitions
	topic  string
	prefix string // the partitions znode's path and "/"
	s      migrationzk.State
	paths  strings.Builder
	data   []byte
	// limit bounds the ids kept by id; a larger one is planned by
	// createPartition.
	limit int32
}

// Room for one partition in the buffers: its id and "/state", and a
// state with a three-replica ISR.
const (
	partitionPathRoom = len("2147483647/state")
	partitionDataRoom = 96
)

// newPartitionCreates readies the creates of partitions of topic, up to
// the ids of ids (ascending), c being what is planned below its
// partitions znode.
func newPartitionCreates(v *view, c *createdPartitions, topic string, ids []int32, s migrationzk.State) *partitionCreates {
	n := len(ids)
	f := &partitionCreates{v: v, c: c, topic: topic, prefix: znode.TopicPartitionsPath(topic) + "/", s: s,
		limit: int32(min(4*n+1024, maxRememberedPartitionID))}
	f.paths.Grow(n * (len(f.prefix) + partitionPathRoom))
	f.data = make([]byte, 0, n*partitionDataRoom)
	if n > 0 {
		f.room(min(ids[n-1], f.limit-1))
	}
	return f
}

// room makes room in c.op for id.
func (f *partitionCreates) room(id int32) {
	if need := int(id) + 1; need > len(f.c.op) {
		f.c.op = slices.Grow(f.c.op, need-len(f.c.op))[:need]
	}
}

// create plans the creates of partition id and its state st, unless
// either is planned already. It reports whether it planned them.
func (f *partitionCreates) create(id int32, st PartitionState) bool {
	c := f.c
	if int(id) < len(c.op) && c.op[id] != 0 {
		return false
	}
	if c.mapped || id >= f.limit {
		return f.v.createPartition(f.topic, id, st, f.s)
	}
	start := f.paths.Len()
	f.paths.WriteString(f.prefix)
	var digits [10]byte
	f.paths.Write(strconv.AppendInt(digits[:0], int64(id), 10))
	end := f.paths.Len()
	f.paths.WriteString("/state")
	all := f.paths.String()
	at := len(f.data)
	f.data = stateZnode(st, f.s).AppendEncode(f.data)
	f.room(id)
	v := f.v
	c.op[id] = int32(len(v.ops)) + 1
	v.ops = append(v.ops, migrationzk.Create(all[start:end], nil), migrationzk.Create(all[start:], f.data[at:len(f.data):len(f.data)]))
	v.targets = append(v.targets, opTarget{topic: f.topic, partition: id}, opTarget{topic: f.topic, partition: id, state: true})
	return true
}
