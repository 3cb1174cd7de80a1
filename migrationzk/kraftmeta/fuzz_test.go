package kraftmeta_test

import (
	"bytes"
	"encoding/binary"
	"testing"

	"github.com/kraftmigration/zkwriter/internal/kraftlog"
	"github.com/kraftmigration/zkwriter/migrationzk/kraftmeta"
)

// fuzzLog returns a segment composed in Go that exercises the replay:
// topics, partitions and their changes, configs, a committed and an
// aborted transaction, a leader change, NoOps.
func fuzzLog(tb testing.TB) []byte {
	l := newLog(tb)
	l.batch(v0(mvRec(21), migrationRec(2))...)
	l.batch(v0(beginRec("ZK Migration"), topicRec("a", uuid(1)), partitionRec(uuid(1), 0, 1, 2), partitionRec(uuid(1), 1, 2, 1))...)
	l.batch(v0(configRec(2, "a", "retention.ms", str("1")), migrationRec(1), &kraftlog.EndTransactionRecord{})...)
	l.leader(3001)
	l.batch(v0(&kraftlog.PartitionChangeRecord{TopicID: uuid(1), Leader: 2, Isr: []int32{2}, LeaderRecoveryState: -1}, noOp())...)
	l.batch(v0(beginRec("b"), topicRec("b", uuid(2)))...)
	l.batch(v0(&kraftlog.AbortTransactionRecord{}, &kraftlog.RemoveTopicRecord{TopicID: uuid(1)})...)
	return l.buf
}

// fixCRCs sets the CRC of every whole batch of data, so that the fuzzer
// reaches what lies behind them.
func fixCRCs(data []byte) []byte {
	for pos := 0; len(data)-pos >= kraftlog.BatchHeaderSize; {
		n := int(int32(binary.BigEndian.Uint32(data[pos+8:]))) + 12
		if n < kraftlog.BatchHeaderSize || n > len(data)-pos {
			break
		}
		kraftlog.FixCRC(data[pos:])
		pos += n
	}
	return data
}

// FuzzReplayBytes replays fuzzed segments and snapshots, their CRCs made
// right or not, to the end or to an offset: the replay must never panic,
// and what it returns must be an image or an error. Seeds: a composed
// segment and snapshot, their truncated tails, a flipped byte, an absurd
// length, a varint that overflows.
func FuzzReplayBytes(f *testing.F) {
	seg := fuzzLog(f)
	snap := snapshotBytes(f, 1, 1, v0(mvRec(21), topicRec("a", uuid(1)), partitionRec(uuid(1), 0, 1), configRec(4, "", "k", str("v")))...)
	for _, data := range [][]byte{seg, snap} {
		f.Add(data, false, false, int64(-1))
		f.Add(data, true, true, int64(3))
		for _, cut := range []int{10, 61, len(data) / 2, len(data) - 1} {
			f.Add(data[:cut], false, false, int64(-1))
		}
		flipped := bytes.Clone(data)
		flipped[len(flipped)/3] ^= 0x08
		f.Add(flipped, true, false, int64(-1))
		absurd := bytes.Clone(data)
		copy(absurd[kraftlog.BatchHeaderSize:], []byte{0xfe, 0xff, 0xff, 0xff, 0x0f})
		f.Add(absurd, true, false, int64(5))
		overflow := bytes.Clone(data)
		copy(overflow[kraftlog.BatchHeaderSize+4:], []byte{0x81, 0x80, 0x80, 0x80, 0x80, 0x01})
		f.Add(overflow, true, false, int64(-1))
	}
	f.Fuzz(func(t *testing.T, data []byte, fix, snapshot bool, target int64) {
		if fix {
			data = fixCRCs(bytes.Clone(data))
		}
		name := "00000000000000000000.log"
		if snapshot {
			name = "00000000000000000010-0000000001.checkpoint"
		}
		var opts []kraftmeta.Option
		if target >= 0 {
			opts = append(opts, kraftmeta.AtOffset(target))
		}
		r, err := kraftmeta.ReplayBytes(ctx(), name, data, opts...)
		if (r == nil) == (err == nil) {
			t.Fatalf("result %v and error %v", r, err)
		}
		if r != nil {
			neutralImage(r)
		}
	})
}
