package checker_test

import (
	"fmt"

	"github.com/kraftmigration/zkwriter/checker"
	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

func ExampleLeaderAndIsr() {
	intended := znode.PartitionState{ControllerEpoch: 7, Leader: 2, LeaderEpoch: 5, ISR: []int32{2, 3}}.Encode()
	// The same state with another key order: the write landed.
	fmt.Println(checker.LeaderAndIsr{}.Landed(intended, []byte(`{"isr":[2,3],"leader_epoch":5,"version":1,"leader":2,"controller_epoch":7}`)))
	// Another leader epoch: someone else's write.
	fmt.Println(checker.LeaderAndIsr{}.Landed(intended, []byte(`{"controller_epoch":7,"leader":2,"version":1,"leader_epoch":6,"isr":[2,3]}`)))
	// Output:
	// true <nil>
	// false <nil>
}

func ExampleControllerEpoch() {
	fmt.Println(checker.ControllerEpoch{}.Landed([]byte("43"), []byte("043")))
	fmt.Println(checker.ControllerEpoch{}.Landed([]byte("43"), []byte("44")))
	// Output:
	// true <nil>
	// false <nil>
}

func ExampleBytes() {
	fmt.Println(checker.Bytes{}.Landed(nil, []byte{}))
	fmt.Println(checker.Bytes{}.Landed([]byte("a"), []byte("a")))
	// Output:
	// false <nil>
	// true <nil>
}
