package dualwrite_test

import (
	"testing"

	"github.com/kraftmigration/zkwriter/migrationzk/dualwrite"
	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

// Fault: none (pure). Holds names, by Kafka's paths written out, each
// znode an image holds decoded, and none it lacks, lists as undecodable,
// or that is of no kind an image holds.
func TestImageHolds(t *testing.T) {
	img := fullImage()
	img.Undecodable = []dualwrite.UndecodableZnode{{Path: "/config/topics/broken"}}
	orders := img.Topics["orders"]
	orders.Unassigned = map[int32]dualwrite.UnassignedPartition{7: {State: &dualwrite.PartitionState{Leader: 1, ISR: []int32{1}}}, 8: {}}
	img.Topics["orders"] = orders
	for path, want := range map[string]bool{
		"/brokers/topics/orders":                     true,
		"/brokers/topics/orders/partitions/1/state":  true,
		"/brokers/topics/orders/partitions/7/state":  true,
		"/brokers/topics/orders/partitions/8/state":  false,
		"/brokers/topics/orders/partitions/2/state":  false,
		"/brokers/topics/orders/partitions/1":        false,
		"/brokers/topics/orders/partitions/01/state": false,
		"/brokers/topics/nope":                       false,
		"/config/topics/orders":                      true,
		"/config/topics/payments":                    false,
		"/config/topics/broken":                      false,
		"/config/brokers/1":                          true,
		"/config/brokers/<default>":                  false,
		"/config/users/alice":                        true,
		"/config/clients/app":                        true,
		"/config/users/bob":                          false,
		"/kafka-acl/Topic/foo":                       true,
		"/kafka-acl-extended/prefixed/Topic/bar-":    true,
		"/kafka-acl/Topic/bar-":                      false,
		"/delegation_token/tokens/tok1":              true,
		"/delegation_token/tokens/tok2":              false,
		"/latest_producer_id_block":                  true,
		"/migration":                                 false,
	} {
		if got := img.Holds(path); got != want {
			t.Errorf("Holds(%s) = %v, want %v", path, got, want)
		}
	}
	img.ProducerIDBlock = nil
	img.Scram["carol"] = map[string]znode.ScramCredential{znode.ScramSHA256: credential}
	if img.Holds("/latest_producer_id_block") || !img.Holds("/config/users/carol") {
		t.Fatal("Holds of the producer-id block none holds, or of a user with SCRAM credentials only")
	}
}
