package dualwrite_test

import (
	"errors"
	"fmt"
	"log"
	"os"
	"strings"

	"github.com/kraftmigration/zkwriter/migrationzk/dualwrite"
	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

// WriteJSON writes an Image as one JSON object, schema_version first, one
// element a line, sorted so that the same Image always gives the same
// bytes.
func ExampleImage_WriteJSON() {
	img := dualwrite.NewImage()
	img.Topics["orders"] = dualwrite.Topic{Name: "orders", ID: znode.Uuid{MostSignificantBits: 0x0123456789abcdef, LeastSignificantBits: 0x0fedcba987654321},
		Partitions: map[int32]dualwrite.Partition{0: {Replicas: []int32{1, 2}, State: dualwrite.PartitionState{Leader: 1, LeaderEpoch: 3, ISR: []int32{1, 2}}}}}
	img.Configs[dualwrite.ConfigResource{Type: dualwrite.TopicConfig, Name: "orders"}] = map[string]string{"retention.ms": "86400000"}
	block := znode.MigrationProducerIDBlock(6000)
	img.ProducerIDBlock = &block
	if err := img.WriteJSON(os.Stdout); err != nil {
		log.Fatal(err)
	}
	// Output:
	// {
	//   "schema_version": 3,
	//   "redacted": false,
	//   "passwords": null,
	//   "topics": [
	//     {"name":"orders","id":"ASNFZ4mrze8P7cuph2VDIQ","partitions":[{"id":0,"replicas":[1,2],"state":{"leader":1,"leader_epoch":3,"isr":[1,2],"leader_recovery_state":0}}]}
	//   ],
	//   "configs": [
	//     {"type":"topic","name":"orders","configs":{"retention.ms":"86400000"}}
	//   ],
	//   "client_quotas": [],
	//   "scram": [],
	//   "acls": [],
	//   "delegation_tokens": [],
	//   "producer_id_block": {"broker_id":-1,"block_start":6000,"block_end":6999},
	//   "undecodable": []
	// }
}

// ReadImageJSON reads back what WriteJSON wrote; Diff then compares it
// with another Image, such as what Client.Read finds in ZooKeeper now.
func ExampleReadImageJSON() {
	export := `{"schema_version":1,"topics":[{"name":"orders","partitions":[{"id":0,"replicas":[1,2],"state":{"leader":1,"leader_epoch":3,"isr":[1,2],"leader_recovery_state":0}}]}]}`
	img, err := dualwrite.ReadImageJSON(strings.NewReader(export))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(len(img.Topics["orders"].Partitions), "partition, leader", img.Topics["orders"].Partitions[0].State.Leader)

	now := dualwrite.NewImage()
	fmt.Print(dualwrite.Diff(img, now))
	// Output:
	// 1 partition, leader 1
	// delete-topic orders
	//     partition 0 replicas: [1,2] -> (none)
	// 1 change (delete-topic 1), 0 znodes skipped
}

// An export of a schema version this package does not read is refused
// with a *SchemaVersionError.
func ExampleSchemaVersionError() {
	_, err := dualwrite.ReadImageJSON(strings.NewReader(`{"schema_version":4,"topics":[]}`))
	var sv *dualwrite.SchemaVersionError
	if errors.As(err, &sv) {
		fmt.Println("found version", sv.Found)
	}
	fmt.Println(err)
	fmt.Println("this writes version", dualwrite.ImageSchemaVersion)
	// Output:
	// found version 4
	// dualwrite: image JSON: schema_version 4, this reads versions 1 to 3
	// this writes version 3
}

// Input that is not an image JSON, such as a truncated export, is an
// *ImageJSONError saying where reading stopped.
func ExampleImageJSONError() {
	_, err := dualwrite.ReadImageJSON(strings.NewReader(`{"schema_version":1,"topics":[{"name":"orders"`))
	var ie *dualwrite.ImageJSONError
	if errors.As(err, &ie) {
		fmt.Println("stopped at byte", ie.Offset, "in", ie.Where)
	}
	fmt.Println(err)
	// Output:
	// stopped at byte 30 in topics[0]
	// dualwrite: image JSON at byte 30 topics[0]: unexpected EOF
}

// A partition ZooKeeper holds no state for reads back without one.
func ExamplePartition_HasState() {
	export := `{"schema_version":1,"topics":[{"name":"orders","partitions":[{"id":0,"replicas":[1],"state":null},{"id":1,"replicas":[1],"state":{"leader":1,"leader_epoch":0,"isr":[1],"leader_recovery_state":0}}]}]}`
	img, err := dualwrite.ReadImageJSON(strings.NewReader(export))
	if err != nil {
		log.Fatal(err)
	}
	parts := img.Topics["orders"].Partitions
	fmt.Println(parts[0].HasState(), parts[1].HasState(), dualwrite.Partition{}.HasState())
	// Output: false true true
}
