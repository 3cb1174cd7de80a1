package znode

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"testing"
	"unicode/utf8"
)

// jsonSeeds returns inputs shared by the fuzz targets of the JSON decoders.
func jsonSeeds() []string {
	return []string{
		"",
		" ",
		"{}",
		"null",
		"[]",
		`"x"`,
		"0",
		"{",
		`{"version":`,
		`{"version":0}`,
		`{"version":1}`,
		`{"version":2}`,
		`{"version":1e0}`,
		`{"version":-0}`,
		`{"version":"0"}`,
		"{\"version\":0,\"x\":\"\xff\"}",
		goldenMigration,
		goldenInitialMigration,
		goldenController,
		goldenControllerV1,
		goldenPartition,
		goldenPartitionLRS,
		`{"version":0,"kraft_metadata_offset":9223372036854775808,"kraft_controller_id":3000,"kraft_metadata_epoch":7,"kraft_controller_epoch":5}`,
		`{"version":2,"brokerid":1,"timestamp":"-0012"}`,
		`{"version":2,"brokerid":1,"timestamp":"1e3","kraftControllerEpoch":5}`,
		`{"controller_epoch":2,"leader":1,"version":1,"leader_recovery_state":2,"leader_epoch":0,"isr":[]}`,
		`{"controller_epoch":2,"leader":1,"version":1,"leader_epoch":0,"isr":[1,2147483648]}`,
		`{"controller_epoch":2,"leader":1,"version":1,"leader_epoch":0,"isr":null}`,
	}
}

// checkFuzzError checks the invariants of a decode error.
func checkFuzzError(t *testing.T, err error, path string, data []byte) {
	t.Helper()
	var de *DecodeError
	if !errors.As(err, &de) {
		t.Fatalf("error %T %v is not a *DecodeError", err, err)
	}
	if de.Path != path {
		t.Fatalf("Path = %q, want %q", de.Path, path)
	}
	if !bytes.Equal(de.Data, data) || (de.Data == nil) != (data == nil) {
		t.Fatalf("Data = %q, want %q", de.Data, data)
	}
	known := false
	for _, r := range []error{ErrNullData, ErrEmptyData, ErrInvalidJSON, ErrMissingField, ErrWrongType, ErrOutOfRange, ErrUnknownVersion, ErrInvalidValue} {
		if de.Reason == r {
			known = true
		}
	}
	if !known {
		t.Fatalf("unknown Reason %v", de.Reason)
	}
	_ = err.Error()
}

// checkAccepted checks that data a JSON decoder accepted is valid JSON.
func checkAccepted(t *testing.T, data []byte) {
	t.Helper()
	// Jackson reads one JSON value, in the encoding it detects, and never
	// what follows it.
	var first json.RawMessage
	text, err := jacksonText(data)
	if err == nil {
		err = json.NewDecoder(bytes.NewReader(text)).Decode(&first)
	}
	if err != nil || !json.Valid(first) {
		t.Fatalf("accepted invalid JSON %q", data)
	}
}

func FuzzDecodeMigration(f *testing.F) {
	for _, s := range jsonSeeds() {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := DecodeMigration(data)
		if err != nil {
			checkFuzzError(t, err, MigrationPath, data)
			if m != (Migration{}) {
				t.Fatalf("decoded %+v along with error %v", m, err)
			}
			return
		}
		checkAccepted(t, data)
		enc := m.Encode()
		m2, err := DecodeMigration(enc)
		if err != nil || m2 != m {
			t.Fatalf("decode(encode(%+v)) = %+v, %v", m, m2, err)
		}
		if enc2 := m2.Encode(); !bytes.Equal(enc2, enc) {
			t.Fatalf("encoding not stable: %s then %s", enc, enc2)
		}
	})
}

func FuzzDecodeController(f *testing.F) {
	for _, s := range jsonSeeds() {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := DecodeController(data)
		if err != nil {
			checkFuzzError(t, err, ControllerPath, data)
			if c != (Controller{}) {
				t.Fatalf("decoded %+v along with error %v", c, err)
			}
			return
		}
		checkAccepted(t, data)
		enc := c.Encode()
		c2, err := DecodeController(enc)
		if err != nil || c2 != c {
			t.Fatalf("decode(encode(%+v)) = %+v, %v", c, c2, err)
		}
		if enc2 := c2.Encode(); !bytes.Equal(enc2, enc) {
			t.Fatalf("encoding not stable: %s then %s", enc, enc2)
		}
	})
}

func FuzzDecodePartitionState(f *testing.F) {
	for _, s := range jsonSeeds() {
		f.Add([]byte(s))
	}
	for _, p := range []PartitionState{
		{ControllerEpoch: 2, Leader: 1, LeaderEpoch: 0, ISR: []int32{1, 2, 3}},
		{ControllerEpoch: -1, Leader: -1, LeaderEpoch: 2147483647, ISR: []int32{}, LeaderRecoveryState: 1},
		{ControllerEpoch: -2147483648, Leader: 1000, LeaderEpoch: 999, ISR: []int32{0}},
	} {
		f.Add(p.Encode())
	}
	f.Add([]byte(`{"controller_epoch":02,"leader":1,"version":1,"leader_epoch":0,"isr":[1]}`))
	f.Add([]byte(`{"controller_epoch":-0,"leader":1,"version":1,"leader_epoch":0,"isr":[1]}`))
	f.Add([]byte(`{"controller_epoch":2147483648,"leader":1,"version":1,"leader_epoch":0,"isr":[1]}`))
	f.Add([]byte(`{"controller_epoch":2,"leader":1,"version":1,"leader_recovery_state":0,"leader_epoch":0,"isr":[1]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := DecodePartitionState(data)
		if fast, ok := decodeCanonicalPartitionState(data); ok {
			// The canonical form's shortcut agrees with the JSON decoder.
			general, gerr := decodePartitionStateJSON(data)
			if gerr != nil || !general.Equal(fast) || general.ISR == nil || fast.ISR == nil {
				t.Fatalf("%q: shortcut %+v, JSON decoder %+v, %v", data, fast, general, gerr)
			}
		}
		if err != nil {
			checkFuzzError(t, err, partitionStatePattern, data)
			if !p.Equal(PartitionState{}) || p.ISR != nil {
				t.Fatalf("decoded %+v along with error %v", p, err)
			}
			return
		}
		checkAccepted(t, data)
		if p.LeaderRecoveryState != 0 && p.LeaderRecoveryState != 1 {
			t.Fatalf("decoded leader recovery state %d", p.LeaderRecoveryState)
		}
		if p.ISR == nil {
			t.Fatal("decoded a nil ISR")
		}
		enc := p.Encode()
		p2, err := DecodePartitionState(enc)
		if err != nil || !p2.Equal(p) {
			t.Fatalf("decode(encode(%+v)) = %+v, %v", p, p2, err)
		}
		if enc2 := p2.Encode(); !bytes.Equal(enc2, enc) {
			t.Fatalf("encoding not stable: %s then %s", enc, enc2)
		}
	})
}

// isASCII reports whether b holds only ASCII bytes.
func isASCII(b []byte) bool {
	return !bytes.ContainsFunc(b, func(r rune) bool { return r >= utf8.RuneSelf })
}

func FuzzDecodeControllerEpoch(f *testing.F) {
	for _, s := range []string{"", "43", "0", "-1", "043", "-0", "-", "+1", " 1", "1 ", "1\n", "2147483647", "-2147483648", tooBig32, "-2147483649", "1e3", `"1"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		epoch, err := DecodeControllerEpoch(data)
		if err != nil {
			checkFuzzError(t, err, ControllerEpochPath, data)
			if epoch != 0 {
				t.Fatalf("decoded %d along with error %v", epoch, err)
			}
			return
		}
		// Whatever is accepted in ASCII is a decimal that strconv reads
		// the same.
		if v, err := strconv.ParseInt(string(data), 10, 32); isASCII(data) && (err != nil || int32(v) != epoch) {
			t.Fatalf("accepted %q as %d; strconv says %d, %v", data, epoch, v, err)
		}
		enc := EncodeControllerEpoch(epoch)
		epoch2, err := DecodeControllerEpoch(enc)
		if err != nil || epoch2 != epoch {
			t.Fatalf("decode(encode(%d)) = %d, %v", epoch, epoch2, err)
		}
	})
}

func FuzzMigrationRoundTrip(f *testing.F) {
	f.Add(int64(1234), int32(3000), int32(7), int32(5))
	f.Add(int64(-1), int32(-1), int32(-1), int32(-1))
	f.Add(int64(-9223372036854775808), int32(-2147483648), int32(2147483647), int32(0))
	f.Fuzz(func(t *testing.T, offset int64, id, epoch, cepoch int32) {
		m := Migration{KRaftMetadataOffset: offset, KRaftControllerID: id, KRaftMetadataEpoch: epoch, KRaftControllerEpoch: cepoch}
		enc := m.Encode()
		want := fmt.Sprintf(`{"version":0,"kraft_metadata_offset":%d,"kraft_controller_id":%d,"kraft_metadata_epoch":%d,"kraft_controller_epoch":%d}`, offset, id, epoch, cepoch)
		if string(enc) != want {
			t.Fatalf("Encode = %s, want %s", enc, want)
		}
		got, err := DecodeMigration(enc)
		if err != nil || got != m {
			t.Fatalf("decode(encode(%+v)) = %+v, %v", m, got, err)
		}
	})
}

func FuzzControllerRoundTrip(f *testing.F) {
	f.Add(int32(2), int32(3000), int64(1729500000000), int32(5))
	f.Add(int32(1), int32(1), int64(1729500000000), int32(-1))
	f.Add(int32(2), int32(1), int64(-9223372036854775808), int32(-1))
	f.Add(int32(1), int32(-2147483648), int64(0), int32(2147483647))
	f.Fuzz(func(t *testing.T, version, id int32, ts int64, epoch int32) {
		c := Controller{Version: 1 + version&1, BrokerID: id, Timestamp: ts, KRaftControllerEpoch: epoch}
		enc := c.Encode()
		want := fmt.Sprintf(`{"version":%d,"brokerid":%d,"timestamp":"%d","kraftControllerEpoch":%d}`, c.Version, id, ts, epoch)
		if c.Version == 1 && epoch == -1 {
			want = fmt.Sprintf(`{"version":1,"brokerid":%d,"timestamp":"%d"}`, id, ts)
		}
		if string(enc) != want {
			t.Fatalf("Encode = %s, want %s", enc, want)
		}
		got, err := DecodeController(enc)
		if err != nil || got != c {
			t.Fatalf("decode(encode(%+v)) = %+v, %v", c, got, err)
		}
	})
}

func FuzzPartitionStateRoundTrip(f *testing.F) {
	f.Add(int32(2), int32(1), int32(0), []byte{1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0}, int8(0))
	f.Add(int32(2), int32(1), int32(0), []byte{1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0}, int8(1))
	f.Add(int32(-1), int32(-1), int32(-1), []byte{}, int8(0))
	f.Add(int32(-2147483648), int32(2147483647), int32(5), []byte{0, 0, 0, 0x80, 0xff, 0xff, 0xff, 0x7f, 9}, int8(-128))
	f.Fuzz(func(t *testing.T, cepoch, leader, lepoch int32, isrBytes []byte, lrs int8) {
		isr := make([]int32, 0, len(isrBytes)/4)
		for len(isrBytes) >= 4 {
			isr = append(isr, int32(binary.LittleEndian.Uint32(isrBytes)))
			isrBytes = isrBytes[4:]
		}
		p := PartitionState{ControllerEpoch: cepoch, Leader: leader, LeaderEpoch: lepoch, ISR: isr, LeaderRecoveryState: lrs & 1}
		enc := p.Encode()
		var b bytes.Buffer
		fmt.Fprintf(&b, `{"controller_epoch":%d,"leader":%d,"version":1,`, cepoch, leader)
		if p.LeaderRecoveryState == 1 {
			b.WriteString(`"leader_recovery_state":1,`)
		}
		fmt.Fprintf(&b, `"leader_epoch":%d,"isr":[`, lepoch)
		for i, r := range isr {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprint(&b, r)
		}
		b.WriteString("]}")
		if !bytes.Equal(enc, b.Bytes()) {
			t.Fatalf("Encode = %s, want %s", enc, b.Bytes())
		}
		got, err := DecodePartitionState(enc)
		if err != nil || !got.Equal(p) {
			t.Fatalf("decode(encode(%+v)) = %+v, %v", p, got, err)
		}
	})
}

func FuzzControllerEpochRoundTrip(f *testing.F) {
	for _, e := range []int32{0, 43, -1, 2147483647, -2147483648} {
		f.Add(e)
	}
	f.Fuzz(func(t *testing.T, epoch int32) {
		enc := EncodeControllerEpoch(epoch)
		if want := strconv.FormatInt(int64(epoch), 10); string(enc) != want {
			t.Fatalf("EncodeControllerEpoch(%d) = %q, want %q", epoch, enc, want)
		}
		got, err := DecodeControllerEpoch(enc)
		if err != nil || got != epoch {
			t.Fatalf("decode(encode(%d)) = %d, %v", epoch, got, err)
		}
	})
}
