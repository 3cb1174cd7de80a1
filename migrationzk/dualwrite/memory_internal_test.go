package dualwrite

import (
	"testing"

	"github.com/kraftmigration/zkwriter/migrationzk"
	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

// Fault: none (pure). A znode found missing takes with it what is
// remembered below it: a topic znode or its partitions znode the
// partitions of that topic only, /brokers/topics and its ancestors every
// topic's, any other znode none.
func TestMissingZnodeDropsWhatIsBelow(t *testing.T) {
	for _, tc := range []struct {
		missing string
		kept    []string
	}{
		{znode.TopicPath("a"), []string{"b", "partitions"}},
		{znode.TopicPartitionsPath("a"), []string{"b", "partitions"}},
		{znode.TopicPath("partitions"), []string{"a", "b"}},
		{znode.TopicsPath, nil},
		{"/brokers", nil},
		{znode.TopicPath("a") + "/other", []string{"a", "b", "partitions"}},
		{"/config/topics/a", []string{"a", "b", "partitions"}},
		{"/brokers/topicsx", []string{"a", "b", "partitions"}},
	} {
		m := newMemory(DefaultRememberedPartitions)
		for _, topic := range []string{"a", "b", "partitions"} {
			for id := int32(0); id < 3; id++ {
				m.learn(migrationzk.Znode{Path: znode.PartitionStatePath(topic, id), Exists: true, Data: []byte("{}"), Version: 1})
			}
		}
		m.learn(migrationzk.Znode{Path: tc.missing, Version: -1})
		if len(m.topics) != len(tc.kept) || m.partitions != 3*len(tc.kept) {
			t.Errorf("%s missing: %d topics, room for %d partitions remembered, want %v", tc.missing, len(m.topics), m.partitions, tc.kept)
		}
		for _, topic := range tc.kept {
			if m.topics[topic] == nil {
				t.Errorf("%s missing: topic %q forgotten", tc.missing, topic)
			}
		}
	}
}
