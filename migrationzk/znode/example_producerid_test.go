package znode_test

import (
	"fmt"

	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

func ExampleMigrationProducerIDBlock() {
	b := znode.MigrationProducerIDBlock(6000)
	fmt.Println(znode.ProducerIDBlockPath)
	fmt.Printf("%s\n", b.Encode())
	// Read back, the block says the next id is 7000.
	fmt.Println(b.NextBlockFirstID())
	// Output:
	// /latest_producer_id_block
	// {"version":1,"broker":-1,"block_start":"6000","block_end":"6999"}
	// 7000
}

func ExampleDecodeProducerIDBlock() {
	b, err := znode.DecodeProducerIDBlock([]byte(`{"version":1,"broker":2,"block_start":"0","block_end":"999"}`))
	fmt.Printf("%+v %d %v\n", b, b.NextBlockFirstID(), err)
	_, err = znode.DecodeProducerIDBlock([]byte(`{"version":1,"broker":2,"block_start":"1000","block_end":"999"}`))
	fmt.Println(err)
	// Output:
	// {BrokerID:2 BlockStart:0 BlockEnd:999} 1000 <nil>
	// decode /latest_producer_id_block: field "block_end": number out of range: block 1000 to 999 does not hold 1 to 2147483647 ids (data: "{\"version\":1,\"broker\":2,\"block_start\":\"1000\",\"block_end\":\"999\"}")
}
