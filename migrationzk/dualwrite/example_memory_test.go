package dualwrite_test

import (
	"context"
	"fmt"
	"log"

	"github.com/kraftmigration/zkwriter/migrationzk/dualwrite"
)

// A Client remembers what it read and wrote during its Writer's tenure,
// about 70 bytes per partition: bound it, or make it remember nothing.
func ExampleWithRememberedPartitions() {
	ctx := context.Background()
	conn := connectExample(ctx)
	defer conn.Close()
	w := newWriter(conn)
	bounded, err := dualwrite.New(w, dualwrite.WithRememberedPartitions(200000))
	if err != nil {
		log.Fatal(err)
	}
	forgetful, err := dualwrite.New(w, dualwrite.WithRememberedPartitions(0)) // every change reads after a sync
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(bounded != nil, forgetful != nil)
}

// Forget drops what the Client remembers, say before handing the tree to
// another tool for a while: the next change reads what it touches.
func ExampleClient_Forget() {
	ctx := context.Background()
	conn := connectExample(ctx)
	defer conn.Close()
	c, s := exampleLeader(ctx, conn)
	c.Forget()
	s.KRaftMetadataOffset = 1240
	if _, err := c.UpdatePartitions(ctx, s, "orders", map[int32]dualwrite.PartitionState{0: {Leader: 2, LeaderEpoch: 8, ISR: []int32{2, 3, 1}}}); err != nil {
		log.Fatal(err)
	}
}

// WithTrace shows what each call sends: its sync, its waves of reads and
// its transactions, with whether the plan came from what was remembered.
func ExampleWithTrace() {
	ctx := context.Background()
	conn := connectExample(ctx)
	defer conn.Close()
	_, s := exampleLeader(ctx, conn)
	c, err := dualwrite.New(newWriter(conn), dualwrite.WithTrace(func(e dualwrite.TraceEvent) {
		switch e.Kind {
		case dualwrite.TraceReadWave:
			log.Printf("read %d znodes, listed %d", e.Reads, e.Listings)
		case dualwrite.TraceTransaction:
			log.Printf("sent %d ops (from memory: %v): %v", len(e.Ops), e.Remembered, e.Err)
		}
	}))
	if err != nil {
		log.Fatal(err)
	}
	s.KRaftMetadataOffset = 1241
	if _, err := c.UpdatePartitions(ctx, s, "orders", map[int32]dualwrite.PartitionState{0: {Leader: 3, LeaderEpoch: 9, ISR: []int32{3, 1, 2}}}); err != nil {
		log.Fatal(err)
	}
}
