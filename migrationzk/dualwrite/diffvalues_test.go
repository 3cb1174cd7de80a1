package dualwrite_test

import (
	"encoding/json"
	"errors"
	"reflect"
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

// checkJSONRoundTrip checks that p's JSON holds its values, decodes to
// the same changes, and that the decoded plan still cannot be applied.
func checkJSONRoundTrip(t *testing.T, p dualwrite.Plan) {
	t.Helper()
	data, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	var back dualwrite.Plan
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	if back.String() != p.String() {
		t.Fatalf("decoded plan prints\n%s\nwant\n%s", back, p)
	}
	for i, c := range back.Changes {
		if !reflect.DeepEqual(c.Fields, p.Changes[i].Fields) {
			t.Fatalf("change %d: decoded fields %+v, want %+v", i, c.Fields, p.Changes[i].Fields)
		}
	}
	if err := back.AddTo(&dualwrite.Batch{}); !errors.Is(err, dualwrite.ErrNotPlanned) {
		t.Fatalf("AddTo of a decoded plan: %v, want ErrNotPlanned", err)
	}
}

// Fault: none (pure). A password config or a SCRAM credential that
// changes shows as changed, never with its value, in text or JSON.
func TestDiffHidesSecrets(t *testing.T) {
	current, desired := fullImage(), fullImage()
	current.Configs[brokerOne]["listener.name.internal.ssl.keystore.password"] = "old-secret"
	desired.Configs[brokerOne] = map[string]string{"log.retention.hours": "1",
		"listener.name.internal.ssl.keystore.password": "new-secret", "ssl.key.password": "added-secret"}
	desired.Scram["alice"] = map[string]znode.ScramCredential{znode.ScramSHA256: sha512, znode.ScramSHA512: sha512}
	p := dualwrite.Diff(current, desired)
	want := "write-configs brokers/1\n    listener.name.internal.ssl.keystore.password: changed (secret)\n" +
		"    ssl.key.password: (none) -> (secret)\n" +
		"write-client-quotas users/alice\n    SCRAM-SHA-256: changed (secret)\n    SCRAM-SHA-512: (none) -> (secret)\n"
	text := p.String()
	if !strings.HasPrefix(text, want) {
		t.Fatalf("plan:\n%s\nwant\n%s", text, want)
	}
	data, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	for _, secret := range []string{"old-secret", "new-secret", "added-secret", "salt", "stored", "server", "8192", "4096"} {
		if strings.Contains(text, secret) || strings.Contains(string(data), secret) {
			t.Fatalf("%q shows in the plan:\n%s\n%s", secret, text, data)
		}
	}
	for _, f := range p.Changes[0].Fields {
		if !f.Secret {
			t.Fatalf("field %s is not marked secret", f.Field)
		}
	}
	checkJSONRoundTrip(t, p)
}

// Fault: none (pure). A topic replaced under another id loses its config
// with it, and the write that recreates the config shows each key as it
// is before and after: old -> new where it changes, unchanged ones
// marked as rewritten, never as added from nothing; secrets stay hidden.
func TestDiffReplacedTopicConfigs(t *testing.T) {
	current, desired := fullImage(), fullImage()
	current.Configs[topicOrders]["ssl.key.password"] = "old-secret"
	editTopic("orders", func(t *dualwrite.Topic) { t.ID = znode.Uuid{MostSignificantBits: 1, LeastSignificantBits: 2} })(&desired)
	desired.Configs[topicOrders] = map[string]string{"retention.ms": "2000", "cleanup.policy": "compact", "ssl.key.password": "old-secret"}
	p := dualwrite.Diff(current, desired)
	var got []string
	for _, c := range p.Changes {
		if c.Kind == dualwrite.ChangeWriteConfigs {
			for _, f := range c.Fields {
				got = append(got, f.String())
			}
		}
	}
	want := []string{
		"cleanup.policy: compact (unchanged, rewritten with the recreated topic)",
		"retention.ms: 1000 -> 2000",
		"ssl.key.password: (secret) (unchanged, rewritten with the recreated topic)",
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("write-configs fields %q, want %q\n%s", got, want, p)
	}
	if strings.Contains(p.String(), "old-secret") || p.Counts()[dualwrite.ChangeReplaceTopic] != 1 {
		t.Fatalf("plan:\n%s", p)
	}
	checkJSONRoundTrip(t, p)

	// A key the desired config drops goes with the topic.
	desired.Configs[topicOrders] = map[string]string{"retention.ms": "1000"}
	p = dualwrite.Diff(current, desired)
	if s := p.String(); !strings.Contains(s, "write-configs topics/orders\n    retention.ms: 1000 (unchanged, rewritten with the recreated topic)\n    cleanup.policy: compact -> (none)\n") {
		t.Fatalf("plan:\n%s", s)
	}
}
