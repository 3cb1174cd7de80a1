//go:build unix

package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/kraftmigration/zkwriter/internal/kraftlog"
	"github.com/kraftmigration/zkwriter/migrationzk/kraftmeta"
	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

// metadataDir is the directory of the sandbox directory that holds the
// KRaft controller's metadata: a Kafka log directory, with meta.properties
// and the metadata log, which ZooKeeper's tree mirrors.
const metadataDir = "kraft"

// clusterID is the cluster's id, in /cluster/id and meta.properties.
const clusterID = "q1Sh-9_ISia_zwGINzRvyQ"

// segmentName is the metadata log's one segment.
const segmentName = "00000000000000000000.log"

// The codes of Kafka's enums the sandbox's records use.
const (
	resourceTopic  = 2 // ResourceType TOPIC
	resourceBroker = 4 // ConfigResource.Type BROKER
	patternLiteral = 3 // PatternType LITERAL
	operationRead  = 3 // AclOperation READ
	operationWrite = 4 // AclOperation WRITE
	permissionAllw = 3 // AclPermissionType ALLOW
	migrationPre   = 2 // ZkMigrationState PRE_MIGRATION
	migrationOn    = 1 // ZkMigrationState MIGRATION
	metadataLevel  = 21
)

// voters are the sandbox's KRaft controllers.
var voters = []int32{kraftControllerID, deltaControllerID, deltaControllerID + 1}

// seededTopics are the ids and assignments of the topics seed writes,
// the same in ZooKeeper and in KRaft's log.
type seededTopics struct {
	payments, orders znode.Uuid
	paymentsParts    map[int32]znode.ReplicaAssignment
	ordersParts      map[int32][]int32
	aliceACL         znode.Uuid
}

// newSeededTopics draws the topics' ids.
func newSeededTopics() seededTopics {
	t := seededTopics{payments: znode.NewUuid(), orders: znode.NewUuid(), aliceACL: znode.NewUuid(),
		paymentsParts: map[int32]znode.ReplicaAssignment{0: {Replicas: []int32{1, 2, 3}}, 1: {Replicas: []int32{2, 3, 1}}},
		ordersParts:   map[int32][]int32{}}
	for p := int32(0); p < 3; p++ {
		t.ordersParts[p] = []int32{p%3 + 1, (p+1)%3 + 1, (p+2)%3 + 1}
	}
	return t
}

// writeMetadata writes, under dir, the KRaft metadata seed mirrors into
// ZooKeeper: meta.properties and a log holding KRaft controller 3000's
// election in epoch kraftEpoch, metadata.version 3.9-IV0, the migration
// of topic payments from ZooKeeper, then the delta the controller mirrored
// since: topic orders, a leader of payments moved, the configs, a client
// quota and an ACL. It returns the offset of the log's last record, what
// /migration records.
func writeMetadata(dir string, t seededTopics) (int64, error) {
	s := &kraftlog.SegmentWriter{Timestamp: time.Now().UnixMilli()}
	s.LeaderChange(kraftEpoch, kraftControllerID, voters, voters[:2])
	migration := "ZK Migration"
	batches := [][]kraftlog.Message{
		{&kraftlog.FeatureLevelRecord{Name: "metadata.version", FeatureLevel: metadataLevel}, &kraftlog.ZkMigrationStateRecord{ZkMigrationState: migrationPre}},
		append(append([]kraftlog.Message{&kraftlog.BeginTransactionRecord{Name: &migration}, &kraftlog.TopicRecord{Name: "payments", TopicID: t.payments}},
			t.paymentsRecords()...), &kraftlog.ZkMigrationStateRecord{ZkMigrationState: migrationOn}, &kraftlog.EndTransactionRecord{}),
		t.dualWriteRecords(),
	}
	for _, b := range batches {
		if err := s.Batch(b...); err != nil {
			return 0, err
		}
	}
	part := filepath.Join(dir, kraftmeta.MetadataPartitionDir)
	if err := os.MkdirAll(part, 0o755); err != nil {
		return 0, err
	}
	props := fmt.Sprintf("#\n#%s\nnode.id=%d\nversion=1\ncluster.id=%s\n", time.Now().UTC().Format(time.UnixDate), kraftControllerID, clusterID)
	if err := os.WriteFile(filepath.Join(dir, "meta.properties"), []byte(props), 0o644); err != nil {
		return 0, err
	}
	return s.Next - 1, os.WriteFile(filepath.Join(part, segmentName), s.Bytes, 0o644)
}

// paymentsRecords are payments's partitions as the migration copied them
// from ZooKeeper: led by their first replica, in leader epoch 3.
func (t seededTopics) paymentsRecords() []kraftlog.Message {
	var out []kraftlog.Message
	for p := int32(0); p < int32(len(t.paymentsParts)); p++ {
		r := t.paymentsParts[p].Replicas
		out = append(out, &kraftlog.PartitionRecord{PartitionID: p, TopicID: t.payments, Replicas: r, Isr: r, Leader: r[0], LeaderEpoch: 3})
	}
	return out
}

// dualWriteRecords are the records of the delta seedDualWrite mirrors.
func (t seededTopics) dualWriteRecords() []kraftlog.Message {
	out := []kraftlog.Message{&kraftlog.TopicRecord{Name: "orders", TopicID: t.orders}}
	for p := int32(0); p < int32(len(t.ordersParts)); p++ {
		r := t.ordersParts[p]
		out = append(out, &kraftlog.PartitionRecord{PartitionID: p, TopicID: t.orders, Replicas: r, Isr: r, Leader: r[0]})
	}
	alice := "alice"
	return append(out,
		&kraftlog.PartitionChangeRecord{PartitionID: 0, TopicID: t.payments, Leader: 2, Isr: []int32{2, 3}, LeaderRecoveryState: -1},
		config(resourceTopic, "orders", "retention.ms", "86400000"),
		config(resourceTopic, "orders", "cleanup.policy", "delete"),
		config(resourceBroker, "1", "log.retention.hours", "168"),
		&kraftlog.ClientQuotaRecord{Entity: []kraftlog.EntityData{{EntityType: "user", EntityName: &alice}}, Key: "producer_byte_rate", Value: 1048576},
		acl(t.aliceACL, "User:alice", operationRead))
}

func config(typ int8, name, key, value string) *kraftlog.ConfigRecord {
	return &kraftlog.ConfigRecord{ResourceType: typ, ResourceName: name, Name: key, Value: &value}
}

func acl(id znode.Uuid, principal string, operation int8) *kraftlog.AccessControlEntryRecord {
	return &kraftlog.AccessControlEntryRecord{ID: id, ResourceType: resourceTopic, ResourceName: "orders", PatternType: patternLiteral,
		Principal: principal, Host: "*", Operation: operation, PermissionType: permissionAllw}
}

// appendDelta appends to the metadata log under dir what the delta of
// zksandbox delta changes, as KRaft controller id commits it once elected
// in epoch: orders-1 led by broker 3 with ISR [3 1], retention.ms of
// orders 3600000, User:bob allowed to write to orders. It returns the
// offset of the log's last record.
func appendDelta(ctx context.Context, dir string, orders znode.Uuid, id, epoch int32) (int64, error) {
	d, err := kraftmeta.Inspect(ctx, dir)
	if err != nil {
		return 0, fmt.Errorf("the sandbox's KRaft metadata: %w", err)
	}
	s := &kraftlog.SegmentWriter{Next: d.LogEndOffset, Timestamp: time.Now().UnixMilli()}
	s.LeaderChange(epoch, id, voters, voters[:2])
	if err := s.Batch(&kraftlog.PartitionChangeRecord{PartitionID: 1, TopicID: orders, Leader: 3, Isr: []int32{3, 1}, LeaderRecoveryState: -1},
		config(resourceTopic, "orders", "retention.ms", "3600000"),
		acl(znode.NewUuid(), "User:bob", operationWrite)); err != nil {
		return 0, err
	}
	f, err := os.OpenFile(filepath.Join(dir, kraftmeta.MetadataPartitionDir, segmentName), os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return 0, err
	}
	if _, err := f.Write(s.Bytes); err != nil {
		f.Close()
		return 0, err
	}
	return s.Next - 1, f.Close()
}
