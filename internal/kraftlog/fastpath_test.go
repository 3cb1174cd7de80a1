package kraftlog

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"reflect"
	"testing"
)

// The shortcuts of the common shapes (fastRecord, PartitionHead, the
// records CountPartitionsAhead remembers) must read exactly what the
// general way reads, and nothing it refuses.

var fastTopic = Uuid{MostSignificantBits: 0x0123456789abcdef, LeastSignificantBits: 0x0fedcba987654321}

// fastSeeds returns values of PartitionRecords of every version, of the
// common shape and not, and of another type.
func fastSeeds(tb testing.TB) [][]byte {
	tb.Helper()
	dir := Uuid{MostSignificantBits: 7}
	recs := []struct {
		m Message
		v int16
	}{
		{&PartitionRecord{TopicID: fastTopic, Replicas: []int32{1, 2, 3}, Isr: []int32{1, 2, 3}, Leader: 1, LeaderEpoch: 4, PartitionEpoch: 7}, 0},
		{&PartitionRecord{PartitionID: 9, TopicID: fastTopic, Replicas: []int32{1, 2, 3}, Isr: []int32{2}, Leader: 2, Directories: make([]Uuid, 3)}, 1},
		{&PartitionRecord{TopicID: fastTopic, Replicas: []int32{1, 2}, Isr: []int32{1}, RemovingReplicas: []int32{2}, AddingReplicas: []int32{3}, Directories: []Uuid{dir, {}}}, 1},
		{&PartitionRecord{TopicID: fastTopic, Replicas: []int32{1, 2, 3}, Isr: []int32{1}, Directories: []Uuid{{}, {}, {LeastSignificantBits: 1}}}, 1},
		{&PartitionRecord{TopicID: fastTopic, Replicas: []int32{1}, Isr: []int32{1}, Directories: []Uuid{{}}, EligibleLeaderReplicas: []int32{}, LastKnownElr: []int32{1}}, 2},
		{&PartitionRecord{TopicID: fastTopic, Replicas: make([]int32, 130), Isr: []int32{1}}, 0},
		{&PartitionRecord{TopicID: fastTopic, LeaderRecoveryState: 1}, 0},
		{&TopicRecord{Name: "orders", TopicID: fastTopic}, 0},
	}
	var out [][]byte
	for _, r := range recs {
		v, err := AppendValue(nil, r.m, r.v)
		if err != nil {
			tb.Fatal(err)
		}
		out = append(out, v)
	}
	return out
}

// FuzzPartitionHead reads PartitionRecord bodies the common shape's way
// and the general way: whatever the first reads, the second reads to the
// same record, and ReadPartitionHead reads only records whose
// directories are all MIGRATING.
func FuzzPartitionHead(f *testing.F) {
	for _, v := range fastSeeds(f) {
		f.Add(v[3:], v[2])
	}
	f.Fuzz(func(t *testing.T, body []byte, version byte) {
		v := int16(version % 3)
		var h PartitionHead
		if !h.read(body, v, false, NewAlloc()) {
			return
		}
		fast := h.record(body, v, NewAlloc())
		var general PartitionRecord
		r := reader{b: body}
		general.decodeFields(&r, v)
		r.end(PartitionRecordType)
		if r.err != nil {
			t.Fatalf("the common shape reads what the general way refuses: %v", r.err)
		}
		if !reflect.DeepEqual(fast, general) {
			t.Fatalf("the common shape reads\n%+v\nthe general way\n%+v", fast, general)
		}
		var head PartitionHead
		f := Frame{Type: PartitionRecordType, Version: v, Body: body}
		if !f.ReadPartitionHead(&head, NewAlloc()) {
			if allMigrating(general.Directories) {
				t.Fatalf("ReadPartitionHead refuses directories all MIGRATING: %v", general.Directories)
			}
			return
		}
		removing, adding := head.Reassignment()
		got := PartitionRecord{PartitionID: head.PartitionID, TopicID: head.TopicID, Replicas: head.Replicas(), Isr: head.Isr(),
			RemovingReplicas: nonNil(removing), AddingReplicas: nonNil(adding), Leader: head.Leader, LeaderEpoch: head.LeaderEpoch,
			PartitionEpoch: head.PartitionEpoch, Directories: general.Directories}
		if removing != nil && len(removing) == 0 || adding != nil && len(adding) == 0 {
			t.Fatalf("Reassignment returns empty lists, not nil: %v %v", removing, adding)
		}
		if !reflect.DeepEqual(got, general) || head.Directories != len(general.Directories) && v >= 1 || !allMigrating(general.Directories) {
			t.Fatalf("ReadPartitionHead reads\n%+v (%d directories)\nthe general way\n%+v", got, head.Directories, general)
		}
	})
}

func allMigrating(dirs []Uuid) bool {
	for _, d := range dirs {
		if !d.IsZero() {
			return false
		}
	}
	return true
}

// FuzzFastRecord reads records the common shape's way and the general
// way: whatever the first reads, the second reads to the same value and
// end. The records are given as a batch's record bytes.
func FuzzFastRecord(f *testing.F) {
	for _, v := range fastSeeds(f) {
		b := AppendBatch(nil, NewBatch{Records: []NewRecord{{Value: v}, {Value: v}}})
		f.Add(b[BatchHeaderSize:])
	}
	f.Add([]byte{0x0e, 0, 0, 0x80, 0x01, 1, 2, 9, 0}) // a two-byte offset delta
	f.Add([]byte{0x0e, 0, 0, 0, 1, 0x81, 0x00, 9, 0}) // a value size in two bytes, not the shortest
	f.Add([]byte{0x0e, 0, 0, 0, 1, 2, 9, 1})          // a header
	f.Add([]byte{0x10, 0, 0, 0, 1, 2, 9, 7, 0})       // a byte between the value and the header count
	f.Fuzz(func(t *testing.T, records []byte) {
		b := append(make([]byte, BatchHeaderSize), records...)
		batch := Batch{BatchHeader: BatchHeader{Length: int32(len(b) - logOverhead), RecordCount: 1 << 20}, Bytes: b}
		for off := BatchHeaderSize; off < len(b); {
			value, end, ok := fastRecord(b, off)
			if !ok {
				return
			}
			rs := Records{batch: batch, off: off}
			rec, err := rs.next()
			if err != nil || rec.Key != nil || !bytes.Equal(rec.Value, value) || cap(value) != len(value) || rs.off != end {
				t.Fatalf("at %d the common shape reads %x to %d; the general way %x to %d, %v", off, value, end, rec.Value, rs.off, err)
			}
			off = end
		}
	})
}

// FuzzCountPartitionsAhead reads a batch's records with Next alone, each
// PartitionRecord then read by ReadPartitionHead, and with
// CountPartitionsAhead before each record, the ones it counted read by
// NextPartitionHead: the records and the heads read are the same.
func FuzzCountPartitionsAhead(f *testing.F) {
	seeds := fastSeeds(f)
	f.Add(seeds[7], seeds[1], seeds[0], seeds[3], false)
	f.Add(seeds[1], seeds[1], seeds[7], seeds[1], false)
	f.Add(seeds[1], seeds[2], seeds[1], seeds[3], false)
	f.Add(seeds[1], seeds[1], seeds[1], seeds[1], true)
	f.Fuzz(func(t *testing.T, a, b, c, d []byte, control bool) {
		nb := NewBatch{Control: control}
		for _, v := range [][]byte{a, b, c, d} {
			nb.Records = append(nb.Records, NewRecord{Value: v})
		}
		s := NewScanner(AppendBatch(nil, nb))
		batch, err := s.Next()
		if err != nil {
			return
		}
		var plain []string
		for rs := batch.Records(); ; {
			r, ok, err := rs.Next()
			plain = append(plain, readString(r, ok, err))
			if !ok || err != nil {
				break
			}
		}
		var counted []string
		rs := batch.Records()
		for i := 0; ; i++ {
			switch i % 3 {
			case 0:
				rs.CountPartitionsAhead(fastTopic)
			case 1:
				rs.CountPartitionsAhead(Uuid{})
			}
			var h PartitionHead
			if offset, pos, ok := rs.NextPartitionHead(&h, NewAlloc()); ok {
				counted = append(counted, headString(offset, pos, &h))
				continue
			}
			r, ok, err := rs.Next()
			counted = append(counted, readString(r, ok, err))
			if !ok || err != nil {
				break
			}
		}
		if !reflect.DeepEqual(plain, counted) {
			t.Fatalf("Next alone reads\n%q\nwith CountPartitionsAhead\n%q", plain, counted)
		}
	})
}

// readString describes what Next returned, and the head ReadPartitionHead
// reads of it.
func readString(r Record, ok bool, err error) string {
	if err != nil || !ok {
		return recordString(r, ok, err)
	}
	var h PartitionHead
	if f, err := ParseFrame(r.Value); err == nil && f.ReadPartitionHead(&h, NewAlloc()) {
		return headString(r.Offset, r.Pos, &h)
	}
	return recordString(r, ok, err)
}

func headString(offset, pos int64, h *PartitionHead) string {
	removing, adding := h.Reassignment()
	return fmt.Sprintf("head %d %d %d %v %v %v %v %v %d %d %d %d", offset, pos, h.PartitionID, h.TopicID, h.Replicas(), h.Isr(), removing, adding,
		h.Leader, h.LeaderEpoch, h.PartitionEpoch, h.Directories)
}

func recordString(r Record, ok bool, err error) string {
	if err != nil {
		return err.Error()
	}
	return string(binary.AppendVarint(binary.AppendVarint(nil, r.Offset), r.Pos)) + string(r.Key) + "|" + string(r.Value) + map[bool]string{true: "ok"}[ok]
}
