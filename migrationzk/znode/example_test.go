package znode_test

import (
	"errors"
	"fmt"

	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

func ExampleDecodeMigration() {
	data := []byte(`{"version":0,"kraft_metadata_offset":1234,"kraft_controller_id":3000,"kraft_metadata_epoch":7,"kraft_controller_epoch":5}`)
	m, err := znode.DecodeMigration(data)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%+v\n", m)

	_, err = znode.DecodeMigration([]byte(`{"version":1}`))
	fmt.Println(errors.Is(err, znode.ErrUnknownVersion))
	var de *znode.DecodeError
	if errors.As(err, &de) {
		fmt.Println(de.Path, de.Field)
	}

	_, err = znode.DecodeMigration(nil)
	fmt.Println(err)
	// Output:
	// {KRaftMetadataOffset:1234 KRaftControllerID:3000 KRaftMetadataEpoch:7 KRaftControllerEpoch:5}
	// true
	// /migration version
	// decode /migration: null data (data: null)
}

func ExampleMigration_Encode() {
	fmt.Printf("%s\n", znode.InitialMigration().Encode())
	m := znode.Migration{KRaftMetadataOffset: 1234, KRaftControllerID: 3000, KRaftMetadataEpoch: 7, KRaftControllerEpoch: 5}
	fmt.Printf("%s\n", m.Encode())
	// Output:
	// {"version":0,"kraft_metadata_offset":-1,"kraft_controller_id":-1,"kraft_metadata_epoch":-1,"kraft_controller_epoch":-1}
	// {"version":0,"kraft_metadata_offset":1234,"kraft_controller_id":3000,"kraft_metadata_epoch":7,"kraft_controller_epoch":5}
}

func ExamplePartitionState_Encode() {
	p := znode.PartitionState{ControllerEpoch: 2, Leader: 1, LeaderEpoch: 0, ISR: []int32{1, 2, 3}}
	fmt.Printf("%s\n", p.Encode())
	p.LeaderRecoveryState = 1
	fmt.Printf("%s\n", p.Encode())
	// Output:
	// {"controller_epoch":2,"leader":1,"version":1,"leader_epoch":0,"isr":[1,2,3]}
	// {"controller_epoch":2,"leader":1,"version":1,"leader_recovery_state":1,"leader_epoch":0,"isr":[1,2,3]}
}

func ExampleController_Encode() {
	c := znode.Controller{Version: 2, BrokerID: 3000, Timestamp: 1729500000000, KRaftControllerEpoch: 5}
	fmt.Printf("%s %v\n", c.Encode(), c.IsKRaft())
	legacy := znode.Controller{Version: 1, BrokerID: 1, Timestamp: 1729500000000, KRaftControllerEpoch: -1}
	fmt.Printf("%s %v\n", legacy.Encode(), legacy.IsKRaft())
	// Output:
	// {"version":2,"brokerid":3000,"timestamp":"1729500000000","kraftControllerEpoch":5} true
	// {"version":1,"brokerid":1,"timestamp":"1729500000000"} false
}

func ExamplePartitionStatePath() {
	fmt.Println(znode.PartitionStatePath("orders", 3))
	// Output:
	// /brokers/topics/orders/partitions/3/state
}
