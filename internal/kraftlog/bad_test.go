package kraftlog_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/kraftmigration/zkwriter/internal/kraftlog"
)

// TestBadValues feeds record values Kafka refuses, composed from the
// schemas, and checks each is refused for the reason Kafka gives.
func TestBadValues(t *testing.T) {
	nullName := append(uv(nil, 0), uuidBytes(nil, topicID)...)
	longName := append(uv(nil, 0x8000+1), bytes.Repeat([]byte("a"), 0x8000)...)
	tests := []struct {
		name   string
		value  []byte
		reason error
		detail string
	}{
		{"frame version 0", append(uv(nil, 0, 2, 0), topicBody(uv(nil, 0))...), kraftlog.ErrFrameVersion, "2.8"},
		{"frame version 2", append(uv(nil, 2, 2, 0), topicBody(uv(nil, 0))...), kraftlog.ErrFrameVersion, "frame version 2"},
		{"frame version too large", uv(nil, 0x8000), kraftlog.ErrCorrupt, "too large"},
		{"frame ends", uv(nil, 1, 2), kraftlog.ErrCorrupt, "reading version"},
		{"apiKey 6 (removed)", frame(6, 0, nil), kraftlog.ErrUnknownType, "apiKey 6"},
		{"apiKey 13", frame(13, 0, nil), kraftlog.ErrUnknownType, "apiKey 13"},
		{"apiKey 16", frame(16, 0, nil), kraftlog.ErrUnknownType, "apiKey 16"},
		{"apiKey 28", frame(28, 0, nil), kraftlog.ErrUnknownType, "apiKey 28"},
		{"PartitionRecord v3", frame(3, 3, nil), kraftlog.ErrUnknownVersion, "PartitionRecord version 3"},
		{"TopicRecord v1", frame(2, 1, topicBody(uv(nil, 0))), kraftlog.ErrUnknownVersion, "TopicRecord version 1"},
		{"trailing bytes", frame(2, 0, append(topicBody(uv(nil, 0)), 0, 0)), kraftlog.ErrTrailingBytes, "2 byte(s) of garbage after TopicRecord"},
		{"body ends early", frame(2, 0, topicBody(nil)), kraftlog.ErrCorrupt, "ends early"},
		{"null name", frame(2, 0, append(nullName, 0)), kraftlog.ErrCorrupt, "non-nullable field Name was serialized as null"},
		{"name longer than 32767", frame(2, 0, longName), kraftlog.ErrCorrupt, "invalid length 32768"},
		{"tag 8 on PartitionChangeRecord v0", frame(5, 0, changeBody(append(uv(nil, 1, 8, 1), 0))), kraftlog.ErrInvalidTag, "tag 8 is not valid for version 0"},
		{"tag 6 on PartitionChangeRecord v1", frame(5, 1, changeBody(append(uv(nil, 1, 6, 1), 0))), kraftlog.ErrInvalidTag, "tag 6 is not valid for version 1"},
		{"tag 1 on PartitionRecord v1", frame(3, 1, partitionBody(1, uv(nil, 1, 1, 1, 0))), kraftlog.ErrInvalidTag, "tag 1 is not valid for version 1"},
		{"tag 1 on BrokerRegistrationChangeRecord v0", frame(17, 0, append(uv(append(i32(nil, 1), make([]byte, 8)...), 1, 1, 1), 1)), kraftlog.ErrInvalidTag, "tag 1 is not valid for version 0"},
		{"unknown tag runs past the body", frame(2, 0, topicBody(uv(nil, 1, 20, 50))), kraftlog.ErrCorrupt, "runs past"},
		{"array runs past the body", frame(5, 0, changeBody(uv(nil, 1, 0, 5, 0x7fffffff))), kraftlog.ErrCorrupt, "runs past"},
		{"varint longer than 5 bytes", frame(5, 0, changeBody([]byte{0x81, 0x80, 0x80, 0x80, 0x80, 0x01})), kraftlog.ErrCorrupt, "longer than 5 bytes"},
		{"replicas null", frame(3, 0, append(uuidBytes(i32(nil, 0), topicID), 0)), kraftlog.ErrCorrupt, "Replicas was serialized as null"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := kraftlog.DecodeValue(tt.value, nil)
			if !errors.Is(err, tt.reason) {
				t.Fatalf("error %v, want %v", err, tt.reason)
			}
			if !strings.Contains(err.Error(), tt.detail) {
				t.Errorf("error %q does not say %q", err, tt.detail)
			}
		})
	}
}

// partitionBody is a PartitionRecord body of version v with one replica
// and the given tagged section.
func partitionBody(v int, tags []byte) []byte {
	b := i32(nil, 0)
	b = uuidBytes(b, topicID)
	for range 4 {
		b = uv(b, 2)
		b = i32(b, 1)
	}
	b = i32(b, 1) // leader
	b = i32(b, 0) // leader epoch
	b = i32(b, 0) // partition epoch
	if v >= 1 {
		b = uv(b, 2)
		b = uuidBytes(b, topicID)
	}
	return append(b, tags...)
}

// TestTaggedFields checks what Kafka accepts of tagged fields: any order,
// a repeated tag (the last wins), an unknown tag kept and written back
// after the known ones, and a tag count that reads as a negative Java int
// (no tagged fields).
func TestTaggedFields(t *testing.T) {
	leader := i32(nil, 3)
	isr := i32(uv(nil, 3), 1)
	isr = i32(isr, 2)
	outOfOrder := uv(nil, 3)
	outOfOrder = append(uv(outOfOrder, 1, 4), leader...)
	outOfOrder = append(uv(outOfOrder, 0, uint32(len(isr))), isr...)
	outOfOrder = append(uv(outOfOrder, 5, 1), 1)
	m, _, err := kraftlog.DecodeValue(frame(5, 0, changeBody(outOfOrder)), nil)
	if err != nil {
		t.Fatal(err)
	}
	pc := m.(*kraftlog.PartitionChangeRecord)
	if pc.Leader != 3 || len(pc.Isr) != 2 || pc.LeaderRecoveryState != 1 || pc.Replicas != nil {
		t.Fatalf("out of order: %+v", pc)
	}

	repeated := append(uv(nil, 2, 1, 4), i32(nil, 3)...)
	repeated = append(uv(repeated, 1, 4), i32(nil, 5)...)
	m, _, err = kraftlog.DecodeValue(frame(5, 0, changeBody(repeated)), nil)
	if err != nil || m.(*kraftlog.PartitionChangeRecord).Leader != 5 {
		t.Fatalf("repeated tag: %+v, %v", m, err)
	}

	unknown := append(uv(nil, 1, 20, 3), 0xAA, 0xBB, 0xCC)
	value := frame(2, 0, topicBody(unknown))
	m, v, err := kraftlog.DecodeValue(value, nil)
	if err != nil {
		t.Fatal(err)
	}
	tr := m.(*kraftlog.TopicRecord)
	if len(tr.Unknown) != 1 || tr.Unknown[0].Tag != 20 || !bytes.Equal(tr.Unknown[0].Data, []byte{0xAA, 0xBB, 0xCC}) {
		t.Fatalf("unknown tag: %+v", tr.Unknown)
	}
	if back, err := kraftlog.AppendValue(nil, m, v); err != nil || !bytes.Equal(back, value) {
		t.Fatalf("unknown tag written back as %x (%v), want %x", back, err, value)
	}

	negative := []byte{0xFF, 0xFF, 0xFF, 0xFF, 0x0F} // -1 as a Java int
	if _, _, err := kraftlog.DecodeValue(frame(2, 0, topicBody(negative)), nil); err != nil {
		t.Fatalf("negative tag count: %v; Kafka reads no tagged fields", err)
	}
}

// TestJavaUTF8 checks that malformed UTF-8, which Kafka reads rather than
// refuses, reads as Java's decoder reads it.
func TestJavaUTF8(t *testing.T) {
	tests := []struct{ in, want string }{
		{"abc", "abc"},
		{"a\xffb", "a\uFFFDb"},
		{"a\xc3", "a\uFFFD"},
		{"a\xe2\x82b", "a\uFFFDb"},
		{"\xed\xa0\x80", "\uFFFD"}, // a surrogate: one replacement for three bytes
		{"\xe0\x80\x80", "\uFFFD\uFFFD\uFFFD"},
		{"\xf0\x9f\x98", "\uFFFD"},
		{"\xf5\x80", "\uFFFD\uFFFD"},
	}
	for _, tt := range tests {
		body := uv(nil, uint32(len(tt.in)+1))
		body = append(body, tt.in...)
		body = append(uuidBytes(body, topicID), 0)
		m, _, err := kraftlog.DecodeValue(frame(2, 0, body), nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := m.(*kraftlog.TopicRecord).Name; got != tt.want {
			t.Errorf("%q reads as %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestBadBatches feeds files Kafka refuses, and files that end as a
// running node's segment can end, which are not errors.
func TestBadBatches(t *testing.T) {
	good := oneBatch(frame(20, 0, uv(nil, 0)), frame(20, 0, uv(nil, 0)))
	compressed := bytes.Clone(good)
	binary.BigEndian.PutUint16(compressed[21:], 4)
	fixCRC(compressed)
	badCRC := bytes.Clone(good)
	badCRC[len(badCRC)-1] ^= 1
	magic1 := bytes.Clone(good)
	magic1[16] = 1
	noOp := frame(20, 0, uv(nil, 0))
	tests := []struct {
		name   string
		data   []byte
		reason error
		detail string
	}{
		{"bad CRC", badCRC, kraftlog.ErrCRC, "stored CRC-32C"},
		{"zstd", compressed, kraftlog.ErrCompressed, "zstd"},
		{"magic 1", magic1, kraftlog.ErrCorrupt, "magic 1"},
		{"length below the header", append(binary.BigEndian.AppendUint64(nil, 7), 0, 0, 0, 9, 1, 2, 3, 4, 5, 6, 7, 8, 9), kraftlog.ErrCorrupt, "batch length 9"},
		{"absurd length", append(binary.BigEndian.AppendUint64(nil, 7), 0x7f, 0xff, 0xff, 0xff, 1, 2, 3, 4, 5, 6), kraftlog.ErrCorrupt, "1 GiB"},
		{"no records", rawBatch(0, 0, nil), kraftlog.ErrCorrupt, "holds 0 records"},
		{"fewer records than counted", rawBatch(0, 2, rawRecord([]byte{0}, zz(nil, 0, 0, -1, int64(len(noOp))), noOp, []byte{0})), kraftlog.ErrCorrupt, "record size"},
		{"record with a header", rawBatch(0, 1, rawRecord([]byte{0}, zz(nil, 0, 0, -1, int64(len(noOp))), noOp, []byte{1})), kraftlog.ErrCorrupt, "1 headers"},
		{"timestamp delta", rawBatch(0, 1, rawRecord([]byte{0}, zz(nil, 5, 0, -1, int64(len(noOp))), noOp, []byte{0})), kraftlog.ErrCorrupt, "timestamp delta of 5"},
		{"data record with a key", rawBatch(0, 1, rawRecord([]byte{0}, zz(nil, 0, 0, 1), []byte{9}, zz(nil, int64(len(noOp))), noOp, []byte{0})), kraftlog.ErrCorrupt, "with a key"},
		{"empty value", rawBatch(0, 1, rawRecord([]byte{0}, zz(nil, 0, 0, -1, 0), []byte{0})), kraftlog.ErrCorrupt, "empty value"},
		{"record size varint overflow", rawBatch(0, 1, []byte{0x80, 0x80, 0x80, 0x80, 0x80, 0x01}), kraftlog.ErrCorrupt, "record size"},
		{"negative record size", rawBatch(0, 1, zz(nil, -3)), kraftlog.ErrCorrupt, "non-positive"},
		{"value past the record", rawBatch(0, 1, rawRecord([]byte{0}, zz(nil, 0, 0, -1, 100), noOp, []byte{0})), kraftlog.ErrCorrupt, "runs past the record"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, _, err := decodeFile(tt.data)
			if !errors.Is(err, tt.reason) {
				t.Fatalf("error %v, want %v", err, tt.reason)
			}
			if !strings.Contains(err.Error(), tt.detail) {
				t.Errorf("error %q does not say %q", err, tt.detail)
			}
		})
	}
}

// TestTails checks the ends a running node's segment can have: cut in a
// batch's header, cut in its records, followed by zeros. Each ends the
// file after the last whole batch and is reported, not an error.
func TestTails(t *testing.T) {
	b1 := oneBatch(frame(20, 0, uv(nil, 0)))
	noOp := kraftlog.NewRecord{Value: frame(20, 0, uv(nil, 0))}
	b2 := kraftlog.AppendBatch(nil, kraftlog.NewBatch{BaseOffset: 1, Epoch: 1, Records: []kraftlog.NewRecord{noOp, noOp}})
	two := append(bytes.Clone(b1), b2...)
	tests := []struct {
		name  string
		data  []byte
		kind  kraftlog.TailKind
		bytes int64
	}{
		{"clean", two, kraftlog.TailClean, 0},
		{"cut in the header's first 17 bytes", two[:len(b1)+10], kraftlog.TailTruncated, 10},
		{"cut in the header", two[:len(b1)+40], kraftlog.TailTruncated, 40},
		{"cut in the records", two[:len(two)-3], kraftlog.TailTruncated, int64(len(b2) - 3)},
		{"zeros", append(bytes.Clone(b1), make([]byte, 4096)...), kraftlog.TailZeros, 4096},
		{"a few zeros", append(bytes.Clone(b1), make([]byte, 5)...), kraftlog.TailZeros, 5},
		{"a batch, then zeros", append(bytes.Clone(two), make([]byte, 100)...), kraftlog.TailZeros, 100},
	}
	for _, tt := range tests {
		for _, mode := range []string{"memory", "reader"} {
			t.Run(tt.name+"/"+mode, func(t *testing.T) {
				s := kraftlog.NewScanner(tt.data)
				if mode == "reader" {
					s = kraftlog.NewReaderScanner(bytes.NewReader(tt.data), int64(len(tt.data)))
				}
				n := 0
				for {
					_, err := s.Next()
					if errors.Is(err, io.EOF) {
						break
					}
					if err != nil {
						t.Fatalf("batch %d: %v", n, err)
					}
					n++
				}
				if tail := s.Tail(); tail.Kind != tt.kind || tail.Bytes != tt.bytes {
					t.Fatalf("tail %+v, want %v of %d bytes", tail, tt.kind, tt.bytes)
				}
			})
		}
	}
}

// TestControlTypes checks that ABORT, COMMIT and unknown control types
// are refused, as Kafka's Raft reader refuses them, and that a key of
// another version is read as version 0.
func TestControlTypes(t *testing.T) {
	value := kraftlog.AppendControlValue(nil, &kraftlog.SnapshotFooterRecord{})
	for _, typ := range []int16{0, 1, 7, -1} {
		key := binary.BigEndian.AppendUint16(nil, 0)
		key = binary.BigEndian.AppendUint16(key, uint16(typ))
		if _, err := kraftlog.DecodeControl(key, value, nil); !errors.Is(err, kraftlog.ErrUnknownType) {
			t.Errorf("control type %d: %v, want ErrUnknownType", typ, err)
		}
	}
	if _, err := kraftlog.DecodeControl([]byte{0, 5, 0, 4}, value, nil); err != nil {
		t.Errorf("key version 5: %v; Kafka reads it as version 0", err)
	}
	if _, err := kraftlog.DecodeControl([]byte{0x80, 0, 0, 4}, value, nil); !errors.Is(err, kraftlog.ErrCorrupt) {
		t.Errorf("negative key version: %v, want ErrCorrupt", err)
	}
	if _, err := kraftlog.DecodeControl([]byte{0, 0, 4}, value, nil); !errors.Is(err, kraftlog.ErrCorrupt) {
		t.Errorf("3-byte key: %v, want ErrCorrupt", err)
	}
}
