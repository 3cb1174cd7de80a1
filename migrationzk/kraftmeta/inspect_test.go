package kraftmeta_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/kraftmigration/zkwriter/migrationzk/kraftmeta"
)

// manifest is what a scenario's manifest.json says of its files.
type manifest struct {
	Segments []struct {
		File                    string
		Bytes, TrailingBytes    int64
		Batches                 int
		FirstOffset, LastOffset int64
		Epochs                  []int32
	}
	Snapshots []struct {
		File                string
		SnapshotEndOffset   int64
		SnapshotEpoch       int32
		LastContainedOffset int64
	}
	LeaderEpochs []struct {
		Epoch       int32
		LeaderID    int32 `json:"leaderId"`
		StartOffset int64
	}
	FinalImage struct {
		Offset           int64
		Epoch            int32
		MetadataVersion  string
		ZkMigrationState string
	}
}

func readManifest(t *testing.T, dir string) manifest {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m manifest
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// TestInspectScenarios checks what Inspect says of every scenario's
// directory against its manifest: segments with their offsets, batches,
// epochs and trailing bytes, snapshots, the last leader; and what a
// replay to the end reports.
func TestInspectScenarios(t *testing.T) {
	for _, dir := range scenarios(t) {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			m := readManifest(t, dir)
			d, err := kraftmeta.Inspect(context.Background(), dir)
			if err != nil {
				t.Fatal(err)
			}
			checkSegments(t, d, m)
			if len(d.Snapshots) != len(m.Snapshots) {
				t.Fatalf("%d snapshots, manifest says %d", len(d.Snapshots), len(m.Snapshots))
			}
			for i, s := range m.Snapshots {
				got := d.Snapshots[i]
				if filepath.Base(got.Path) != s.File || got.EndOffset != s.SnapshotEndOffset || got.Epoch != s.SnapshotEpoch || got.LastContainedOffset() != s.LastContainedOffset {
					t.Errorf("snapshot %+v, manifest says %+v", got, s)
				}
			}
			if n := len(m.LeaderEpochs); n > 0 {
				last := m.LeaderEpochs[n-1]
				if l := d.LastLeader; l == nil || l.Epoch != last.Epoch || l.LeaderID != last.LeaderID || l.Offset != last.StartOffset {
					t.Errorf("last leader %+v, manifest says %+v", d.LastLeader, last)
				}
				if d.QuorumState == nil || d.QuorumState.LeaderEpoch != last.Epoch || d.HighestEpoch != last.Epoch {
					t.Errorf("quorum state %+v, highest epoch %d; manifest's last epoch %d", d.QuorumState, d.HighestEpoch, last.Epoch)
				}
			}
			r := replay(t, dir)
			if r.Offset != m.FinalImage.Offset || r.Epoch != m.FinalImage.Epoch || r.MetadataVersion.String() != m.FinalImage.MetadataVersion || r.MigrationState.String() != m.FinalImage.ZkMigrationState {
				t.Errorf("replay reached %d epoch %d, %s, %s; manifest's final image %+v", r.Offset, r.Epoch, r.MetadataVersion, r.MigrationState, m.FinalImage)
			}
		})
	}
}

func checkSegments(t *testing.T, d *kraftmeta.Directory, m manifest) {
	t.Helper()
	if len(d.Segments) != len(m.Segments) {
		t.Fatalf("%d segments, manifest says %d", len(d.Segments), len(m.Segments))
	}
	for i, s := range m.Segments {
		got := d.Segments[i]
		if filepath.Base(got.Path) != s.File || got.FirstOffset != s.FirstOffset || got.LastOffset != s.LastOffset || got.Batches != s.Batches || got.Size != s.Bytes {
			t.Errorf("segment %+v, manifest says %+v", got, s)
		}
		if got.FirstEpoch != s.Epochs[0] || got.LastEpoch != s.Epochs[len(s.Epochs)-1] {
			t.Errorf("%s: epochs %d to %d, manifest says %v", s.File, got.FirstEpoch, got.LastEpoch, s.Epochs)
		}
		if got.Tail.Bytes != s.TrailingBytes || (s.TrailingBytes == 0) != (got.Tail.Kind == "clean") {
			t.Errorf("%s: tail %+v, manifest says %d trailing bytes", s.File, got.Tail, s.TrailingBytes)
		}
	}
	if n := len(m.Segments); n > 0 && d.LogEndOffset != m.Segments[n-1].LastOffset+1 {
		t.Errorf("log end offset %d, manifest's last offset %d", d.LogEndOffset, m.Segments[n-1].LastOffset)
	}
}
