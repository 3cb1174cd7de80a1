package kraftmeta_test

import (
	"errors"
	"reflect"
	"slices"
	"testing"

	"github.com/kraftmigration/zkwriter/internal/kraftlog"
	"github.com/kraftmigration/zkwriter/migrationzk/dualwrite"
	"github.com/kraftmigration/zkwriter/migrationzk/kraftmeta"
	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

// TestAbortFollowedInItsBatch composes the case of Kafka's first
// one-commit defect in one batch: an AbortTransactionRecord followed by
// another record. Kafka 3.9's loader publishes the aborted records then;
// the replay never applies them.
func TestAbortFollowedInItsBatch(t *testing.T) {
	_, part := metadataDir(t)
	l := newLog(t)
	l.batch(v0(mvRec(21), topicRec("keep", uuid(1)), partitionRec(uuid(1), 0, 1))...)
	begin := l.batch(v0(beginRec("ZK Migration"), topicRec("temp", uuid(2)), partitionRec(uuid(2), 0, 1))...) - 2
	abort := l.batch(v0(&kraftlog.AbortTransactionRecord{Reason: str("Controller failover")}, topicRec("other", uuid(3)))...)
	l.write(part, 0)

	r := replay(t, part)
	if names := topicNames(r); !slices.Equal(names, []string{"keep", "other"}) {
		t.Errorf("topics %v, want [keep other]: the aborted transaction's topic must not apply", names)
	}
	r = replay(t, part, kraftmeta.AtOffset(begin+1))
	if r.OpenTransaction == nil || r.OpenTransaction.Name != "ZK Migration" || r.OpenTransaction.BeginOffset != begin || r.Offset != begin-1 {
		t.Errorf("inside the transaction: offset %d, open %+v; want the image at %d and the transaction from %d", r.Offset, r.OpenTransaction, begin-1, begin)
	}
	if names := topicNames(r); !slices.Equal(names, []string{"keep"}) {
		t.Errorf("inside the transaction: topics %v, want [keep]", names)
	}
	if r.After == nil || r.After.LastOffset != abort || r.After.FirstOffset != begin+2 {
		t.Errorf("after the target: %+v, want records %d to %d", r.After, begin+2, abort)
	}
}

// TestRemoveTopicInOneBatch composes Kafka's second one-commit defect in
// one batch: a topic created with a config and deleted, then created
// again under the same name. The config goes with the first topic.
func TestRemoveTopicInOneBatch(t *testing.T) {
	_, part := metadataDir(t)
	l := newLog(t)
	l.batch(v0(mvRec(21), topicRec("foo", uuid(1)), configRec(2, "foo", "retention.ms", str("1")),
		&kraftlog.RemoveTopicRecord{TopicID: uuid(1)}, topicRec("foo", uuid(2)))...)
	l.write(part, 0)
	r := replay(t, part)
	if r.Image.Topics["foo"].ID != uuid(2) {
		t.Errorf("topic foo: %+v, want the second one", r.Image.Topics["foo"])
	}
	if len(r.Image.Configs) != 0 {
		t.Errorf("configs %v: the deleted topic's config must go with it", r.Image.Configs)
	}
}

// TestScramRemoveAndAddInOneBatch composes Kafka's third one-commit
// defect: one batch removes a user's credential, emptying its mechanism,
// and adds another user's for the same mechanism. Both apply.
func TestScramRemoveAndAddInOneBatch(t *testing.T) {
	_, part := metadataDir(t)
	l := newLog(t)
	l.batch(v0(mvRec(21), scramRec("bob", 1))...)
	l.batch(v0(&kraftlog.RemoveUserScramCredentialRecord{Name: "bob", Mechanism: 1}, scramRec("alice", 1))...)
	l.write(part, 0)
	r := replay(t, part)
	if _, ok := r.Image.Scram["alice"][znode.ScramSHA256]; !ok || len(r.Image.Scram) != 1 {
		t.Errorf("SCRAM %v, want alice's SCRAM-SHA-256 only", r.Image.Scram)
	}
}

// TestTransactions checks the transaction markers: an open transaction
// at the end of the log leaves the image before it, reported; markers
// out of place are refused as Kafka's loader refuses them.
func TestTransactions(t *testing.T) {
	_, part := metadataDir(t)
	l := newLog(t)
	before := l.batch(v0(mvRec(21), migrationRec(2))...)
	begin := l.batch(v0(beginRec("ZK Migration"), topicRec("a", uuid(1)))...) - 1
	l.batch(v0(partitionRec(uuid(1), 0, 1), migrationRec(1))...)
	l.write(part, 0)
	r := replay(t, part)
	if r.OpenTransaction == nil || r.OpenTransaction.BeginOffset != begin || r.Offset != before || len(r.Image.Topics) != 0 || r.MigrationState != kraftmeta.PreMigration {
		t.Errorf("open at the end: offset %d, open %+v, topics %d, state %s; want the image at %d", r.Offset, r.OpenTransaction, len(r.Image.Topics), r.MigrationState, before)
	}
	for name, recs := range map[string][]rec{
		"end without begin":   v0(&kraftlog.EndTransactionRecord{}),
		"abort without begin": v0(&kraftlog.AbortTransactionRecord{}),
		"begin in begin":      v0(beginRec("a"), beginRec("b")),
	} {
		_, part := metadataDir(t)
		l := newLog(t)
		l.batch(recs...)
		l.write(part, 0)
		if _, err := kraftmeta.Replay(ctx(), part); !errors.Is(err, kraftmeta.ErrInconsistent) {
			t.Errorf("%s: %v, want ErrInconsistent", name, err)
		}
	}
}

// TestLoadBefore36IV1 composes a migration at 3.4-IV0, where the load is
// not a transaction: a controller that failed during it leaves the
// records it wrote, and they are in the image.
func TestLoadBefore36IV1(t *testing.T) {
	_, part := metadataDir(t)
	l := newLog(t)
	l.batch(v0(mvRec(8), migrationRec(2))...)
	l.batch(v0(topicRec("a", uuid(1)), partitionRec(uuid(1), 0, 1))...)
	l.leader(3001)
	l.write(part, 0)
	r := replay(t, part)
	if len(r.Image.Topics) != 1 || r.MigrationState != kraftmeta.PreMigration || r.MetadataVersion.String() != "3.4-IV0" || r.OpenTransaction != nil {
		t.Errorf("topics %v, state %s, %s: the partial load must be in the image", topicNames(r), r.MigrationState, r.MetadataVersion)
	}
}

// TestPartitionChanges checks PartitionRegistration.merge's rules on
// composed records: absent fields unchanged, a leader set to the same
// broker bumps the leader epoch, every change bumps the partition epoch,
// directories follow the replicas.
func TestPartitionChanges(t *testing.T) {
	_, part := metadataDir(t)
	l := newLog(t)
	dir := uuid(9)
	l.batch(rec{mvRec(21), 0}, rec{topicRec("t", uuid(1)), 0},
		rec{&kraftlog.PartitionRecord{TopicID: uuid(1), Replicas: []int32{1, 2}, Isr: []int32{1, 2}, Leader: 1, LeaderEpoch: 5, PartitionEpoch: 7, Directories: []znode.Uuid{dir, {}}}, 1})
	l.batch(rec{&kraftlog.PartitionChangeRecord{TopicID: uuid(1), Leader: 1, LeaderRecoveryState: -1}, 0})
	l.batch(rec{&kraftlog.PartitionChangeRecord{TopicID: uuid(1), Leader: kraftlog.NoLeaderChange, LeaderRecoveryState: -1, Isr: []int32{}}, 0})
	l.write(part, 0)
	r := replay(t, part)
	d, ok := r.Partition("t", 0)
	if !ok || d.State.Leader != 1 || d.State.LeaderEpoch != 6 || d.PartitionEpoch != 9 || len(d.State.ISR) != 0 || !slices.Equal(d.Replicas, []int32{1, 2}) {
		t.Errorf("partition %+v: want leader 1 epoch 6, partition epoch 9, ISR empty", d)
	}
	if !slices.Equal(d.Directories, []znode.Uuid{dir, {}}) || r.Unmirrored.Directories != 1 {
		t.Errorf("directories %v (%d unmirrored)", d.Directories, r.Unmirrored.Directories)
	}

	_, bad := metadataDir(t)
	l = newLog(t)
	l.batch(rec{topicRec("t", uuid(1)), 0}, rec{&kraftlog.PartitionRecord{TopicID: uuid(1), Replicas: []int32{1, 2}, Isr: []int32{1}, Leader: 1, Directories: []znode.Uuid{dir, dir}}, 1})
	l.batch(rec{&kraftlog.PartitionChangeRecord{TopicID: uuid(1), Leader: kraftlog.NoLeaderChange, LeaderRecoveryState: -1, Replicas: []int32{1}}, 0})
	l.write(bad, 0)
	if _, err := kraftmeta.Replay(ctx(), bad); !errors.Is(err, kraftmeta.ErrInconsistent) {
		t.Errorf("replicas changed, their directories not: %v, want ErrInconsistent", err)
	}
}

// TestMapping checks how KRaft's image maps to ZooKeeper's: only TOPIC
// and BROKER configs (the cluster default as ""), quota entities with
// default names, SCRAM by user, ACLs by resource, tokens, the producer-id
// block; and what is not mirrored.
func TestMapping(t *testing.T) {
	_, part := metadataDir(t)
	l := newLog(t)
	aclRec := func(id int64, rt, pt, op, perm int8) *kraftlog.AccessControlEntryRecord {
		return &kraftlog.AccessControlEntryRecord{ID: uuid(id), ResourceType: rt, ResourceName: "orders", PatternType: pt, Principal: "User:alice", Host: "*", Operation: op, PermissionType: perm}
	}
	entity := func(parts ...*string) []kraftlog.EntityData {
		var out []kraftlog.EntityData
		for i := 0; i < len(parts); i += 2 {
			out = append(out, kraftlog.EntityData{EntityType: *parts[i], EntityName: parts[i+1]})
		}
		return out
	}
	l.batch(v0(mvRec(21),
		configRec(2, "orders", "retention.ms", str("1")), configRec(4, "", "log.cleaner.threads", str("2")),
		configRec(16, "metrics", "interval.ms", str("10")), configRec(99, "x", "k", str("v")),
		&kraftlog.ClientQuotaRecord{Entity: entity(str("user"), nil), Key: "producer_byte_rate", Value: 1024},
		&kraftlog.ClientQuotaRecord{Entity: entity(str("user"), str("")), Key: "producer_byte_rate", Value: 1},
		&kraftlog.ClientQuotaRecord{Entity: entity(str("group"), str("g")), Key: "x", Value: 1},
		scramRec("alice", 2), scramRec("carol", 7),
		aclRec(1, 2, 3, 3, 3), aclRec(2, 2, 3, 3, 3), aclRec(3, 2, 2, 3, 3), aclRec(4, 2, 3, 1, 3),
		&kraftlog.DelegationTokenRecord{TokenID: "tok", Owner: "User:alice", Requester: "User:bob", Renewers: []string{"User:carol"}, IssueTimestamp: 1, MaxTimestamp: 3, ExpirationTimestamp: 2},
		&kraftlog.ProducerIdsRecord{BrokerID: 2, BrokerEpoch: 5, NextProducerID: 7000},
		&kraftlog.FeatureLevelRecord{Name: "group.version", FeatureLevel: 1},
		&kraftlog.RegisterControllerRecord{ControllerID: 3000}, noOp(),
	)...)
	l.write(part, 0)
	r := replay(t, part)
	img := r.Image
	checkMapped(t, r, img)
}

func checkMapped(t *testing.T, r *kraftmeta.Result, img dualwrite.Image) {
	t.Helper()
	if len(img.Configs) != 2 || img.Configs[dualwrite.ConfigResource{Type: dualwrite.BrokerConfig, Name: ""}]["log.cleaner.threads"] != "2" ||
		img.Configs[dualwrite.ConfigResource{Type: dualwrite.TopicConfig, Name: "orders"}]["retention.ms"] != "1" {
		t.Errorf("configs %v", img.Configs)
	}
	if len(r.Unmirrored.Configs) != 2 || r.Unmirrored.Configs[0].Type != 0 || r.Unmirrored.Configs[1].Type != 16 {
		t.Errorf("unmirrored configs %+v, want UNKNOWN x and CLIENT_METRICS metrics", r.Unmirrored.Configs)
	}
	if q := img.ClientQuotas[dualwrite.QuotaEntity{User: znode.DefaultEntityName}]; len(img.ClientQuotas) != 1 || q["producer_byte_rate"] != 1024 {
		t.Errorf("client quotas %v, want the default user's", img.ClientQuotas)
	}
	if len(r.Unmirrored.ClientQuotas) != 2 {
		t.Errorf("unmirrored quotas %+v, want the empty user name and the group", r.Unmirrored.ClientQuotas)
	}
	if _, ok := img.Scram["alice"][znode.ScramSHA512]; !ok || len(img.Scram) != 1 || len(r.Unmirrored.Scram) != 1 || r.Unmirrored.Scram[0].Mechanism != 0 {
		t.Errorf("SCRAM %v, unmirrored %v", img.Scram, r.Unmirrored.Scram)
	}
	topic := dualwrite.ResourcePattern{Type: znode.ResourceTopic, Name: "orders", PatternType: znode.PatternLiteral}
	want := []znode.ACLEntry{{Principal: "User:alice", PermissionType: znode.PermissionAllow, Operation: znode.OperationRead, Host: "*"}}
	if !slices.Equal(img.ACLs[topic], want) || len(img.ACLs) != 1 || len(r.ACLs) != 4 || len(r.Unmirrored.ACLs) != 2 {
		t.Errorf("ACLs %v (%d by id, %d unmirrored), want one entry for two ids", img.ACLs, len(r.ACLs), len(r.Unmirrored.ACLs))
	}
	if tok := img.DelegationTokens["tok"]; tok.TokenRequester != "User:bob" || tok.ExpiryTimestamp != 2 || !slices.Equal(tok.Renewers, []string{"User:carol"}) {
		t.Errorf("token %+v", tok)
	}
	if b := img.ProducerIDBlock; b == nil || *b != znode.MigrationProducerIDBlock(7000) {
		t.Errorf("producer id block %+v, want [7000, 7999] for broker -1", b)
	}
	if r.Unmirrored.Features["group.version"] != 1 || r.Skipped["RegisterControllerRecord"] != 1 || r.Skipped["NoOpRecord"] != 1 {
		t.Errorf("features %v, skipped %v", r.Unmirrored.Features, r.Skipped)
	}
}

// TestReplayRefusals checks records Kafka's replay refuses.
func TestReplayRefusals(t *testing.T) {
	tests := map[string][]rec{
		"partition of no topic":        v0(partitionRec(uuid(5), 0, 1)),
		"change of no partition":       v0(topicRec("t", uuid(1)), &kraftlog.PartitionChangeRecord{TopicID: uuid(1), PartitionID: 3, Leader: -2, LeaderRecoveryState: -1}),
		"remove of no topic":           v0(&kraftlog.RemoveTopicRecord{TopicID: uuid(4)}),
		"remove of no ACL":             v0(&kraftlog.RemoveAccessControlEntryRecord{ID: uuid(4)}),
		"unknown metadata.version":     v0(mvRec(24)),
		"unknown migration state":      v0(migrationRec(5)),
		"token principal without type": v0(&kraftlog.DelegationTokenRecord{TokenID: "t", Owner: "alice", Requester: "User:a"}),
		"topic name taken":             v0(topicRec("t", uuid(1)), topicRec("t", uuid(2))),
		"leader recovery state 2":      v0(topicRec("t", uuid(1)), &kraftlog.PartitionRecord{TopicID: uuid(1), Replicas: []int32{1}, LeaderRecoveryState: 2}),
	}
	for name, recs := range tests {
		_, part := metadataDir(t)
		l := newLog(t)
		last := l.batch(recs...)
		l.write(part, 0)
		_, err := kraftmeta.Replay(ctx(), part)
		var fe *kraftmeta.FileError
		if !errors.Is(err, kraftmeta.ErrInconsistent) || !errors.As(err, &fe) || fe.Offset != last {
			t.Errorf("%s: %v, want ErrInconsistent at offset %d", name, err, last)
		}
	}
}

func topicNames(r *kraftmeta.Result) []string {
	var names []string
	for n := range r.Image.Topics {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// TestAbortRestoresConfigs aborts a transaction that sets a new config
// key, changes one and deletes one: the configs are as before it began,
// keys and values. A later transaction's changes, committed, stay.
func TestAbortRestoresConfigs(t *testing.T) {
	_, part := metadataDir(t)
	l := newLog(t)
	l.batch(v0(mvRec(21), topicRec("t", uuid(1)), configRec(2, "t", "retention.ms", str("1")), configRec(2, "t", "cleanup.policy", str("compact")))...)
	l.batch(v0(beginRec(""), configRec(2, "t", "retention.ms", str("2")), configRec(2, "t", "cleanup.policy", nil),
		configRec(2, "t", "segment.ms", str("3")), configRec(4, "", "log.retention.ms", str("4")))...)
	l.batch(v0(&kraftlog.AbortTransactionRecord{})...)
	l.batch(v0(beginRec(""), configRec(2, "t", "segment.ms", str("5")), &kraftlog.EndTransactionRecord{})...)
	l.write(part, 0)
	r := replay(t, part)
	want := map[dualwrite.ConfigResource]map[string]string{
		{Type: dualwrite.TopicConfig, Name: "t"}: {"retention.ms": "1", "cleanup.policy": "compact", "segment.ms": "5"},
	}
	if !reflect.DeepEqual(r.Image.Configs, want) {
		t.Errorf("configs %v, want %v", r.Image.Configs, want)
	}
}
