package zktest_test

import (
	"context"
	"fmt"
	"log"
	"testing"
	"time"

	"github.com/kraftmigration/zkwriter/migrationzk/zktest"
)

// A test cuts the leader from the other members, learns whom they
// elected, and heals the ensemble.
func ExampleEnsemble_Isolate() {
	testLeaderLoss := func(t *testing.T) {
		e := zktest.StartEnsemble(t, 3, zktest.WithTickTime(200*time.Millisecond))
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		old, err := e.WaitLeader(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if err := e.Isolate(old.ID); err != nil {
			t.Fatal(err)
		}
		// ... the code under test runs against the majority, or against old ...
		var rest []int
		for _, m := range e.Members {
			if m != old {
				rest = append(rest, m.ID)
			}
		}
		leader, err := e.WaitLeader(ctx, rest...)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("member %d leads in place of member %d", leader.ID, old.ID)
		e.Heal()
	}
	_ = testLeaderLoss
}

// A program puts member 3 in a minority of its own with Partition, reads
// each member's mode and last zxid, and heals.
func ExampleEnsemble_Partition() {
	e, err := zktest.NewEnsemble(3)
	if err != nil {
		log.Fatal(err) // no ZooKeeper here; the error says how to get one
	}
	defer e.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := e.Partition([]int{1, 2}, []int{3}); err != nil {
		log.Fatal(err)
	}
	if _, err := e.WaitLeader(ctx, 1, 2); err != nil {
		log.Fatal(err)
	}
	for _, m := range e.Members {
		st, err := m.Status(ctx)
		fmt.Printf("member %d: mode %q, zxid %#x, %v\n", m.ID, st.Mode, st.Zxid, err)
	}
	e.Heal()
	if _, err := e.WaitLeader(ctx); err != nil {
		log.Fatal(err)
	}
}
