package dualwrite_test

import (
	"strings"
	"testing"

	"github.com/kraftmigration/zkwriter/migrationzk/dualwrite"
	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

// valuesCase is a table row of TestDiffShowsValues: how desired differs
// from fullImage, and the text of the one change Diff plans, its value
// lines included.
type valuesCase struct {
	name    string
	current func(*dualwrite.Image)
	desired func(*dualwrite.Image)
	want    string
}

func valuesCases() []valuesCase {
	return []valuesCase{
		{name: "config keys added, removed and changed",
			desired: func(img *dualwrite.Image) {
				img.Configs[topicOrders] = map[string]string{"retention.ms": "2000", "segment.bytes": "1024"}
			},
			want: "write-configs topics/orders\n    retention.ms: 1000 -> 2000\n    segment.bytes: (none) -> 1024\n    cleanup.policy: compact -> (none)\n"},
		{name: "configs deleted",
			desired: func(img *dualwrite.Image) { delete(img.Configs, brokerOne) },
			want:    "delete-configs brokers/1\n    log.retention.hours: 1 -> (none)\n"},
		{name: "leader, epoch and ISR",
			desired: editTopic("orders", func(t *dualwrite.Topic) {
				p := t.Partitions[1]
				p.State = dualwrite.PartitionState{Leader: 3, LeaderEpoch: 7, ISR: []int32{3}}
				t.Partitions[1] = p
			}),
			want: "update-partitions orders partitions [1]\n    partition 1 leader: 2 -> 3\n    partition 1 leader_epoch: 0 -> 7\n    partition 1 isr: [2,3,1] -> [3]\n"},
		{name: "replicas and reassignment",
			desired: editTopic("orders", func(t *dualwrite.Topic) {
				p := t.Partitions[0]
				p.Replicas, p.AddingReplicas, p.RemovingReplicas = []int32{1, 2, 3, 4}, []int32{4}, []int32{1}
				t.Partitions[0] = p
			}),
			want: "update-topic orders\n    partition 0 replicas: [1,2,3] -> [1,2,3,4]\n    partition 0 adding_replicas: (none) -> [4]\n    partition 0 removing_replicas: (none) -> [1]\n"},
		{name: "partitions deleted",
			desired: editTopic("orders", func(t *dualwrite.Topic) { delete(t.Partitions, 1) }),
			want: "update-topic orders\n    partition 1 replicas: [2,3,1] -> (none)\n" +
				"delete-partitions orders partitions [1]\n    partition 1 leader: 2 -> (none)\n    partition 1 leader_epoch: 0 -> (none)\n" +
				"    partition 1 isr: [2,3,1] -> (none)\n    partition 1 leader_recovery_state: 0 -> (none)\n"},
		{name: "ACL entries added and removed",
			desired: func(img *dualwrite.Image) { img.ACLs[prefixBar] = []znode.ACLEntry{writeBob} },
			want:    "write-acls PREFIXED Topic bar-\n    acl: (none) -> User:bob Allow Write from host *\n    acl: User:alice Allow Read from host * -> (none)\n"},
		{name: "ACLs deleted",
			desired: func(img *dualwrite.Image) { delete(img.ACLs, prefixBar) },
			want:    "delete-acls PREFIXED Topic bar-\n    acl: User:alice Allow Read from host * -> (none)\n"},
		{name: "quotas",
			desired: func(img *dualwrite.Image) {
				img.ClientQuotas[clientQuota] = map[string]float64{"consumer_byte_rate": 4096, "request_percentage": 12.5}
			},
			want: "write-client-quotas clients/app\n    consumer_byte_rate: 2048 -> 4096\n    request_percentage: (none) -> 12.5\n"},
		{name: "token fields",
			desired: func(img *dualwrite.Image) {
				t := token
				t.ExpiryTimestamp, t.Renewers = 2000, []string{"User:bob", "User:carol"}
				img.DelegationTokens["tok1"] = t
			},
			want: "write-delegation-token tok1\n    renewers: [User:bob] -> [User:bob,User:carol]\n    expiry_timestamp: 1000 -> 2000\n"},
		{name: "producer-id block",
			desired: func(img *dualwrite.Image) { b := znode.MigrationProducerIDBlock(7000); img.ProducerIDBlock = &b },
			want:    "write-producer-id [7000, 7999]\n    block_start: 6000 -> 7000\n    block_end: 6999 -> 7999\n"},
		{name: "topic created",
			current: func(img *dualwrite.Image) { delete(img.Topics, "payments") },
			want: "create-topic payments\n    topic_id: (none) -> ASNFZ4mrze8P7cuph2VDIQ\n    partition 0 replicas: (none) -> [1,2,3]\n" +
				"    partition 0 leader: (none) -> 1\n    partition 0 leader_epoch: (none) -> 0\n    partition 0 isr: (none) -> [1,2,3]\n" +
				"    partition 0 leader_recovery_state: (none) -> 0\n"},
	}
}

// Fault: none (pure). Each change Diff plans says, value by value, what
// ZooKeeper holds and what the change writes, in its text and in its
// JSON, which decodes to the same values.
func TestDiffShowsValues(t *testing.T) {
	for _, tc := range valuesCases() {
		t.Run(tc.name, func(t *testing.T) {
			current, desired := fullImage(), fullImage()
			if tc.current != nil {
				tc.current(&current)
			}
			if tc.desired != nil {
				tc.desired(&desired)
			}
			p := dualwrite.Diff(current, desired)
			text := p.String()
			if got := text[:strings.LastIndex(strings.TrimSuffix(text, "\n"), "\n")+1]; got != tc.want {
				t.Fatalf("plan:\n%s\nwant\n%s", got, tc.want)
			}
			checkJSONRoundTrip(t, p)
		})
	}
}
