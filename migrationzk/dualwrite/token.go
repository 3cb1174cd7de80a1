package dualwrite

import (
	"context"
	"math"

	"github.com/kraftmigration/zkwriter/migrationzk"
	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

// WriteDelegationToken makes the znode of token hold it (creating its
// parents when missing); an unchanged token writes nothing. Kafka's
// migration sends ZooKeeper-mode brokers no notification of tokens, and
// neither does this.
func (c *Client) WriteDelegationToken(ctx context.Context, s migrationzk.State, token znode.DelegationToken) (migrationzk.State, error) {
	return c.apply(ctx, s, c.Batch().WriteDelegationToken(token))
}

// DeleteDelegationToken deletes the znode of the token with id; one that
// is gone is no error.
func (c *Client) DeleteDelegationToken(ctx context.Context, s migrationzk.State, id string) (migrationzk.State, error) {
	return c.apply(ctx, s, c.Batch().DeleteDelegationToken(id))
}

// WriteProducerID makes /latest_producer_id_block hold the block Kafka's
// migration writes for nextProducerID, [nextProducerID, nextProducerID +
// 999] claimed by broker -1, so that a ZooKeeper-mode broker allocates its
// next ids above every id KRaft gave out; an unchanged block writes
// nothing.
func (c *Client) WriteProducerID(ctx context.Context, s migrationzk.State, nextProducerID int64) (migrationzk.State, error) {
	return c.apply(ctx, s, c.Batch().WriteProducerID(nextProducerID))
}

// WriteDelegationToken records WriteDelegationToken's change.
func (b *Batch) WriteDelegationToken(token znode.DelegationToken) *Batch {
	err := checkToken(token)
	return b.add(func(v *view, _ migrationzk.State) bool {
		_, known := v.put(znode.DelegationTokenPath(token.TokenID), token.Encode(), func(cur []byte) (bool, error) {
			got, err := znode.DecodeDelegationToken(cur)
			return err == nil && got.Equal(token), err
		})
		return known
	}, err)
}

// DeleteDelegationToken records DeleteDelegationToken's change.
func (b *Batch) DeleteDelegationToken(id string) *Batch {
	return b.add(func(v *view, _ migrationzk.State) bool {
		return v.remove(znode.DelegationTokenPath(id))
	}, checkName("delegation token", id))
}

// WriteProducerID records WriteProducerID's change.
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
