package dualwrite_test

import (
	"math"
	"testing"

	"github.com/go-zookeeper/zk"

	"github.com/kraftmigration/zkwriter/migrationzk/dualwrite"
	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

// Fault: none. testReadMigrateAndWriteProducerId: writeProducerId(6000)
// gives version 1; the block reads back as [6000, 6999] for broker -1, so
// the next block a ZooKeeper-mode broker allocates starts at 7000.
func TestKafkaWriteProducerID(t *testing.T) {
	c := newCluster(t)
	s, err := c.c.WriteProducerID(testContext(t), at(c.s, 200), 6000)
	if err != nil {
		t.Fatal(err)
	}
	c.wantVersion(s, 1)
	data := c.wantData(znode.ProducerIDBlockPath, `{"version":1,"broker":-1,"block_start":"6000","block_end":"6999"}`)
	block, err := znode.DecodeProducerIDBlock(data)
	if err != nil || block.NextBlockFirstID() != 7000 {
		t.Fatalf("next block starts at %d (%v), want 7000", block.NextBlockFirstID(), err)
	}
}

// Fault: none. Kafka writes the producer-id block [next, next+999],
// whose next block starts at next+1000, never at KRaft's next id: every
// full sync rewrites it. dualwrite compares the block it would write.
func TestDefectProducerIDRewrittenEverySync(t *testing.T) {
	k := newCluster(t)
	kafka := k.kafkaShapedClient(at(k.s, 300))
	for sync := 0; sync < 2; sync++ {
		if err := kafka.kafkaShapedSyncProducerID(6000); err != nil {
			t.Fatal(err)
		}
	}
	if v := k.version(znode.ProducerIDBlockPath); v != 2 {
		t.Fatalf("Kafka-shaped: block at version %d after two syncs; the defect is 2", v)
	}

	c := newCluster(t)
	s := at(c.s, 300)
	for sync := 0; sync < 2; sync++ {
		var err error
		if s, err = c.c.WriteProducerID(testContext(t), s, 6000); err != nil {
			t.Fatal(err)
		}
	}
	if v := c.version(znode.ProducerIDBlockPath); v != 1 {
		t.Fatalf("dualwrite: block at version %d after two syncs, want 1", v)
	}
	c.wantVersion(s, 2)
}

// kafkaShapedSyncProducerID is handleSnapshot's producer id step and
// writeProducerId: rewrite the block unless the next id it gives equals
// KRaft's next producer id, with the block [next, next+999].
func (k *kafkaShaped) kafkaShapedSyncProducerID(next int64) error {
	data, _, err := k.conn.Get(k.c.p(znode.ProducerIDBlockPath))
	if err != nil {
		return err
	}
	if b, err := znode.DecodeProducerIDBlock(data); err == nil && b.NextBlockFirstID() == next {
		return nil
	}
	block := znode.MigrationProducerIDBlock(next).Encode()
	return k.kafkaShapedMulti(&zk.SetDataRequest{Path: k.c.p(znode.ProducerIDBlockPath), Data: block, Version: -1}, true)
}

// producerIDRows are the producer-id block's rows of the tables every
// domain fills.
func producerIDRows() domainRows {
	return domainRows{
		invalid: []invalid{
			{"negative producer id", func(b *dualwrite.Batch) *dualwrite.Batch { return b.WriteProducerID(-1) }},
			{"producer id block past the int64 range", func(b *dualwrite.Batch) *dualwrite.Batch { return b.WriteProducerID(math.MaxInt64 - 10) }},
		},
		undecodable: []undecodable{
			{"producer id block", znode.ProducerIDBlockPath, func(b *dualwrite.Batch) *dualwrite.Batch { return b.WriteProducerID(6000) }},
		},
		diff: []diffCase{
			{name: "producer id moved", desired: func(img *dualwrite.Image) {
				b := znode.MigrationProducerIDBlock(7000)
				img.ProducerIDBlock = &b
			}, want: []string{"write-producer-id [7000, 7999]"}},
			{name: "producer id new", current: func(img *dualwrite.Image) { img.ProducerIDBlock = nil }, want: []string{"write-producer-id [6000, 6999]"}},
			{name: "producer id none desired", desired: func(img *dualwrite.Image) { img.ProducerIDBlock = nil }},
		},
		values: []valuesCase{
			{name: "producer-id block",
				desired: func(img *dualwrite.Image) { b := znode.MigrationProducerIDBlock(7000); img.ProducerIDBlock = &b },
				want:    "write-producer-id [7000, 7999]\n    block_start: 6000 -> 7000\n    block_end: 6999 -> 7999\n"},
		},
	}
}
