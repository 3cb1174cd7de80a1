package dualwrite_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/kraftmigration/zkwriter/migrationzk/dualwrite"
	"github.com/kraftmigration/zkwriter/migrationzk/zktest"
	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

// dropPartition removes a partition's state and znode through the test's
// session, as an operator or a crash of Kafka's createTopic leaves it.
func (c *cluster) dropPartition(topic string, id int32) {
	c.t.Helper()
	for _, p := range []string{znode.PartitionStatePath(topic, id), znode.PartitionPath(topic, id)} {
		if err := c.admin.Delete(c.p(p), -1); err != nil {
			c.t.Fatal(err)
		}
	}
}

// Fault: a partition of the image missing in ZooKeeper (its znode and
// state deleted by another writer). Kafka's full sync sets its state with
// SetData: NoNode, and the partition stays missing. Sync creates it.
func TestSyncDefectMissingPartition(t *testing.T) {
	k := newCluster(t)
	s, _ := k.sync(at(k.s, 200), fullImage())
	k.dropPartition("orders", 1)
	want := fullImage().Topics["orders"].Partitions[1].State
	if err := k.kafkaShapedClient(at(s, 300)).kafkaShapedUpdatePartitions("orders", map[int32]dualwrite.PartitionState{1: want}); !errors.Is(err, zk.ErrNoNode) {
		t.Fatalf("Kafka-shaped: %v; the defect is NoNode", err)
	}

	c := newCluster(t)
	s, _ = c.sync(at(c.s, 200), fullImage())
	c.dropPartition("orders", 1)
	if _, rep := c.sync(at(s, 300), fullImage()); !slices.Equal(planLines(rep.Plan), []string{"update-partitions orders partitions [1]"}) {
		t.Fatalf("plan:\n%s", rep.Plan)
	}
	c.converged(fullImage())
}

// Fault: none. The image drops a partition whose state ZooKeeper holds.
// Kafka's full sync deletes the partition znode with its state below it:
// NotEmpty, and the partition stays. Sync deletes the state first.
func TestSyncDefectDeletePartitionWithState(t *testing.T) {
	desired := fullImage()
	editTopic("orders", func(t *dualwrite.Topic) { delete(t.Partitions, 1) })(&desired)
	k := newCluster(t)
	s, _ := k.sync(at(k.s, 200), fullImage())
	if err := k.kafkaShapedClient(at(s, 300)).kafkaShapedDeletePartitions("orders", []int32{1}); !errors.Is(err, zk.ErrNotEmpty) {
		t.Fatalf("Kafka-shaped: %v; the defect is NotEmpty", err)
	}

	c := newCluster(t)
	s, _ = c.sync(at(c.s, 200), fullImage())
	c.sync(at(s, 300), desired)
	if got := c.children(znode.TopicPartitionsPath("orders")); len(got) != 1 || got[0] != "0" {
		t.Fatalf("partitions left: %v", got)
	}
	c.converged(desired)
}

// Fault: none. Two full syncs of the same image. Kafka's rewrites the
// producer-id block on each (its block never reads back as KRaft's next
// id). Sync writes it once, and the second Sync writes nothing.
func TestSyncDefectProducerIDRewritten(t *testing.T) {
	k := newCluster(t)
	kafka := k.kafkaShapedClient(at(k.s, 300))
	for i := 0; i < 2; i++ {
		if err := kafka.kafkaShapedSyncProducerID(producerNext.BlockStart); err != nil {
			t.Fatal(err)
		}
	}
	if v := k.version(znode.ProducerIDBlockPath); v != 2 {
		t.Fatalf("Kafka-shaped: block at version %d after two syncs; the defect is 2", v)
	}

	c := newCluster(t)
	s, _ := c.sync(at(c.s, 300), fullImage())
	c.faults.ResetCounts()
	c.sync(s, fullImage())
	if v := c.version(znode.ProducerIDBlockPath); v != 1 || c.writeRequests() != 0 {
		t.Fatalf("block at version %d after two Syncs, the second sending %d writes; want 1 and 0", v, c.writeRequests())
	}
}

// Fault: the controller stops (its context ends, as in a crash) while a
// full sync of two new topics writes the second. Kafka's requests are
// independent, each call's last one moving /migration: it then holds the
// new offset though the second topic is missing, so a controller resuming
// from it would skip the rest. Sync's transaction lands whole or not at
// all; /migration keeps the old checkpoint and the next Sync finishes.
func TestSyncDefectIndependentRequests(t *testing.T) {
	desired := fullImage()
	desired.Topics["audit"] = topic("audit", 2)
	desired.Topics["billing"] = topic("billing", 2)
	k := newCluster(t)
	s, _ := k.sync(at(k.s, 200), fullImage())
	kafka := k.kafkaShapedClient(at(s, 300))
	if _, err := kafka.kafkaShapedCreateTopic(desired.Topics["audit"]); err != nil {
		t.Fatal(err)
	}
	// The controller stops here, before createTopic("billing").
	if m := k.migration(); m.KRaftMetadataOffset != 300 || k.version(znode.TopicPath("billing")) != -1 {
		t.Fatalf("Kafka-shaped: /migration at offset %d; the defect is 300 with billing missing", m.KRaftMetadataOffset)
	}

	c := newCluster(t)
	s, _ = c.sync(at(c.s, 200), fullImage())
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c.faults.Arm(zktest.Fault{Action: zktest.DropRequest, Op: zktest.OpCreate, Path: znode.TopicPath("billing"), Then: cancel})
	st, _, err := c.c.Sync(ctx, at(s, 300), desired)
	if err == nil {
		t.Fatal("the Sync succeeded through its context's end")
	}
	if m := c.migration(); m.KRaftMetadataOffset != 200 || c.version(znode.TopicPath("audit")) != -1 {
		t.Fatalf("/migration at offset %d, audit at version %d: a part landed", m.KRaftMetadataOffset, c.version(znode.TopicPath("audit")))
	}
	c.sync(at(st, 300), desired)
	c.converged(desired)
}
