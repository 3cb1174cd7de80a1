package kraftlog

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/kraftmigration/zkwriter/internal/testkit/kraftfixtures"
)

// TestSegmentWriterMatchesKafka writes the first two batches of the
// fixtures' migration-basic log, controller 3000's election in epoch 1
// and the bootstrap transaction, and finds the bytes Kafka 3.9 wrote.
// Fault: none.
func TestSegmentWriterMatchesKafka(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(kraftfixtures.Dir(t), "scenarios", "migration-basic", "__cluster_metadata-0", "00000000000000000000.log"))
	if err != nil {
		t.Fatal(err)
	}
	s := &SegmentWriter{Timestamp: 1732093203000}
	s.LeaderChange(1, 3000, []int32{3000, 3001, 3002}, []int32{3000, 3001})
	s.Timestamp = 1732093203200
	name := "Bootstrap records"
	if err := s.Batch(&BeginTransactionRecord{Name: &name}, &FeatureLevelRecord{Name: "metadata.version", FeatureLevel: 21},
		&ZkMigrationStateRecord{ZkMigrationState: 2}, &EndTransactionRecord{}); err != nil {
		t.Fatal(err)
	}
	if s.Next != 5 || s.Epoch != 1 || !bytes.HasPrefix(data, s.Bytes) {
		n := min(len(s.Bytes), len(data))
		t.Fatalf("next %d, epoch %d; wrote\n%x\nKafka wrote\n%x", s.Next, s.Epoch, s.Bytes, data[:n])
	}
}
