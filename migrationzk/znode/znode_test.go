package znode

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

const (
	goldenMigration        = `{"version":0,"kraft_metadata_offset":1234,"kraft_controller_id":3000,"kraft_metadata_epoch":7,"kraft_controller_epoch":5}`
	goldenInitialMigration = `{"version":0,"kraft_metadata_offset":-1,"kraft_controller_id":-1,"kraft_metadata_epoch":-1,"kraft_controller_epoch":-1}`
	goldenController       = `{"version":2,"brokerid":3000,"timestamp":"1729500000000","kraftControllerEpoch":5}`
	goldenControllerV1     = `{"version":1,"brokerid":1,"timestamp":"1729500000000"}`
	goldenPartition        = `{"controller_epoch":2,"leader":1,"version":1,"leader_epoch":0,"isr":[1,2,3]}`
	goldenPartitionLRS     = `{"controller_epoch":2,"leader":1,"version":1,"leader_recovery_state":1,"leader_epoch":0,"isr":[1,2,3]}`
)

func TestPaths(t *testing.T) {
	if got, want := PartitionStatePath("orders", 7), "/brokers/topics/orders/partitions/7/state"; got != want {
		t.Errorf("PartitionStatePath = %q, want %q", got, want)
	}
	if got, want := PartitionStatePath("t", -1), "/brokers/topics/t/partitions/-1/state"; got != want {
		t.Errorf("PartitionStatePath = %q, want %q", got, want)
	}
}

func TestMigrationGolden(t *testing.T) {
	tests := []struct {
		m    Migration
		json string
	}{
		{Migration{KRaftMetadataOffset: 1234, KRaftControllerID: 3000, KRaftMetadataEpoch: 7, KRaftControllerEpoch: 5}, goldenMigration},
		{InitialMigration(), goldenInitialMigration},
		{
			Migration{KRaftMetadataOffset: -9223372036854775808, KRaftControllerID: 2147483647, KRaftMetadataEpoch: -2147483648, KRaftControllerEpoch: 0},
			`{"version":0,"kraft_metadata_offset":-9223372036854775808,"kraft_controller_id":2147483647,"kraft_metadata_epoch":-2147483648,"kraft_controller_epoch":0}`,
		},
	}
	for _, tt := range tests {
		if got := string(tt.m.Encode()); got != tt.json {
			t.Errorf("%+v.Encode() =\n%s\nwant\n%s", tt.m, got, tt.json)
		}
		got, err := DecodeMigration([]byte(tt.json))
		if err != nil || got != tt.m {
			t.Errorf("DecodeMigration(%s) = %+v, %v; want %+v", tt.json, got, err, tt.m)
		}
	}
}

func TestMigrationDecodeLenient(t *testing.T) {
	want := Migration{KRaftMetadataOffset: 1234, KRaftControllerID: 3000, KRaftMetadataEpoch: 7, KRaftControllerEpoch: 5}
	inputs := []string{
		// Key order is ignored.
		`{"kraft_controller_epoch":5,"kraft_metadata_epoch":7,"kraft_controller_id":3000,"kraft_metadata_offset":1234,"version":0}`,
		// Extra keys are ignored, whatever their type.
		`{"version":0,"kraft_metadata_offset":1234,"kraft_controller_id":3000,"kraft_metadata_epoch":7,"kraft_controller_epoch":5,"extra":{"a":[1.5,null]},"x":"y"}`,
		// Whitespace is accepted.
		" \n\t{ \"version\" : 0 ,\r\n \"kraft_metadata_offset\" : 1234 , \"kraft_controller_id\" :3000, \"kraft_metadata_epoch\":\t7, \"kraft_controller_epoch\" : 5 } \n",
		// The last of duplicate keys wins.
		`{"version":0,"kraft_metadata_offset":1,"kraft_metadata_offset":1234,"kraft_controller_id":3000,"kraft_metadata_epoch":7,"kraft_controller_epoch":"bad","kraft_controller_epoch":5}`,
		// Escaped keys are keys like any other.
		`{"\u0076ersion":0,"kraft_metadata_offset":1234,"kraft_controller_id":3000,"kraft_metadata_epoch":7,"kraft_controller_epoch":5}`,
	}
	for _, in := range inputs {
		got, err := DecodeMigration([]byte(in))
		if err != nil || got != want {
			t.Errorf("DecodeMigration(%q) = %+v, %v; want %+v", in, got, err, want)
		}
	}
	// Minus zero is an integer.
	got, err := DecodeMigration([]byte(`{"version":-0,"kraft_metadata_offset":-0,"kraft_controller_id":0,"kraft_metadata_epoch":0,"kraft_controller_epoch":0}`))
	if err != nil || got != (Migration{}) {
		t.Errorf("DecodeMigration with -0 = %+v, %v", got, err)
	}
}

func TestControllerGolden(t *testing.T) {
	tests := []struct {
		c    Controller
		json string
	}{
		{Controller{Version: 2, BrokerID: 3000, Timestamp: 1729500000000, KRaftControllerEpoch: 5}, goldenController},
		{Controller{Version: 1, BrokerID: 1, Timestamp: 1729500000000, KRaftControllerEpoch: -1}, goldenControllerV1},
		// A ZooKeeper-mode broker of Kafka 3.9 writes version 2 with epoch -1.
		{Controller{Version: 2, BrokerID: 1, Timestamp: 1729500000000, KRaftControllerEpoch: -1}, `{"version":2,"brokerid":1,"timestamp":"1729500000000","kraftControllerEpoch":-1}`},
		// Version 1 with a KRaft epoch keeps the epoch.
		{Controller{Version: 1, BrokerID: 1, Timestamp: 0, KRaftControllerEpoch: 0}, `{"version":1,"brokerid":1,"timestamp":"0","kraftControllerEpoch":0}`},
		{Controller{Version: 2, BrokerID: -1, Timestamp: -9223372036854775808, KRaftControllerEpoch: 2147483647}, `{"version":2,"brokerid":-1,"timestamp":"-9223372036854775808","kraftControllerEpoch":2147483647}`},
	}
	for _, tt := range tests {
		if got := string(tt.c.Encode()); got != tt.json {
			t.Errorf("%+v.Encode() =\n%s\nwant\n%s", tt.c, got, tt.json)
		}
		got, err := DecodeController([]byte(tt.json))
		if err != nil || got != tt.c {
			t.Errorf("DecodeController(%s) = %+v, %v; want %+v", tt.json, got, err, tt.c)
		}
	}
}

func TestControllerDecodeLenient(t *testing.T) {
	tests := []struct {
		json string
		want Controller
	}{
		{`{"kraftControllerEpoch":5,"timestamp":"1729500000000","brokerid":3000,"version":2}`, Controller{2, 3000, 1729500000000, 5}},
		{`{"version":2,"brokerid":3000,"timestamp":"1729500000000","kraftControllerEpoch":5,"extra":true}`, Controller{2, 3000, 1729500000000, 5}},
		{` { "version" : 2 , "brokerid" : 3000 , "timestamp" : "1729500000000" , "kraftControllerEpoch" : 5 } `, Controller{2, 3000, 1729500000000, 5}},
		// Optional keys.
		{`{"version":1,"brokerid":7}`, Controller{1, 7, 0, -1}},
		{`{"version":2,"brokerid":7,"kraftControllerEpoch":3}`, Controller{2, 7, 0, 3}},
		// Timestamps with a sign or leading zeros are decimal.
		{`{"version":1,"brokerid":7,"timestamp":"-5"}`, Controller{1, 7, -5, -1}},
		{`{"version":1,"brokerid":7,"timestamp":"0042"}`, Controller{1, 7, 42, -1}},
		// An escaped digit is still a digit.
		{`{"version":1,"brokerid":7,"timestamp":"\u0031"}`, Controller{1, 7, 1, -1}},
	}
	for _, tt := range tests {
		got, err := DecodeController([]byte(tt.json))
		if err != nil || got != tt.want {
			t.Errorf("DecodeController(%s) = %+v, %v; want %+v", tt.json, got, err, tt.want)
		}
	}
}

func TestControllerIsKRaft(t *testing.T) {
	for _, tt := range []struct {
		epoch int32
		want  bool
	}{{-2, false}, {-1, false}, {0, true}, {5, true}} {
		if got := (Controller{Version: 2, KRaftControllerEpoch: tt.epoch}).IsKRaft(); got != tt.want {
			t.Errorf("IsKRaft with epoch %d = %v, want %v", tt.epoch, got, tt.want)
		}
	}
}

func TestPartitionStateGolden(t *testing.T) {
	tests := []struct {
		p    PartitionState
		json string
	}{
		{PartitionState{ControllerEpoch: 2, Leader: 1, LeaderEpoch: 0, ISR: []int32{1, 2, 3}}, goldenPartition},
		{PartitionState{ControllerEpoch: 2, Leader: 1, LeaderEpoch: 0, ISR: []int32{1, 2, 3}, LeaderRecoveryState: 1}, goldenPartitionLRS},
		{PartitionState{ControllerEpoch: 5, Leader: -1, LeaderEpoch: 9, ISR: []int32{}}, `{"controller_epoch":5,"leader":-1,"version":1,"leader_epoch":9,"isr":[]}`},
		{PartitionState{ControllerEpoch: 5, Leader: 3, LeaderEpoch: 9, ISR: []int32{3}}, `{"controller_epoch":5,"leader":3,"version":1,"leader_epoch":9,"isr":[3]}`},
	}
	for _, tt := range tests {
		if got := string(tt.p.Encode()); got != tt.json {
			t.Errorf("%+v.Encode() =\n%s\nwant\n%s", tt.p, got, tt.json)
		}
		got, err := DecodePartitionState([]byte(tt.json))
		if err != nil || !got.Equal(tt.p) {
			t.Errorf("DecodePartitionState(%s) = %+v, %v; want %+v", tt.json, got, err, tt.p)
		}
	}
	// A nil ISR is written as an empty one and read back as empty, not nil.
	p := PartitionState{ControllerEpoch: 1, Leader: -1, LeaderEpoch: 1}
	want := `{"controller_epoch":1,"leader":-1,"version":1,"leader_epoch":1,"isr":[]}`
	if got := string(p.Encode()); got != want {
		t.Errorf("Encode with nil ISR = %s, want %s", got, want)
	}
	got, err := DecodePartitionState([]byte(want))
	if err != nil || got.ISR == nil || len(got.ISR) != 0 {
		t.Errorf("DecodePartitionState(%s) ISR = %#v, %v; want empty, non-nil", want, got.ISR, err)
	}
}

func TestPartitionStateDecodeLenient(t *testing.T) {
	want := PartitionState{ControllerEpoch: 2, Leader: 1, LeaderEpoch: 0, ISR: []int32{1, 2, 3}, LeaderRecoveryState: 1}
	inputs := []string{
		`{"isr":[1,2,3],"leader_epoch":0,"leader_recovery_state":1,"version":1,"leader":1,"controller_epoch":2}`,
		`{"controller_epoch":2,"leader":1,"version":1,"leader_recovery_state":1,"leader_epoch":0,"isr":[1,2,3],"partition_epoch":4,"extra":null}`,
		"{ \"controller_epoch\" : 2 , \"leader\" : 1 , \"version\" : 1 , \"leader_recovery_state\" : 1 , \"leader_epoch\" : 0 , \"isr\" : [ 1 , 2 ,\n3 ] }\n",
	}
	for _, in := range inputs {
		got, err := DecodePartitionState([]byte(in))
		if err != nil || !got.Equal(want) {
			t.Errorf("DecodePartitionState(%q) = %+v, %v; want %+v", in, got, err, want)
		}
	}
	// An explicit recovered state is the same as an absent one.
	got, err := DecodePartitionState([]byte(`{"controller_epoch":2,"leader":1,"version":1,"leader_recovery_state":0,"leader_epoch":0,"isr":[1,2,3]}`))
	if err != nil || got.LeaderRecoveryState != 0 {
		t.Errorf("leader_recovery_state 0: got %+v, %v", got, err)
	}
}

func TestPartitionStateEqual(t *testing.T) {
	base := PartitionState{ControllerEpoch: 2, Leader: 1, LeaderEpoch: 3, ISR: []int32{1, 2}, LeaderRecoveryState: 1}
	if !base.Equal(base) {
		t.Error("state not equal to itself")
	}
	if !(PartitionState{ISR: nil}).Equal(PartitionState{ISR: []int32{}}) {
		t.Error("nil ISR not equal to empty ISR")
	}
	others := []PartitionState{
		{ControllerEpoch: 9, Leader: 1, LeaderEpoch: 3, ISR: []int32{1, 2}, LeaderRecoveryState: 1},
		{ControllerEpoch: 2, Leader: 9, LeaderEpoch: 3, ISR: []int32{1, 2}, LeaderRecoveryState: 1},
		{ControllerEpoch: 2, Leader: 1, LeaderEpoch: 9, ISR: []int32{1, 2}, LeaderRecoveryState: 1},
		{ControllerEpoch: 2, Leader: 1, LeaderEpoch: 3, ISR: []int32{2, 1}, LeaderRecoveryState: 1},
		{ControllerEpoch: 2, Leader: 1, LeaderEpoch: 3, ISR: []int32{1}, LeaderRecoveryState: 1},
		{ControllerEpoch: 2, Leader: 1, LeaderEpoch: 3, ISR: []int32{1, 2}, LeaderRecoveryState: 0},
	}
	for _, o := range others {
		if base.Equal(o) || o.Equal(base) {
			t.Errorf("%+v equal to %+v", base, o)
		}
	}
}

func TestControllerEpochGolden(t *testing.T) {
	for _, tt := range []struct {
		epoch int32
		text  string
	}{{43, "43"}, {0, "0"}, {-1, "-1"}, {2147483647, "2147483647"}, {-2147483648, "-2147483648"}} {
		if got := string(EncodeControllerEpoch(tt.epoch)); got != tt.text {
			t.Errorf("EncodeControllerEpoch(%d) = %q, want %q", tt.epoch, got, tt.text)
		}
		got, err := DecodeControllerEpoch([]byte(tt.text))
		if err != nil || got != tt.epoch {
			t.Errorf("DecodeControllerEpoch(%q) = %d, %v; want %d", tt.text, got, err, tt.epoch)
		}
	}
	for _, tt := range []struct {
		text string
		want int32
	}{{"043", 43}, {"-0", 0}, {"00", 0}, {"-002147483648", -2147483648}, {"0000000000000000000000042", 42}} {
		got, err := DecodeControllerEpoch([]byte(tt.text))
		if err != nil || got != tt.want {
			t.Errorf("DecodeControllerEpoch(%q) = %d, %v; want %d", tt.text, got, err, tt.want)
		}
	}
}

func TestAppendEncodeAppends(t *testing.T) {
	prefix := "prefix:"
	cases := []struct {
		name   string
		append func([]byte) []byte
		encode []byte
	}{
		{"Migration", InitialMigration().AppendEncode, InitialMigration().Encode()},
		{"Controller", Controller{2, 1, 2, 3}.AppendEncode, Controller{2, 1, 2, 3}.Encode()},
		{"PartitionState", PartitionState{1, 2, 3, []int32{4, 5}, 1}.AppendEncode, PartitionState{1, 2, 3, []int32{4, 5}, 1}.Encode()},
		{"ControllerEpoch", func(b []byte) []byte { return AppendControllerEpoch(b, -7) }, EncodeControllerEpoch(-7)},
	}
	for _, c := range cases {
		got := c.append([]byte(prefix))
		if want := prefix + string(c.encode); string(got) != want {
			t.Errorf("%s: AppendEncode = %q, want %q", c.name, got, want)
		}
	}
}

func TestAppendEncodeAllocs(t *testing.T) {
	dst := make([]byte, 0, 512)
	m := Migration{KRaftMetadataOffset: -9223372036854775808, KRaftControllerID: -2147483648, KRaftMetadataEpoch: -2147483648, KRaftControllerEpoch: -2147483648}
	c := Controller{Version: 2, BrokerID: -2147483648, Timestamp: -9223372036854775808, KRaftControllerEpoch: -2147483648}
	p := PartitionState{ControllerEpoch: -2147483648, Leader: -2147483648, LeaderEpoch: -2147483648, ISR: []int32{-2147483648, 1, 2, 3, 4, 5}, LeaderRecoveryState: 1}
	cases := []struct {
		name string
		f    func()
	}{
		{"Migration", func() { dst = m.AppendEncode(dst[:0]) }},
		{"Controller", func() { dst = c.AppendEncode(dst[:0]) }},
		{"PartitionState", func() { dst = p.AppendEncode(dst[:0]) }},
		{"ControllerEpoch", func() { dst = AppendControllerEpoch(dst[:0], -2147483648) }},
	}
	for _, tc := range cases {
		if n := testing.AllocsPerRun(100, tc.f); n != 0 {
			t.Errorf("%s: AppendEncode allocates %v times per run, want 0", tc.name, n)
		}
	}
}

func TestEncodeCapacity(t *testing.T) {
	// Encode sizes its buffer so that the worst case needs no growth.
	m := Migration{KRaftMetadataOffset: -9223372036854775808, KRaftControllerID: -2147483648, KRaftMetadataEpoch: -2147483648, KRaftControllerEpoch: -2147483648}
	if b := m.Encode(); len(b) > maxMigrationLen {
		t.Errorf("Migration: len %d > %d", len(b), maxMigrationLen)
	}
	c := Controller{Version: -2147483648, BrokerID: -2147483648, Timestamp: -9223372036854775808, KRaftControllerEpoch: -2147483648}
	if b := c.Encode(); len(b) > maxControllerLen {
		t.Errorf("Controller: len %d > %d", len(b), maxControllerLen)
	}
	p := PartitionState{ControllerEpoch: -2147483648, Leader: -2147483648, LeaderEpoch: -2147483648, ISR: []int32{-2147483648, -2147483648}, LeaderRecoveryState: -128}
	if b, n := p.Encode(), maxPartitionStateLen(len(p.ISR)); len(b) > n {
		t.Errorf("PartitionState: len %d > %d", len(b), n)
	}
}

func TestDecodeErrorMessage(t *testing.T) {
	data := []byte(`{"version":0,"kraft_metadata_offset":9223372036854775808,"kraft_controller_id":3000,"kraft_metadata_epoch":7,"kraft_controller_epoch":5}`)
	_, err := DecodeMigration(data)
	want := `decode /migration: field "kraft_metadata_offset": number out of range: 9223372036854775808 does not fit in int64 (data: ` +
		`"{\"version\":0,\"kraft_metadata_offset\":9223372036854775808,\"kraft_controller_id\":3000,\"kraft_metad"...)`
	if err == nil || err.Error() != want {
		t.Errorf("error =\n%v\nwant\n%s", err, want)
	}

	tests := []struct {
		err  *DecodeError
		want string
	}{
		{&DecodeError{Path: "/migration", Reason: ErrNullData}, `decode /migration: null data (data: null)`},
		{&DecodeError{Path: "/migration", Reason: ErrEmptyData, Data: []byte{}}, `decode /migration: empty data (data: "")`},
		{&DecodeError{Reason: ErrInvalidJSON, Detail: "oops", Data: []byte("x\x00")}, `decode: invalid JSON: oops (data: "x\x00")`},
		{&DecodeError{Path: "/p", Field: "f"}, `decode /p: field "f": unknown reason (data: null)`},
	}
	for _, tt := range tests {
		if got := tt.err.Error(); got != tt.want {
			t.Errorf("Error() = %s, want %s", got, tt.want)
		}
	}
	e := &DecodeError{Reason: ErrWrongType}
	if !errors.Is(e, ErrWrongType) || errors.Is(e, ErrOutOfRange) || e.Unwrap() != ErrWrongType {
		t.Error("DecodeError does not match exactly its Reason")
	}
	long := &DecodeError{Path: "/x", Reason: ErrInvalidJSON, Data: bytes.Repeat([]byte("a"), 1000)}
	if got := long.Error(); !strings.HasSuffix(got, `"...)`) || len(got) > 200 {
		t.Errorf("long data not cut: %s", got)
	}
}

func TestDecodeErrorDataIsCopy(t *testing.T) {
	data := []byte(`{"version":7}`)
	_, err := DecodeMigration(data)
	var de *DecodeError
	if !errors.As(err, &de) {
		t.Fatalf("error %v is not a *DecodeError", err)
	}
	data[1] = 'X'
	if string(de.Data) != `{"version":7}` {
		t.Errorf("Data shares memory with the input: %q", de.Data)
	}
}
