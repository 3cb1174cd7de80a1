package kraftmeta_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/kraftmigration/zkwriter/internal/kraftlog"
	"github.com/kraftmigration/zkwriter/migrationzk/kraftmeta"
	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

// Metadata directories composed in Go from the schemas, for the cases
// the fixtures lack.

// rec is a metadata record and its version.
type rec struct {
	m kraftlog.Message
	v int16
}

// v0 returns records at version 0.
func v0(ms ...kraftlog.Message) []rec {
	out := make([]rec, len(ms))
	for i, m := range ms {
		out[i] = rec{m, 0}
	}
	return out
}

// logBuilder writes a log's batches, offsets following each other.
type logBuilder struct {
	t     testing.TB
	buf   []byte
	next  int64
	epoch int32
	ts    int64
}

func newLog(t testing.TB) *logBuilder {
	return &logBuilder{t: t, epoch: 1, ts: 1732093200000}
}

// batch appends a batch of records and returns its last offset.
func (b *logBuilder) batch(recs ...rec) int64 {
	b.t.Helper()
	nb := kraftlog.NewBatch{BaseOffset: b.next, Epoch: b.epoch, Timestamp: b.ts}
	for _, r := range recs {
		nr, err := kraftlog.MetadataRecord(r.m, r.v)
		if err != nil {
			b.t.Fatal(err)
		}
		nb.Records = append(nb.Records, nr)
	}
	b.buf = kraftlog.AppendBatch(b.buf, nb)
	b.next += int64(len(recs))
	b.ts += 500
	return b.next - 1
}

// leader appends the LEADER_CHANGE batch of a new epoch and returns its
// offset.
func (b *logBuilder) leader(id int32) int64 {
	b.epoch++
	lc := kraftlog.ControlRecord(&kraftlog.LeaderChangeMessage{LeaderID: id, Voters: []kraftlog.Voter{{VoterID: id}}})
	b.buf = kraftlog.AppendBatch(b.buf, kraftlog.NewBatch{BaseOffset: b.next, Epoch: b.epoch, Timestamp: b.ts, Control: true, Records: []kraftlog.NewRecord{lc}})
	b.next++
	return b.next - 1
}

// write writes the log as a segment of dir starting at base.
func (b *logBuilder) write(dir string, base int64) string {
	b.t.Helper()
	path := filepath.Join(dir, fmt.Sprintf("%020d.log", base))
	if err := os.WriteFile(path, b.buf, 0o644); err != nil {
		b.t.Fatal(err)
	}
	return path
}

// snapshotBytes returns a snapshot of records: its header, the records
// in one batch, its footer.
func snapshotBytes(t testing.TB, epoch int32, ts int64, recs ...rec) []byte {
	t.Helper()
	header := kraftlog.ControlRecord(&kraftlog.SnapshotHeaderRecord{LastContainedLogTimestamp: ts})
	out := kraftlog.AppendBatch(nil, kraftlog.NewBatch{Epoch: epoch, Timestamp: ts, Control: true, Records: []kraftlog.NewRecord{header}})
	data := kraftlog.NewBatch{BaseOffset: 1, Epoch: epoch, Timestamp: ts}
	for _, r := range recs {
		nr, err := kraftlog.MetadataRecord(r.m, r.v)
		if err != nil {
			t.Fatal(err)
		}
		data.Records = append(data.Records, nr)
	}
	out = kraftlog.AppendBatch(out, data)
	footer := kraftlog.ControlRecord(&kraftlog.SnapshotFooterRecord{})
	return kraftlog.AppendBatch(out, kraftlog.NewBatch{BaseOffset: int64(1 + len(recs)), Epoch: epoch, Timestamp: ts, Control: true, Records: []kraftlog.NewRecord{footer}})
}

// writeSnapshot writes a snapshot file of dir ending at end.
func writeSnapshot(t testing.TB, dir string, end int64, epoch int32, data []byte) string {
	t.Helper()
	path := filepath.Join(dir, fmt.Sprintf("%020d-%010d.checkpoint", end, epoch))
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// metadataDir returns a new Kafka log directory and its
// __cluster_metadata-0.
func metadataDir(t testing.TB) (logDir, part string) {
	t.Helper()
	logDir = t.TempDir()
	part = filepath.Join(logDir, kraftmeta.MetadataPartitionDir)
	if err := os.Mkdir(part, 0o755); err != nil {
		t.Fatal(err)
	}
	return logDir, part
}

// Records of the composed logs.

func uuid(n int64) znode.Uuid {
	return znode.Uuid{MostSignificantBits: 0x1000 + n, LeastSignificantBits: n}
}

func str(s string) *string { return &s }

func topicRec(name string, id znode.Uuid) *kraftlog.TopicRecord {
	return &kraftlog.TopicRecord{Name: name, TopicID: id}
}

func partitionRec(id znode.Uuid, p int32, replicas ...int32) *kraftlog.PartitionRecord {
	return &kraftlog.PartitionRecord{PartitionID: p, TopicID: id, Replicas: replicas, Isr: replicas, Leader: replicas[0], LeaderEpoch: 0, PartitionEpoch: 0}
}

func configRec(typ int8, resource, key string, value *string) *kraftlog.ConfigRecord {
	return &kraftlog.ConfigRecord{ResourceType: typ, ResourceName: resource, Name: key, Value: value}
}

func scramRec(user string, mech int8) *kraftlog.UserScramCredentialRecord {
	return &kraftlog.UserScramCredentialRecord{Name: user, Mechanism: mech, Salt: []byte("salt-" + user), StoredKey: []byte("sk"), ServerKey: []byte("svk"), Iterations: 4096}
}

func beginRec(name string) *kraftlog.BeginTransactionRecord {
	return &kraftlog.BeginTransactionRecord{Name: &name}
}

func mvRec(level int16) *kraftlog.FeatureLevelRecord {
	return &kraftlog.FeatureLevelRecord{Name: "metadata.version", FeatureLevel: level}
}

func migrationRec(state int8) *kraftlog.ZkMigrationStateRecord {
	return &kraftlog.ZkMigrationStateRecord{ZkMigrationState: state}
}

func noOp() *kraftlog.NoOpRecord { return &kraftlog.NoOpRecord{} }

func ctx() context.Context { return context.Background() }
