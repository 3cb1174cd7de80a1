package znode

import (
	"encoding/binary"
	"errors"
	"reflect"
	"strings"
	"testing"
	"unicode/utf16"
)

// kafkaShape is an input Kafka 3.9's decoder for the znode reads, and the
// value it reads it into.
type kafkaShape struct {
	name string
	json string
	want any
}

// checkShapes decodes each input with decode and compares the result with
// the wanted value by reflect.DeepEqual, after normalize.
func checkShapes[T any](t *testing.T, decode func([]byte) (T, error), tests []kafkaShape) {
	t.Helper()
	for _, tt := range tests {
		got, err := decode([]byte(tt.json))
		if err != nil {
			t.Errorf("%s: decode(%q): %v", tt.name, tt.json, err)
			continue
		}
		if !reflect.DeepEqual(any(got), tt.want) {
			t.Errorf("%s: decode(%q) = %+v, want %+v", tt.name, tt.json, got, tt.want)
		}
	}
}

// assignments builds a partition map from partition ids and replica lists.
func assignments(kv ...any) map[int32]ReplicaAssignment {
	m := map[int32]ReplicaAssignment{}
	for i := 0; i < len(kv); i += 2 {
		m[int32(kv[i].(int))] = kv[i+1].(ReplicaAssignment)
	}
	return m
}

func TestDecodeTopicKafkaShapes(t *testing.T) {
	one := Topic{Partitions: assignments(0, ReplicaAssignment{Replicas: []int32{1, 2}})}
	withID := Topic{ID: goldenTopicUuid, Partitions: assignments(0, ReplicaAssignment{Replicas: []int32{1, 2}})}
	checkShapes(t, DecodeTopic, []kafkaShape{
		// TopicZNode.decode never reads the version.
		{"no version", `{"partitions":{"0":[1,2]}}`, one},
		{"version 7", `{"version":7,"partitions":{"0":[1,2]}}`, one},
		{"version string", `{"version":"3","partitions":{"0":[1,2]}}`, one},
		{"version null", `{"version":null,"partitions":{"0":[1,2]}}`, one},
		// A missing partitions is no partitions.
		{"no partitions", `{"version":3,"topic_id":"ASNFZ4mrze_-3LqYdlQyEA"}`, Topic{ID: goldenTopicUuid, Partitions: map[int32]ReplicaAssignment{}}},
		{"nothing but a version", `{"version":1}`, Topic{Partitions: map[int32]ReplicaAssignment{}}},
		// Partition keys are read with Integer.parseInt.
		{"leading zeros", `{"partitions":{"007":[1,2]}}`, Topic{Partitions: assignments(7, ReplicaAssignment{Replicas: []int32{1, 2}})}},
		{"plus sign", `{"partitions":{"+1":[1,2]}}`, Topic{Partitions: assignments(1, ReplicaAssignment{Replicas: []int32{1, 2}})}},
		{"minus zero", `{"partitions":{"-0":[1,2]}}`, one},
		{"Arabic-Indic digit", `{"partitions":{"\u0661":[1,2]}}`, Topic{Partitions: assignments(1, ReplicaAssignment{Replicas: []int32{1, 2}})}},
		{"fullwidth digits", `{"partitions":{"１２":[1,2]}}`, Topic{Partitions: assignments(12, ReplicaAssignment{Replicas: []int32{1, 2}})}},
		// Two keys naming one partition: the last in the document wins,
		// with the reassignment lists of its own key.
		{"keys naming one partition", `{"partitions":{"1":[1],"01":[2,3]},"adding_replicas":{"1":[1],"01":[3]}}`,
			Topic{Partitions: assignments(1, ReplicaAssignment{Replicas: []int32{2, 3}, AddingReplicas: []int32{3}})}},
		{"reassignment looked up by the key's own text", `{"partitions":{"01":[2,3]},"adding_replicas":{"1":[3]}}`,
			Topic{Partitions: assignments(1, ReplicaAssignment{Replicas: []int32{2, 3}})}},
		// Reassignment lists of partitions not in partitions are never
		// looked at.
		{"adding for another partition", `{"partitions":{"0":[1,2]},"adding_replicas":{"5":[2]},"removing_replicas":{"6":[1]}}`, one},
		{"malformed entry for another partition", `{"partitions":{"0":[1,2]},"adding_replicas":{"x":"y"},"removing_replicas":{"1":null}}`, one},
		// Uuid.fromString decodes with java.util.Base64's URL decoder.
		{"padded topic id", `{"partitions":{"0":[1,2]},"topic_id":"ASNFZ4mrze_-3LqYdlQyEA=="}`, withID},
		{"topic id with stray low bits", `{"partitions":{"0":[1,2]},"topic_id":"ASNFZ4mrze_-3LqYdlQyEB"}`, withID},
		// Jackson reads the first JSON value and ignores what follows it.
		{"trailing garbage", `{"partitions":{"0":[1,2]}}xyz`, one},
		{"two objects", `{"partitions":{"0":[1,2]}}{"partitions":{}}`, one},
		{"trailing invalid UTF-8", "{\"partitions\":{\"0\":[1,2]}}\xff", one},
		{"byte order mark", "\xEF\xBB\xBF{\"partitions\":{\"0\":[1,2]}}", one},
		// Regressions: shapes read before.
		{"unknown fields", `{"version":3,"partitions":{"0":[1,2]},"x":{"y":[1.5,null]}}`, one},
		{"pretty", "{\n  \"version\": 1,\n  \"partitions\": {\n    \"0\": [1, 2]\n  }\n}\n", one},
		{"version 2 with reassignment", `{"version":2,"partitions":{"0":[1,2]},"adding_replicas":{"0":[2]}}`,
			Topic{Partitions: assignments(0, ReplicaAssignment{Replicas: []int32{1, 2}, AddingReplicas: []int32{2}})}},
	})
}

func TestDecodePartitionStateKafkaShapes(t *testing.T) {
	st := PartitionState{ControllerEpoch: 2, Leader: 1, LeaderEpoch: 4, ISR: []int32{1, 2}}
	recovering := st
	recovering.LeaderRecoveryState = 1
	checkShapes(t, DecodePartitionState, []kafkaShape{
		// TopicPartitionStateZNode.decode never reads the version.
		{"no version", `{"controller_epoch":2,"leader":1,"leader_epoch":4,"isr":[1,2]}`, st},
		{"version 2", `{"controller_epoch":2,"leader":1,"version":2,"leader_epoch":4,"isr":[1,2]}`, st},
		{"version string", `{"controller_epoch":2,"leader":1,"version":"1","leader_epoch":4,"isr":[1,2]}`, st},
		// leader_recovery_state is read with toInt, then toByte.
		{"recovery state 256", `{"controller_epoch":2,"leader":1,"version":1,"leader_recovery_state":256,"leader_epoch":4,"isr":[1,2]}`, st},
		{"recovery state 257", `{"controller_epoch":2,"leader":1,"version":1,"leader_recovery_state":257,"leader_epoch":4,"isr":[1,2]}`, recovering},
		{"recovery state -255", `{"controller_epoch":2,"leader":1,"version":1,"leader_recovery_state":-255,"leader_epoch":4,"isr":[1,2]}`, recovering},
		{"trailing garbage", `{"controller_epoch":2,"leader":1,"version":1,"leader_epoch":4,"isr":[1,2]}}`, st},
		// Regressions.
		{"no recovery state", `{"controller_epoch":2,"leader":1,"version":1,"leader_epoch":4,"isr":[1,2]}`, st},
		{"recovering", `{"controller_epoch":2,"leader":1,"version":1,"leader_recovery_state":1,"leader_epoch":4,"isr":[1,2]}`, recovering},
	})
}

func TestDecodeControllerKafkaShapes(t *testing.T) {
	checkShapes(t, DecodeController, []kafkaShape{
		// ControllerZNode.decodeController reads brokerid and
		// kraftControllerEpoch only.
		{"no version", `{"brokerid":7,"timestamp":"5"}`, Controller{0, 7, 5, -1}},
		{"version 3", `{"version":3,"brokerid":7,"kraftControllerEpoch":2}`, Controller{3, 7, 0, 2}},
		{"version string", `{"version":"2","brokerid":7}`, Controller{0, 7, 0, -1}},
		{"numeric timestamp", `{"version":2,"brokerid":7,"timestamp":1729500000000,"kraftControllerEpoch":2}`, Controller{2, 7, 1729500000000, 2}},
		{"timestamp not a number", `{"version":1,"brokerid":7,"timestamp":"soon"}`, Controller{1, 7, 0, -1}},
		{"timestamp fraction", `{"version":1,"brokerid":7,"timestamp":1.5}`, Controller{1, 7, 0, -1}},
		{"timestamp null", `{"version":1,"brokerid":7,"timestamp":null}`, Controller{1, 7, 0, -1}},
		{"trailing garbage", `{"version":1,"brokerid":7} x`, Controller{1, 7, 0, -1}},
	})
}

func TestDecodeControllerTimestampNeverFails(t *testing.T) {
	for _, ts := range []string{`null`, `false`, `["1"]`, `""`, `"abc"`, `"-"`, `" 1"`, `"1 "`, `"1.5"`, `"1e3"`,
		`"0x10"`, `"1_000"`, `"` + tooBig64 + `"`, `"-9223372036854775809"`, `{}`, `1.0`, tooBig64} {
		data := `{"version":2,"brokerid":3000,"timestamp":` + ts + `,"kraftControllerEpoch":5}`
		got, err := DecodeController([]byte(data))
		if want := (Controller{2, 3000, 0, 5}); err != nil || got != want {
			t.Errorf("DecodeController(%s) = %+v, %v; want %+v", data, got, err, want)
		}
	}
}

func TestDecodeControllerEpochKafkaShapes(t *testing.T) {
	// ControllerEpochZNode.decode is Integer.parseInt of the UTF-8 text.
	for _, tt := range []struct {
		in   string
		want int32
	}{{"+5", 5}, {"-0", 0}, {"007", 7}, {"\u0665", 5}, {"+2147483647", 2147483647}, {"-2147483648", -2147483648}} {
		got, err := DecodeControllerEpoch([]byte(tt.in))
		if err != nil || got != tt.want {
			t.Errorf("DecodeControllerEpoch(%q) = %d, %v; want %d", tt.in, got, err, tt.want)
		}
	}
}

func TestDecodeConfigKafkaShapes(t *testing.T) {
	ab := Config{"a": "b"}
	checkShapes(t, DecodeConfig, []kafkaShape{
		// ConfigEntityZNode.decode reads only "config" (Yelp kafka-utils
		// writes broker configs so).
		{"no version", `{"config":{"a":"b"}}`, ab},
		{"version 2", `{"version":2,"config":{"a":"b"}}`, ab},
		{"version string", `{"version":"1","config":{"a":"b"}}`, ab},
		{"empty config without version", `{"config":{}}`, Config{}},
		{"trailing garbage", `{"version":1,"config":{"a":"b"}}garbage`, ab},
		// Regressions.
		{"duplicate key, last wins", `{"version":1,"config":{"a":"x","a":"b"}}`, ab},
		{"pretty", "{\n  \"version\" : 1,\n  \"config\" : {\n    \"a\" : \"b\"\n  }\n}", ab},
	})
}

func TestDecodeConfigChangeKafkaShapes(t *testing.T) {
	checkShapes(t, DecodeConfigChange, []kafkaShape{
		// ZkConfigManager reads version 1 as entity_type/entity_name.
		{"version 1 topic", `{"version":1,"entity_type":"topics","entity_name":"foo"}`, ConfigChange{EntityPath: "topics/foo"}},
		{"version 1 client", `{"version":1,"entity_type":"clients","entity_name":"c1"}`, ConfigChange{EntityPath: "clients/c1"}},
		{"trailing garbage", `{"version":2,"entity_path":"brokers/1"}}`, ConfigChange{EntityPath: "brokers/1"}},
	})
}

func TestDecodeACLsKafkaShapes(t *testing.T) {
	read := ACLs{{Principal: "User:alice", PermissionType: PermissionAllow, Operation: OperationRead, Host: "*"}}
	entry := func(perm, op string) string {
		return `{"version":1,"acls":[{"principal":"User:alice","permissionType":"` + perm + `","operation":"` + op + `","host":"*"}]}`
	}
	idem := ACLs{{Principal: "User:alice", PermissionType: PermissionDeny, Operation: OperationIdempotentWrite, Host: "*"}}
	checkShapes(t, DecodeACLs, []kafkaShape{
		// SecurityUtils.operation and permissionType look names up as
		// given, then upper-cased.
		{"upper case", entry("ALLOW", "READ"), read},
		{"lower case", entry("allow", "read"), read},
		{"mixed case", entry("aLLow", "rEAD"), read},
		{"compound name upper case", entry("DENY", "IDEMPOTENTWRITE"), idem},
		{"compound name lower case", entry("deny", "idempotentwrite"), idem},
		{"trailing garbage", entry("Allow", "Read") + "]", read},
	})
}

func TestDecodeLiteralACLChangeKafkaShapes(t *testing.T) {
	// LiteralAclChangeStore.decode: ResourceType.fromString upper-cases.
	checkShapes(t, DecodeLiteralACLChange, []kafkaShape{
		{"lower case", "topic:foo", LiteralACLChange{ResourceType: ResourceTopic, Name: "foo"}},
		{"Pascal case", "Group:g", LiteralACLChange{ResourceType: ResourceGroup, Name: "g"}},
		{"lower case compound", "transactional_id:t", LiteralACLChange{ResourceType: ResourceTransactionalID, Name: "t"}},
	})
}

func TestDecodeProducerIDBlockKafkaShapes(t *testing.T) {
	b := ProducerIDBlock{BrokerID: -1, BlockStart: 6000, BlockEnd: 6999}
	checkShapes(t, DecodeProducerIDBlock, []kafkaShape{
		// ProducerIdBlockZNode.parseProducerIdBlockData never reads the
		// version and reads the bounds with Long.parseLong.
		{"no version", `{"broker":-1,"block_start":"6000","block_end":"6999"}`, b},
		{"version 2", `{"version":2,"broker":-1,"block_start":"6000","block_end":"6999"}`, b},
		{"plus signs", `{"version":1,"broker":-1,"block_start":"+6000","block_end":"+6999"}`, b},
		{"trailing garbage", `{"version":1,"broker":-1,"block_start":"6000","block_end":"6999"},`, b},
	})
}

func TestDecodeMigrationKafkaShapes(t *testing.T) {
	checkShapes(t, DecodeMigration, []kafkaShape{
		{"trailing garbage", goldenMigration + "x", Migration{1234, 3000, 7, 5}},
		{"byte order mark", "\xEF\xBB\xBF" + goldenMigration, Migration{1234, 3000, 7, 5}},
	})
}

func TestDecodeDelegationTokenKafkaShapes(t *testing.T) {
	want, err := DecodeDelegationToken([]byte(goldenToken))
	if err != nil {
		t.Fatal(err)
	}
	checkShapes(t, DecodeDelegationToken, []kafkaShape{
		{"trailing garbage", goldenToken + "}", want},
	})
}

// TestDecodeStaysRefused lists shapes that stay undecodable although
// Jackson parses them: strings no UTF-8 text can hold, and what Kafka
// would read as an empty config, topic or state.
func TestDecodeStaysRefused(t *testing.T) {
	tests := []struct {
		name   string
		decode func([]byte) error
		data   string
		reason error
	}{
		{"lone high surrogate escape", decodeErr(DecodeConfig), `{"version":1,"config":{"a":"\ud800"}}`, ErrInvalidJSON},
		{"lone low surrogate escape", decodeErr(DecodeConfig), `{"version":1,"config":{"a":"x\uDC00y"}}`, ErrInvalidJSON},
		{"reversed surrogate pair", decodeErr(DecodeConfig), `{"version":1,"config":{"a":"\uDE00\uD83D"}}`, ErrInvalidJSON},
		{"lone surrogate in a key", decodeErr(DecodeConfig), `{"version":1,"config":{"\ud800":"a"}}`, ErrInvalidJSON},
		{"lone surrogate in an unknown field", decodeErr(DecodeTopic), `{"partitions":{},"x":"\ud800"}`, ErrInvalidJSON},
		{"overlong UTF-8", decodeErr(DecodeConfig), "{\"version\":1,\"config\":{\"a\":\"\xC0\x80\"}}", ErrInvalidJSON},
		{"UTF-8 surrogate", decodeErr(DecodeConfig), "{\"version\":1,\"config\":{\"a\":\"\xED\xA0\x80\"}}", ErrInvalidJSON},
		{"config missing", decodeErr(DecodeConfig), `{"version":1}`, ErrMissingField},
		{"config not an object", decodeErr(DecodeConfig), `{"config":[]}`, ErrWrongType},
		{"config whitespace", decodeErr(DecodeConfig), ` `, ErrInvalidJSON},
		{"topic not JSON", decodeErr(DecodeTopic), `partitions`, ErrInvalidJSON},
		{"state not JSON", decodeErr(DecodePartitionState), `{"leader":1`, ErrInvalidJSON},
		{"negative partition", decodeErr(DecodeTopic), `{"partitions":{"-1":[1]}}`, ErrOutOfRange},
		{"principal without a type", decodeErr(DecodeACLs), `{"version":1,"acls":[{"principal":"alice","permissionType":"Allow","operation":"Read","host":"*"}]}`, ErrInvalidValue},
		{"unknown operation", decodeErr(DecodeACLs), `{"version":1,"acls":[{"principal":"User:a","permissionType":"Allow","operation":"Any","host":"*"}]}`, ErrInvalidValue},
		{"epoch with spaces", func(b []byte) error { _, err := DecodeControllerEpoch(b); return err }, " 5", ErrWrongType},
		{"epoch invalid UTF-8", func(b []byte) error { _, err := DecodeControllerEpoch(b); return err }, "5\xff", ErrWrongType},
	}
	for _, tt := range tests {
		err := tt.decode([]byte(tt.data))
		var de *DecodeError
		if !errors.As(err, &de) || !errors.Is(err, tt.reason) {
			t.Errorf("%s: decode(%q) = %v, want a *DecodeError matching %v", tt.name, tt.data, err, tt.reason)
		}
	}
}

// decodeErr returns the error of decode.
func decodeErr[T any](decode func([]byte) (T, error)) func([]byte) error {
	return func(b []byte) error { _, err := decode(b); return err }
}

// TestDecodeJacksonLimits checks the limits of Jackson 2.16's default
// StreamReadConstraints, which Kafka 3.9's Json.parseBytes applies, in a
// field no decoder reads: beyond them Kafka cannot parse the znode.
func TestDecodeJacksonLimits(t *testing.T) {
	nested := func(depth int) string {
		return `{"version":1,"config":{},"x":` + strings.Repeat("[", depth-1) + strings.Repeat("]", depth-1) + `}`
	}
	unknown := func(v string) string { return `{"version":1,"config":{},"x":` + v + `}` }
	tests := []struct {
		name string
		data string
		ok   bool
	}{
		{"nested 1000 deep", nested(1000), true},
		{"nested 1001 deep", nested(1001), false},
		{"integer of 1000 digits", unknown(strings.Repeat("9", 1000)), true},
		{"negative integer of 1000 digits", unknown("-" + strings.Repeat("9", 1000)), true},
		{"integer of 1001 digits", unknown(strings.Repeat("9", 1001)), false},
		{"float of 1000 digits", unknown(strings.Repeat("9", 500) + "." + strings.Repeat("9", 498) + "e-10"), true},
		{"float of 1001 digits", unknown(strings.Repeat("9", 500) + "." + strings.Repeat("9", 499) + "e-10"), false},
		{"name of 50000 bytes", `{"version":1,"config":{},"` + strings.Repeat("é", 25000) + `":1}`, true},
		{"name of 50001 bytes", `{"version":1,"config":{},"` + strings.Repeat("é", 25000) + `x":1}`, false},
		{"escaped name of 50000 bytes", `{"version":1,"config":{},"` + strings.Repeat(`\u00e9`, 25000) + `":1}`, true},
		{"string value of 50001 bytes", unknown(`"` + strings.Repeat("x", 50001) + `"`), true},
	}
	for _, tt := range tests {
		_, err := DecodeConfig([]byte(tt.data))
		if tt.ok != (err == nil) || (err != nil && !errors.Is(err, ErrInvalidJSON)) {
			t.Errorf("%s: error %.200v, want ok=%v", tt.name, err, tt.ok)
		}
	}
}

func TestDecodeScramCredentialKafkaShapes(t *testing.T) {
	g := "salt=c2FsdA==,stored_key=c3RvcmVk,server_key=c2VydmVy,iterations=4096"
	want := ScramCredential{Salt: []byte("salt"), StoredKey: []byte("stored"), ServerKey: []byte("server"), Iterations: 4096}
	x := want
	x.Salt = []byte("x")
	a := want
	a.ServerKey = []byte("A")
	// ScramCredentialUtils.credentialFromString: String.split drops
	// trailing empty tokens, Properties keeps a repeated key's last value,
	// Integer.parseInt reads the iterations, java.util.Base64 ignores the
	// unused bits of the last character.
	checkShapes(t, DecodeScramCredential, []kafkaShape{
		{"trailing comma", g + ",", want},
		{"trailing commas", g + ",,,", want},
		{"repeated key, last wins", g + ",salt=eA==", x},
		{"iterations plus", strings.Replace(g, "4096", "+4096", 1), want},
		{"iterations leading zeros", strings.Replace(g, "4096", "004096", 1), want},
		{"trailing bits", strings.Replace(g, "c2VydmVy", "QR==", 1), a},
	})
}

// encodeUTF16 returns s in UTF-16, big-endian or not.
func encodeUTF16(s string, bigEndian bool) string {
	var b []byte
	for _, u := range utf16.Encode([]rune(s)) {
		if bigEndian {
			b = binary.BigEndian.AppendUint16(b, u)
		} else {
			b = binary.LittleEndian.AppendUint16(b, u)
		}
	}
	return string(b)
}

// encodeUTF32 returns s in UTF-32, big-endian or not.
func encodeUTF32(s string, bigEndian bool) string {
	var b []byte
	for _, r := range s {
		if bigEndian {
			b = binary.BigEndian.AppendUint32(b, uint32(r))
		} else {
			b = binary.LittleEndian.AppendUint32(b, uint32(r))
		}
	}
	return string(b)
}

func TestDecodeJacksonEncodings(t *testing.T) {
	// Jackson's ByteSourceJsonBootstrapper detects UTF-16 and UTF-32 by
	// a byte order mark or by the zero bytes of the first characters.
	doc := `{"version":1,"config":{"a":"é😀"}}`
	want := Config{"a": "é😀"}
	checkShapes(t, DecodeConfig, []kafkaShape{
		{"UTF-16BE", encodeUTF16(doc, true), want},
		{"UTF-16LE", encodeUTF16(doc, false), want},
		{"UTF-16BE with BOM", encodeUTF16("\uFEFF"+doc, true), want},
		{"UTF-16LE with BOM", encodeUTF16("\uFEFF"+doc, false), want},
		{"UTF-32BE", encodeUTF32(doc, true), want},
		{"UTF-32LE", encodeUTF32(doc, false), want},
		{"UTF-32BE with BOM", encodeUTF32("\uFEFF"+doc, true), want},
		{"UTF-32LE with BOM", encodeUTF32("\uFEFF"+doc, false), want},
	})
	be16, be32 := encodeUTF16(doc, true), encodeUTF32(doc, true)
	for _, bad := range []string{
		be16[:len(be16)-1], // an odd byte
		encodeUTF16(`{"version":1,"config":{"a":"`, false) + "\x00\xD8" + encodeUTF16(`"}}`, false), // unpaired surrogate
		be32[:len(be32)-2],                                   // a partial unit
		"\x00\x00\x00{\x00\x11\x00\x00" + be32[4:],           // beyond U+10FFFF
		"\x00\x00\xFF\xFE" + be32, "\xFE\xFF\x00\x00" + be32, // unusual byte orders
	} {
		if _, err := DecodeConfig([]byte(bad)); !errors.Is(err, ErrInvalidJSON) {
			t.Errorf("DecodeConfig(%q) error %v, want ErrInvalidJSON", bad, err)
		}
	}
}
