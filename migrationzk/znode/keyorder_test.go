package znode

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/kraftmigration/zkwriter/internal/scalaorder"
)

// objectKeys returns the keys of the JSON object data in the order they
// are written, and the raw value of each.
func objectKeys(t *testing.T, data []byte) ([]string, map[string]json.RawMessage) {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(data))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		t.Fatalf("%s: not an object: %v %v", data, tok, err)
	}
	var keys []string
	values := map[string]json.RawMessage{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			t.Fatalf("%s: %v", data, err)
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			t.Fatalf("%s: %v", data, err)
		}
		keys = append(keys, tok.(string))
		values[tok.(string)] = v
	}
	return keys, values
}

// The encoders write fixed key orders; each must be the order the Scala
// 2.13 collection Kafka uses iterates in, as internal/scalaorder computes
// it from the keys in Kafka's insertion order.
func TestEncodedKeyOrders(t *testing.T) {
	twelve := denseTopic(12)
	a := twelve.Partitions[3]
	a.AddingReplicas, a.RemovingReplicas = []int32{7}, []int32{1}
	twelve.Partitions[3] = a
	tests := []struct {
		name string
		enc  []byte
		want []string
	}{
		{"Migration", InitialMigration().Encode(), scalaorder.ImmutableHashMapOrder(strings.Fields("kraft_controller_id kraft_controller_epoch kraft_metadata_offset kraft_metadata_epoch version"))},
		{"PartitionState", PartitionState{ISR: []int32{1}}.Encode(), scalaorder.ImmutableHashMapOrder(strings.Fields("version leader leader_epoch controller_epoch isr"))},
		{"PartitionState recovering", PartitionState{ISR: []int32{1}, LeaderRecoveryState: 1}.Encode(), scalaorder.ImmutableHashMapOrder(strings.Fields("version leader leader_epoch controller_epoch isr leader_recovery_state"))},
		{"DelegationToken", goldenTokenValue().Encode(), scalaorder.ImmutableHashMapOrder(strings.Fields("version owner tokenRequester renewers issueTimestamp maxTimestamp expiryTimestamp tokenId"))},
		{"Topic", twelve.Encode(), scalaorder.MutableHashMapOrderWithCapacity(6, strings.Fields("version partitions adding_replicas removing_replicas topic_id"))},
		{"Topic without id", Topic{}.Encode(), scalaorder.MutableHashMapOrderWithCapacity(6, strings.Fields("version partitions adding_replicas removing_replicas"))},
		// Map4: insertion order.
		{"ProducerIDBlock", goldenProducerIDBlockValue().Encode(), strings.Fields("version broker block_start block_end")},
	}
	for _, tt := range tests {
		if got, _ := objectKeys(t, tt.enc); !slices.Equal(got, tt.want) {
			t.Errorf("%s: keys %q, want %q", tt.name, got, tt.want)
		}
	}
	// The inner maps of a topic: decimal ids in mutable.HashMap order.
	_, values := objectKeys(t, twelve.Encode())
	for field, ids := range map[string]string{"partitions": ascending(12), "adding_replicas": "3", "removing_replicas": "3"} {
		got, _ := objectKeys(t, values[field])
		if want := scalaorder.MutableHashMapOrder(strings.Fields(ids)); !slices.Equal(got, want) {
			t.Errorf("Topic %s: keys %q, want %q", field, got, want)
		}
	}
}

// goldenProducerIDBlockValue is the content of goldenProducerIDBlock.
func goldenProducerIDBlockValue() ProducerIDBlock {
	return ProducerIDBlock{BrokerID: -1, BlockStart: 6000, BlockEnd: 6999}
}
