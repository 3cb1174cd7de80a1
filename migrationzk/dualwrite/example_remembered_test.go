package dualwrite_test

import (
	"context"
	"log"

	"github.com/kraftmigration/zkwriter/migrationzk/dualwrite"
)

// Remembered tells how much a Client remembers, say for a gauge that
// sizes WithRememberedPartitions.
func ExampleClient_Remembered() {
	ctx := context.Background()
	conn := connectExample(ctx)
	defer conn.Close()
	c, s := exampleLeader(ctx, conn)
	s.KRaftMetadataOffset = 1242
	if _, err := c.UpdatePartitions(ctx, s, "orders", map[int32]dualwrite.PartitionState{0: {Leader: 1, LeaderEpoch: 10, ISR: []int32{1, 2, 3}}}); err != nil {
		log.Fatal(err)
	}
	partitions, znodes := c.Remembered()
	log.Printf("remembered: room for %d partitions, %d other znodes", partitions, znodes)
}
