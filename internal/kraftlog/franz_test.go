package kraftlog_test

import (
	"encoding/binary"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kraftmigration/zkwriter/internal/kraftlog"
	"github.com/kraftmigration/zkwriter/internal/testkit/kraftfixtures"
)

// fixtureFiles lists every segment, snapshot and bootstrap checkpoint of
// the fixtures, and every record file.
func fixtureFiles(t *testing.T) []string {
	t.Helper()
	dir := kraftfixtures.Dir(t)
	var out []string
	for _, pattern := range []string{
		"records/*.log",
		"scenarios/*/__cluster_metadata-0/*.log",
		"scenarios/*/__cluster_metadata-0/*.checkpoint",
		"scenarios/*/bootstrap.checkpoint",
	} {
		m, err := filepath.Glob(filepath.Join(dir, pattern))
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, m...)
	}
	if len(out) == 0 {
		t.Fatalf("no fixture files under %s", dir)
	}
	return out
}

// franzRecords parses data with franz-go's ProcessFetchPartition, control
// records kept, no pools, CRCs checked.
func franzRecords(data []byte) kgo.FetchPartition {
	rp := kmsg.NewFetchResponseTopicPartition()
	rp.RecordBatches = data
	rp.HighWatermark = 1 << 62
	fp, _ := kgo.ProcessFetchPartition(kgo.ProcessFetchPartitionOpts{KeepControlRecords: true, Topic: "__cluster_metadata"}, &rp, kgo.DefaultDecompressor(), nil)
	return fp
}

// TestFranzAgrees reads every fixture file with franz-go as an
// independent parser and checks that it finds the records kraftlog
// finds: the same offsets, leader epochs and timestamps, the same control
// records with the same control types (compared as numbers), no CRC
// error; and that both refuse a copy with one byte flipped.
func TestFranzAgrees(t *testing.T) {
	files, records := 0, 0
	for _, path := range fixtureFiles(t) {
		if strings.Contains(filepath.Base(path), "rejected") {
			continue
		}
		data := mustRead(t, path)
		batches, recs, _, err := decodeFile(data)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		fp := franzRecords(data)
		if fp.Err != nil {
			t.Fatalf("%s: franz-go: %v", path, fp.Err)
		}
		var ours []decodedRecord
		var epochs []int32
		var times []int64
		for i, b := range batches {
			for _, r := range recs[i] {
				ours = append(ours, r)
				epochs = append(epochs, b.PartitionLeaderEpoch)
				times = append(times, b.MaxTimestamp)
			}
		}
		if len(ours) != len(fp.Records) {
			t.Fatalf("%s: %d records, franz-go finds %d", path, len(ours), len(fp.Records))
		}
		for i, fr := range fp.Records {
			o := ours[i]
			switch {
			case fr.Offset != o.offset:
				t.Errorf("%s: record %d at offset %d, franz-go says %d", path, i, o.offset, fr.Offset)
			case fr.Attrs.IsControl() != o.control:
				t.Errorf("%s: offset %d: control %v, franz-go says %v", path, o.offset, o.control, fr.Attrs.IsControl())
			case fr.LeaderEpoch != epochs[i]:
				t.Errorf("%s: offset %d: epoch %d, franz-go says %d", path, o.offset, epochs[i], fr.LeaderEpoch)
			case fr.Timestamp.UnixMilli() != times[i]:
				t.Errorf("%s: offset %d: timestamp %d, franz-go says %d", path, o.offset, times[i], fr.Timestamp.UnixMilli())
			}
			if o.control {
				ourType, err := kraftlog.ParseControlKey(o.key)
				if err != nil || len(fr.Key) < 4 || int16(binary.BigEndian.Uint16(fr.Key[2:])) != int16(ourType) {
					t.Errorf("%s: offset %d: control type %d (%v), franz-go's key %x", path, o.offset, ourType, err, fr.Key)
				}
			}
		}
		files++
		records += len(ours)
		checkFlippedByte(t, path, data)
	}
	t.Logf("franz-go agrees on %d files, %d records, and refuses each with a byte flipped", files, records)
}

// checkFlippedByte flips a byte inside the CRC's cover of the file's
// first batch and checks that both parsers refuse the copy.
func checkFlippedByte(t *testing.T, path string, data []byte) {
	t.Helper()
	bad := append([]byte(nil), data...)
	bad[kraftlog.BatchHeaderSize-1] ^= 0x40 // the record count's low byte
	_, _, _, err := decodeFile(bad)
	if !errors.Is(err, kraftlog.ErrCRC) {
		t.Errorf("%s with a flipped byte: %v, want a CRC mismatch", path, err)
	}
	if fp := franzRecords(bad); fp.Err == nil {
		t.Errorf("%s with a flipped byte: franz-go finds no error", path)
	}
}
