package znode_test

import (
	"errors"
	"fmt"

	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

func ExampleDecodeController() {
	c, err := znode.DecodeController([]byte(`{"version":2,"brokerid":3000,"timestamp":"1729500000000","kraftControllerEpoch":5}`))
	fmt.Println(c.BrokerID, c.KRaftControllerEpoch, c.IsKRaft(), err)
	c, err = znode.DecodeController([]byte(`{"version":1,"brokerid":1,"timestamp":"1729500000000"}`))
	fmt.Println(c.BrokerID, c.KRaftControllerEpoch, c.IsKRaft(), err)
	// Output:
	// 3000 5 true <nil>
	// 1 -1 false <nil>
}

func ExampleDecodeControllerEpoch() {
	fmt.Println(znode.DecodeControllerEpoch([]byte("43")))
	_, err := znode.DecodeControllerEpoch([]byte("43\n"))
	fmt.Println(errors.Is(err, znode.ErrWrongType))
	fmt.Printf("%s\n", znode.EncodeControllerEpoch(44))
	// Output:
	// 43 <nil>
	// true
	// 44
}

func ExampleDecodePartitionState() {
	p, err := znode.DecodePartitionState([]byte(`{"controller_epoch":7,"leader":1,"version":1,"leader_epoch":4,"isr":[1,2,3]}`))
	fmt.Printf("%+v %v\n", p, err)
	_, err = znode.DecodePartitionState([]byte(`{"controller_epoch":7,"leader":1,"version":1,"leader_epoch":4}`))
	fmt.Println(err)
	// Output:
	// {ControllerEpoch:7 Leader:1 LeaderEpoch:4 ISR:[1 2 3] LeaderRecoveryState:0} <nil>
	// decode /brokers/topics/<topic>/partitions/<partition>/state: field "isr": missing field (data: "{\"controller_epoch\":7,\"leader\":1,\"version\":1,\"leader_epoch\":4}")
}
