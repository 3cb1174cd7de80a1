package kraftlog_test

import (
	"bytes"
	"testing"

	"github.com/kraftmigration/zkwriter/internal/kraftlog"
)

// sampleValues returns a value of every metadata record type at every
// version, composed in Go.
func sampleValues(tb testing.TB) [][]byte {
	tb.Helper()
	name, reason := "ZK Migration", "Controller failover"
	value := "604800000"
	msgs := []struct {
		m kraftlog.Message
		v int16
	}{
		{&kraftlog.TopicRecord{Name: "orders", TopicID: topicID}, 0},
		{&kraftlog.PartitionRecord{TopicID: topicID, Replicas: []int32{1, 2}, Isr: []int32{1}, Leader: 1, LeaderRecoveryState: 1}, 0},
		{&kraftlog.PartitionRecord{TopicID: topicID, Replicas: []int32{1}, Isr: []int32{1}, Directories: []kraftlog.Uuid{topicID}}, 1},
		{&kraftlog.PartitionRecord{TopicID: topicID, Replicas: []int32{1}, Directories: []kraftlog.Uuid{{}}, EligibleLeaderReplicas: []int32{}, LastKnownElr: []int32{1}}, 2},
		{&kraftlog.PartitionChangeRecord{TopicID: topicID, Isr: []int32{1}, Leader: 1, LeaderRecoveryState: 0}, 0},
		{&kraftlog.PartitionChangeRecord{TopicID: topicID, Leader: kraftlog.NoLeaderChange, LeaderRecoveryState: -1, Directories: []kraftlog.Uuid{{}}}, 1},
		{&kraftlog.PartitionChangeRecord{TopicID: topicID, Leader: kraftlog.NoLeaderChange, LeaderRecoveryState: -1, EligibleLeaderReplicas: []int32{2}}, 2},
		{&kraftlog.RemoveTopicRecord{TopicID: topicID}, 0},
		{&kraftlog.ConfigRecord{ResourceType: 2, ResourceName: "orders", Name: "retention.ms", Value: &value}, 0},
		{&kraftlog.ClientQuotaRecord{Entity: []kraftlog.EntityData{{EntityType: "user"}}, Key: "producer_byte_rate", Value: 1024}, 0},
		{&kraftlog.UserScramCredentialRecord{Name: "alice", Mechanism: 1, Salt: []byte("s"), StoredKey: []byte("k"), ServerKey: []byte("v"), Iterations: 4096}, 0},
		{&kraftlog.RemoveUserScramCredentialRecord{Name: "alice", Mechanism: 2}, 0},
		{&kraftlog.AccessControlEntryRecord{ID: topicID, ResourceType: 2, ResourceName: "orders", PatternType: 3, Principal: "User:alice", Host: "*", Operation: 3, PermissionType: 3}, 0},
		{&kraftlog.RemoveAccessControlEntryRecord{ID: topicID}, 0},
		{&kraftlog.DelegationTokenRecord{Owner: "User:alice", Requester: "User:alice", Renewers: []string{"User:bob"}, TokenID: "t"}, 0},
		{&kraftlog.RemoveDelegationTokenRecord{TokenID: "t"}, 0},
		{&kraftlog.ProducerIdsRecord{BrokerID: 1, BrokerEpoch: -1, NextProducerID: 6000}, 0},
		{&kraftlog.ZkMigrationStateRecord{ZkMigrationState: 1}, 0},
		{&kraftlog.FeatureLevelRecord{Name: "metadata.version", FeatureLevel: 21}, 0},
		{&kraftlog.NoOpRecord{}, 0},
		{&kraftlog.BeginTransactionRecord{Name: &name}, 0},
		{&kraftlog.EndTransactionRecord{}, 0},
		{&kraftlog.AbortTransactionRecord{Reason: &reason}, 0},
		{&kraftlog.RegisterBrokerRecord{BrokerID: 1, EndPoints: []kraftlog.Endpoint{{Name: "PLAINTEXT", Host: "h", Port: 9092}}, LogDirs: []kraftlog.Uuid{topicID}}, 3},
		{&kraftlog.UnregisterBrokerRecord{BrokerID: 1}, 0},
		{&kraftlog.FenceBrokerRecord{ID: 1}, 0},
		{&kraftlog.UnfenceBrokerRecord{ID: 1}, 0},
		{&kraftlog.BrokerRegistrationChangeRecord{BrokerID: 1, Fenced: 1, InControlledShutdown: 1, LogDirs: []kraftlog.Uuid{topicID}}, 2},
		{&kraftlog.RegisterControllerRecord{ControllerID: 3000, Features: []kraftlog.FeatureRange{{Name: "metadata.version", MaxSupportedVersion: 21}}}, 0},
	}
	var out [][]byte
	for _, m := range msgs {
		v, err := kraftlog.AppendValue(nil, m.m, m.v)
		if err != nil {
			tb.Fatalf("%T v%d: %v", m.m, m.v, err)
		}
		out = append(out, v)
	}
	return out
}

// sampleFile returns a segment of a leader change, then every sample
// value in batches of three.
func sampleFile(tb testing.TB) []byte {
	tb.Helper()
	lc := kraftlog.ControlRecord(&kraftlog.LeaderChangeMessage{LeaderID: 3000, Voters: []kraftlog.Voter{{VoterID: 3000}}})
	out := kraftlog.AppendBatch(nil, kraftlog.NewBatch{Epoch: 1, Control: true, Records: []kraftlog.NewRecord{lc}})
	values := sampleValues(tb)
	offset := int64(1)
	for i := 0; i < len(values); i += 3 {
		nb := kraftlog.NewBatch{BaseOffset: offset, Epoch: 1, Timestamp: 1732093200000}
		for _, v := range values[i:min(i+3, len(values))] {
			nb.Records = append(nb.Records, kraftlog.NewRecord{Value: v})
			offset++
		}
		out = kraftlog.AppendBatch(out, nb)
	}
	return out
}

// scanAll reads every batch and record of data, as a replay would; it
// must never panic, whatever data holds.
func scanAll(t *testing.T, data []byte) {
	s := kraftlog.NewScanner(data)
	for {
		b, err := s.Next()
		if err != nil {
			return
		}
		rs := b.Records()
		for {
			r, ok, err := rs.Next()
			if err != nil || !ok {
				break
			}
			if b.Control() {
				_, _ = kraftlog.DecodeControl(r.Key, r.Value, nil)
				continue
			}
			checkValue(t, r.Value)
		}
	}
}

// checkValue decodes a value; one that decodes must encode to a value
// that decodes to the same record.
func checkValue(t *testing.T, value []byte) {
	m, v, err := kraftlog.DecodeValue(value, kraftlog.NewAlloc())
	if err != nil {
		return
	}
	again, err := kraftlog.AppendValue(nil, m, v)
	if err != nil {
		t.Fatalf("%s v%d decoded but does not encode: %v", m.Type(), v, err)
	}
	m2, v2, err := kraftlog.DecodeValue(again, nil)
	if err != nil || v2 != v {
		t.Fatalf("%s v%d written back does not decode: %v", m.Type(), v, err)
	}
	if a, b := kraftlog.AppendKafkaJSON(nil, m, v), kraftlog.AppendKafkaJSON(nil, m2, v); !bytes.Equal(a, b) {
		t.Fatalf("%s v%d written back reads differently:\n%s\n%s", m.Type(), v, a, b)
	}
}

// FuzzScanner reads whole files: seeds are a composed segment, its
// truncated tails, a flipped CRC, absurd lengths and zeros.
func FuzzScanner(f *testing.F) {
	file := sampleFile(f)
	f.Add(file)
	for _, cut := range []int{5, 17, 30, 61, 80, len(file) / 2, len(file) - 1} {
		f.Add(file[:cut])
	}
	flipped := bytes.Clone(file)
	flipped[40] ^= 0x10
	f.Add(flipped)
	absurd := bytes.Clone(file)
	copy(absurd[8:], []byte{0x7f, 0xff, 0xff, 0xf0})
	f.Add(absurd)
	f.Add(append(bytes.Clone(file), make([]byte, 64)...))
	f.Fuzz(func(t *testing.T, data []byte) { scanAll(t, data) })
}

// FuzzRecords reads the records of a batch whose CRC is right, so that
// the fuzzer gets past it: seeds are records of every type, records
// with an absurd size, a varint that overflows, a count beyond the
// records.
func FuzzRecords(f *testing.F) {
	file := sampleFile(f)
	s := kraftlog.NewScanner(file)
	for {
		b, err := s.Next()
		if err != nil {
			break
		}
		f.Add(b.Attributes, b.RecordCount, b.Bytes[kraftlog.BatchHeaderSize:])
	}
	f.Add(int16(0), int32(1), []byte{0xfe, 0xff, 0xff, 0xff, 0x0f})
	f.Add(int16(0), int32(1), []byte{0x80, 0x80, 0x80, 0x80, 0x80, 0x01})
	f.Add(int16(0), int32(1<<30), rawRecord([]byte{0}, zz(nil, 0, 0, -1, 3), frame(20, 0, nil), []byte{0}))
	f.Add(int16(0x20), int32(1), rawRecord([]byte{0}, zz(nil, 0, 0, 4, 0, 0, 0, 3, 3), []byte{0, 0, 0, 4}, []byte{0, 0, 0}, []byte{0}))
	f.Fuzz(func(t *testing.T, attrs int16, count int32, records []byte) {
		scanAll(t, rawBatch(attrs, count, records))
	})
}

// FuzzValue decodes record values: seeds are a value of every type and
// version, cut short, with absurd lengths and a varint that overflows.
func FuzzValue(f *testing.F) {
	for _, v := range sampleValues(f) {
		f.Add(v)
		f.Add(v[:len(v)/2])
		long := bytes.Clone(v)
		if len(long) > 8 {
			copy(long[4:], []byte{0xff, 0xff, 0xff, 0xff, 0x07})
		}
		f.Add(long)
	}
	f.Add(frame(5, 0, changeBody([]byte{0x81, 0x80, 0x80, 0x80, 0x80, 0x01})))
	f.Add(frame(5, 2, changeBody(uv(nil, 1, 0, 5, 0x7fffffff))))
	f.Fuzz(func(t *testing.T, value []byte) { checkValue(t, value) })
}
