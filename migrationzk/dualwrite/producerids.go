package dualwrite

import (
	"context"
	"fmt"
	"math"

	"github.com/kraftmigration/zkwriter/migrationzk"
	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

// WriteProducerID applies [Batch.WriteProducerID] alone.
func (c *Client) WriteProducerID(ctx context.Context, s migrationzk.State, nextProducerID int64) (migrationzk.State, error) {
	return c.apply(ctx, s, c.Batch().WriteProducerID(nextProducerID))
}

// WriteProducerID records the change that makes /latest_producer_id_block
// hold the block Kafka's migration writes for nextProducerID,
// [nextProducerID, nextProducerID + 999] claimed by broker -1, so that a
// ZooKeeper-mode broker allocates its next ids above every id KRaft gave
// out; an unchanged block writes nothing.
func (b *Batch) WriteProducerID(nextProducerID int64) *Batch {
	var err error
	if nextProducerID < 0 || nextProducerID > math.MaxInt64-(znode.ProducerIDBlockSize-1) {
		err = invalidf("next producer id %d: its block must end within the int64 range", nextProducerID)
	}
	return b.writeProducerIDBlock(znode.MigrationProducerIDBlock(nextProducerID), err)
}

// writeProducerIDBlock records the change that makes
// /latest_producer_id_block hold want.
func (b *Batch) writeProducerIDBlock(want znode.ProducerIDBlock, err error) *Batch {
	return b.add(func(v *view, _ migrationzk.State) bool {
		_, known := v.put(znode.ProducerIDBlockPath, want.Encode(), func(cur []byte) (bool, error) {
			if cur == nil {
				return false, nil // Kafka creates it with null data
			}
			got, err := znode.DecodeProducerIDBlock(cur)
			return err == nil && got == want, err
		})
		return known
	}, err)
}

// producerID reads /latest_producer_id_block; null data holds no block.
func (r *imageReader) producerID(ctx context.Context) error {
	zs, err := r.read(ctx, znode.ProducerIDBlockPath)
	if err != nil {
		return err
	}
	if !zs[0].Exists || zs[0].Data == nil {
		return nil
	}
	block, err := znode.DecodeProducerIDBlock(zs[0].Data)
	if err != nil {
		r.bad(zs[0].Path, err)
		return nil
	}
	r.img.ProducerIDBlock = &block
	return nil
}

// producerID plans the producer-id block when desired has one that
// ZooKeeper does not hold.
func (d *differ) producerID(current, desired *znode.ProducerIDBlock) {
	if desired == nil || current != nil && *current == *desired {
		return
	}
	want := *desired
	d.add(Change{Kind: ChangeWriteProducerID, Subject: fmt.Sprintf("[%d, %d]", want.BlockStart, want.BlockEnd),
		Fields: fieldChanges(nil, producerIDValues(current), producerIDValues(&want)),
		add:    func(b *Batch) { b.writeProducerIDBlock(want, nil) }}, znode.ProducerIDBlockPath)
}

// producerIDValues are the fields of a producer-id block; none for nil.
func producerIDValues(b *znode.ProducerIDBlock) []fieldValue {
	if b == nil {
		return nil
	}
	return []fieldValue{
		{name: "broker_id", value: int64Text(b.BrokerID)},
		{name: "block_start", value: int64Text(b.BlockStart)},
		{name: "block_end", value: int64Text(b.BlockEnd)},
	}
}
