package kraftmeta_test

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kraftmigration/zkwriter/internal/kraftlog"
	"github.com/kraftmigration/zkwriter/migrationzk/kraftmeta"
)

// twoSegments writes a log of two segments and a snapshot ending inside
// a batch of the second: segment 0 holds offsets 0 to 2, segment 3
// holds a batch of offsets 3 to 5 (a leader change, which must not apply
// twice, and topics c and d) and a batch of two NoOps; the snapshot ends
// at 4 (it holds offsets 0 to 3).
func twoSegments(t *testing.T) (logDir, part string) {
	logDir, part = metadataDir(t)
	l := newLog(t)
	l.batch(v0(mvRec(21), topicRec("a", uuid(1)), partitionRec(uuid(1), 0, 1))...)
	l.write(part, 0)
	l2 := newLog(t)
	l2.next = 3
	change := &kraftlog.PartitionChangeRecord{TopicID: uuid(1), Leader: 1, LeaderRecoveryState: -1}
	l2.batch(v0(change, topicRec("c", uuid(3)), topicRec("d", uuid(4)))...)
	l2.batch(v0(noOp(), noOp())...)
	l2.write(part, 3)
	changed := partitionRec(uuid(1), 0, 1)
	changed.LeaderEpoch, changed.PartitionEpoch = 1, 1
	snap := snapshotBytes(t, 1, 1, v0(mvRec(21), topicRec("a", uuid(1)), changed)...)
	writeSnapshot(t, part, 4, 1, snap)
	return logDir, part
}

// TestSnapshotEndingInsideABatch checks that a replay from a snapshot
// whose end offset falls inside a batch applies only the batch's records
// from that offset, as a 3.9 node without KAFKA-17713 can need.
func TestSnapshotEndingInsideABatch(t *testing.T) {
	logDir, part := twoSegments(t)
	r := replay(t, logDir)
	if r.Snapshot == nil || r.Snapshot.EndOffset != 4 {
		t.Fatalf("started from %+v, want the snapshot ending at 4", r.Snapshot)
	}
	if d, _ := r.Partition("a", 0); strings.Join(topicNames(r), ",") != "a,c,d" || r.Offset != 7 || d.State.LeaderEpoch != 1 {
		t.Errorf("topics %v at %d, a-0 %+v; want a, c, d at 7, a-0's leader epoch 1", topicNames(r), r.Offset, d)
	}
	log := replay(t, part, kraftmeta.WithoutSnapshots())
	if string(neutralImage(log)) != string(neutralImage(r)) {
		t.Errorf("the log alone gives another image than the snapshot and the log after it")
	}
	at3 := replay(t, part, kraftmeta.AtOffset(3))
	if at3.Snapshot == nil || len(at3.Image.Topics) != 1 {
		t.Errorf("at 3: from %+v, %d topics; want the snapshot's image", at3.Snapshot, len(at3.Image.Topics))
	}
	at2 := replay(t, part, kraftmeta.AtOffset(2))
	if at2.Snapshot != nil || len(at2.Image.Topics) != 1 {
		t.Errorf("at 2: from %+v, %d topics; want the log's image", at2.Snapshot, len(at2.Image.Topics))
	}
	if at2.After == nil || at2.After.Records != 3 || at2.After.FirstOffset != 3 {
		t.Errorf("after 2: %+v; want records 3 to 5", at2.After)
	}
	if at3.After == nil || at3.After.Records != 2 || at3.After.NoOps != 2 || at3.After.FirstOffset != 4 || at3.After.LastOffset != 5 || at3.After.EndOffset != 7 {
		t.Errorf("after 3: %+v; want records 4 to 5, 2 NoOps, the log ending at 7", at3.After)
	}
}

// TestOffsetsOutOfReach checks a target below the oldest image, and
// beyond the end of the log: each an *OffsetError naming the offsets
// there are.
func TestOffsetsOutOfReach(t *testing.T) {
	_, part := twoSegments(t)
	if err := os.Remove(filepath.Join(part, "00000000000000000000.log")); err != nil {
		t.Fatal(err)
	}
	var oe *kraftmeta.OffsetError
	_, err := kraftmeta.Replay(ctx(), part, kraftmeta.AtOffset(2))
	if !errors.As(err, &oe) || !errors.Is(err, kraftmeta.ErrBelowOldest) || oe.Oldest != 3 || !strings.Contains(err.Error(), "offset 3") {
		t.Errorf("below the snapshot: %v, want ErrBelowOldest naming offset 3", err)
	}
	_, err = kraftmeta.Replay(ctx(), part, kraftmeta.AtOffset(8))
	if !errors.As(err, &oe) || !errors.Is(err, kraftmeta.ErrBeyondEnd) || oe.End != 7 {
		t.Errorf("beyond the end: %v, want ErrBeyondEnd naming offset 7", err)
	}
	if _, err := kraftmeta.Replay(ctx(), part, kraftmeta.WithoutSnapshots()); !errors.Is(err, kraftmeta.ErrBelowOldest) {
		t.Errorf("the log alone, from offset 3: %v, want ErrBelowOldest", err)
	}
}

// TestIgnoredFiles checks that files other than segments and snapshots
// are not read: snapshots being written or deleted, producer-state
// snapshots, indexes.
func TestIgnoredFiles(t *testing.T) {
	logDir, part := twoSegments(t)
	want := neutralImage(replay(t, logDir))
	for _, name := range []string{"00000000000000000009-0000000001.checkpoint.part", "00000000000000000009-0000000001.checkpoint.deleted",
		"00000000000000000009.log.deleted", "00000000000000000003.snapshot", "00000000000000000000.index", "00000000000000000000.timeindex", "leader-epoch-checkpoint"} {
		if err := os.WriteFile(filepath.Join(part, name), []byte("garbage"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if got := neutralImage(replay(t, logDir)); string(got) != string(want) {
		t.Errorf("with other files beside them: another image")
	}
}

// TestVanishingFile injects a file that vanishes between listing and
// reading (a dangling symlink, which lists but does not open): the
// replay lists again, and fails with ErrChanging once it has done so the
// times allowed; when the file reappears meanwhile, it succeeds.
func TestVanishingFile(t *testing.T) {
	_, part := twoSegments(t)
	seg := filepath.Join(part, "00000000000000000003.log")
	hidden := seg + ".hidden"
	if err := os.Rename(seg, hidden); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(part, "gone"), seg); err != nil {
		t.Fatal(err)
	}
	_, err := kraftmeta.Replay(ctx(), part, kraftmeta.WithRelists(2), kraftmeta.WithoutSnapshots())
	if !errors.Is(err, kraftmeta.ErrChanging) {
		t.Fatalf("a file that keeps vanishing: %v, want ErrChanging", err)
	}
	relists := 0
	restore := &hookHandler{fn: func(msg string) {
		if strings.Contains(msg, "listing again") {
			relists++
			os.Remove(seg)
			os.Rename(hidden, seg)
		}
	}}
	r, err := kraftmeta.Replay(ctx(), part, kraftmeta.WithLogger(slog.New(restore)), kraftmeta.WithoutSnapshots())
	if err != nil || relists != 1 || r.Offset != 7 {
		t.Fatalf("a file back after one listing: %v, %d listings again, offset %v", err, relists, r)
	}
}

// hookHandler calls fn with every message logged.
type hookHandler struct{ fn func(string) }

func (h *hookHandler) Enabled(context.Context, slog.Level) bool { return true }
func (h *hookHandler) Handle(_ context.Context, r slog.Record) error {
	h.fn(r.Message)
	return nil
}
func (h *hookHandler) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h *hookHandler) WithGroup(string) slog.Handler      { return h }

// TestLiveTails checks the tails a running node's last segment can have:
// cut inside a batch or followed by zeros, each reported in Files, not an
// error. A snapshot cut short is an error: snapshots are written whole.
func TestLiveTails(t *testing.T) {
	for name, mutate := range map[string]func([]byte) []byte{
		"truncated": func(b []byte) []byte { return b[:len(b)-5] },
		"zeros":     func(b []byte) []byte { return append(b, make([]byte, 1000)...) },
	} {
		_, part := twoSegments(t)
		seg := filepath.Join(part, "00000000000000000003.log")
		data, _ := os.ReadFile(seg)
		if err := os.WriteFile(seg, mutate(data), 0o644); err != nil {
			t.Fatal(err)
		}
		r := replay(t, part)
		last := r.Files[len(r.Files)-1]
		if last.Tail.Kind != name || r.Offset != map[string]int64{"truncated": 5, "zeros": 7}[name] {
			t.Errorf("%s: tail %+v, offset %d", name, last.Tail, r.Offset)
		}
	}
	_, part := twoSegments(t)
	snap := filepath.Join(part, "00000000000000000004-0000000001.checkpoint")
	data, _ := os.ReadFile(snap)
	if err := os.WriteFile(snap, data[:len(data)-10], 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := kraftmeta.Replay(ctx(), part); !errors.Is(err, kraftmeta.ErrCorrupt) || !strings.Contains(err.Error(), "SnapshotFooter") {
		t.Errorf("a snapshot cut short: %v, want ErrCorrupt for its missing footer", err)
	}
}

// TestBadFiles corrupts a segment in the ways the reader must name: a
// flipped byte (CRC), a compressed batch, an unknown record type, a
// record of an unknown version, a gap in the offsets. Each is a
// *FileError naming the file and the offset.
func TestBadFiles(t *testing.T) {
	seg := "00000000000000000003.log"
	tests := []struct {
		name   string
		mutate func(part string)
		reason error
		offset int64
	}{
		{"flipped byte", func(part string) { flip(t, filepath.Join(part, seg), 70) }, kraftmeta.ErrCRC, 3},
		{"unknown type", func(part string) { rewrite(t, part, seg, 3, kraftlog.NewRecord{Value: []byte{1, 30, 0, 0}}) }, kraftmeta.ErrUnknownType, 3},
		{"unknown version", func(part string) { rewrite(t, part, seg, 3, kraftlog.NewRecord{Value: []byte{1, 2, 1, 0}}) }, kraftmeta.ErrUnknownVersion, 3},
		{"frame version 0", func(part string) { rewrite(t, part, seg, 3, kraftlog.NewRecord{Value: []byte{0, 20, 0, 0}}) }, kraftmeta.ErrFrameVersion, 3},
		{"trailing bytes", func(part string) { rewrite(t, part, seg, 3, kraftlog.NewRecord{Value: []byte{1, 20, 0, 0, 7}}) }, kraftmeta.ErrTrailingBytes, 3},
		{"gap", func(part string) { rewrite(t, part, seg, 4, kraftlog.NewRecord{Value: []byte{1, 20, 0, 0}}) }, kraftmeta.ErrCorrupt, 4},
		{"compressed", func(part string) { compress(t, filepath.Join(part, seg)) }, kraftmeta.ErrCompressed, 3},
	}
	for _, tt := range tests {
		_, part := twoSegments(t)
		tt.mutate(part)
		_, err := kraftmeta.Replay(ctx(), part, kraftmeta.WithoutSnapshots())
		var fe *kraftmeta.FileError
		if !errors.Is(err, tt.reason) || !errors.As(err, &fe) || filepath.Base(fe.File) != seg || fe.Offset != tt.offset {
			t.Errorf("%s: %v, want %v in %s at offset %d", tt.name, err, tt.reason, seg, tt.offset)
		}
	}
}

func flip(t *testing.T, path string, pos int) {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	data[pos] ^= 0x20
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// rewrite replaces a segment by one batch of r at base.
func rewrite(t *testing.T, part, seg string, base int64, r kraftlog.NewRecord) {
	data := kraftlog.AppendBatch(nil, kraftlog.NewBatch{BaseOffset: base, Epoch: 1, Records: []kraftlog.NewRecord{r}})
	if err := os.WriteFile(filepath.Join(part, seg), data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// compress marks the first batch of path as gzip, its CRC made right.
func compress(t *testing.T, path string) {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	data[22] |= 1
	s := kraftlog.NewScanner(data)
	if _, err := s.Next(); !errors.Is(err, kraftlog.ErrCRC) {
		t.Fatalf("compress: %v", err)
	}
	fixed := kraftlog.AppendBatch(nil, kraftlog.NewBatch{BaseOffset: 3, Epoch: 1, Records: []kraftlog.NewRecord{{Value: []byte{1, 20, 0, 0}}}})
	fixed[22] |= 1
	if err := os.WriteFile(path, kraftlog.FixCRC(fixed), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestMetaProperties checks that the cluster id comes from
// meta.properties beside __cluster_metadata-0, whichever of the two
// directories is given.
func TestMetaProperties(t *testing.T) {
	logDir, part := twoSegments(t)
	props := "#Written by Kafka\nversion=1\nnode.id=3000\ncluster.id=MkU3OEVBNTcwNTJENDM2Qk\ndirectory.id=AAAAAAAAAAAAAAAAAAAAAA\n"
	if err := os.WriteFile(filepath.Join(logDir, "meta.properties"), []byte(props), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{logDir, part} {
		if r := replay(t, path); r.ClusterID != "MkU3OEVBNTcwNTJENDM2Qk" {
			t.Errorf("%s: cluster id %q", path, r.ClusterID)
		}
		d, err := kraftmeta.Inspect(ctx(), path)
		if err != nil || d.Meta.NodeID != "3000" {
			t.Errorf("%s: %v, %+v", path, err, d)
		}
	}
}

// TestCancelledAndEmpty checks a cancelled context, a directory without
// metadata and a file that is neither a segment nor a snapshot.
func TestCancelledAndEmpty(t *testing.T) {
	logDir, _ := twoSegments(t)
	cancelled, cancel := context.WithCancel(ctx())
	cancel()
	if _, err := kraftmeta.Replay(cancelled, logDir); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
	if _, err := kraftmeta.Inspect(cancelled, logDir); !errors.Is(err, context.Canceled) {
		t.Errorf("Inspect cancelled: %v", err)
	}
	empty := t.TempDir()
	if _, err := kraftmeta.Replay(ctx(), empty); !errors.Is(err, kraftmeta.ErrNoMetadata) {
		t.Errorf("empty directory: %v", err)
	}
	other := filepath.Join(empty, "quorum-state")
	if err := os.WriteFile(other, []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := kraftmeta.Replay(ctx(), other); !errors.Is(err, kraftmeta.ErrNoMetadata) {
		t.Errorf("a file of another kind: %v", err)
	}
}

// TestDynamicQuorumSnapshot composes what the fixtures lack: a snapshot
// of a dynamic quorum (kraft.version 1), whose header batch also holds
// KRaftVersion and Voters control records, and a log holding them too.
// They are read and skipped.
func TestDynamicQuorumSnapshot(t *testing.T) {
	logDir, part := metadataDir(t)
	control := []kraftlog.NewRecord{
		kraftlog.ControlRecord(&kraftlog.SnapshotHeaderRecord{LastContainedLogTimestamp: 5}),
		kraftlog.ControlRecord(&kraftlog.KRaftVersionRecord{KRaftVersion: 1}),
		kraftlog.ControlRecord(&kraftlog.VotersRecord{Voters: []kraftlog.VoterNode{{VoterID: 3000, VoterDirectoryID: uuid(9),
			Endpoints: []kraftlog.VoterEndpoint{{Name: "CONTROLLER", Host: "c0", Port: 9093}}, KRaftVersionFeature: kraftlog.VersionRange{MaxSupportedVersion: 1}}}}),
	}
	snap := kraftlog.AppendBatch(nil, kraftlog.NewBatch{Epoch: 1, Timestamp: 5, Control: true, Records: control})
	data, err := kraftlog.MetadataRecord(mvRec(21), 0)
	if err != nil {
		t.Fatal(err)
	}
	snap = kraftlog.AppendBatch(snap, kraftlog.NewBatch{BaseOffset: 3, Epoch: 1, Timestamp: 5, Records: []kraftlog.NewRecord{data}})
	snap = kraftlog.AppendBatch(snap, kraftlog.NewBatch{BaseOffset: 4, Epoch: 1, Timestamp: 5, Control: true,
		Records: []kraftlog.NewRecord{kraftlog.ControlRecord(&kraftlog.SnapshotFooterRecord{})}})
	writeSnapshot(t, part, 10, 1, snap)
	l := newLog(t)
	l.next = 10
	l.buf = kraftlog.AppendBatch(nil, kraftlog.NewBatch{BaseOffset: 10, Epoch: 1, Timestamp: 6, Control: true, Records: control[1:]})
	l.next = 12
	l.batch(v0(topicRec("a", uuid(1)))...)
	l.write(part, 10)
	r := replay(t, logDir)
	if r.Offset != 12 || r.MetadataVersion != 21 || len(r.Image.Topics) != 1 {
		t.Errorf("offset %d, %s, %d topics", r.Offset, r.MetadataVersion, len(r.Image.Topics))
	}
}
