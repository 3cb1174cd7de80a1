package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kraftmigration/zkwriter/internal/kraftlog"
	"github.com/kraftmigration/zkwriter/internal/testkit/kraftfixtures"
	"github.com/kraftmigration/zkwriter/migrationzk/kraftmeta"
	"github.com/kraftmigration/zkwriter/migrationzk/zktest"
	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

// testClusterID is the id seedKafka writes in /cluster/id.
const testClusterID = "q1Sh-9_ISia_zwGINzRvyQ"

// scenario returns the directory of a scenario of the KRaft fixtures;
// the test is skipped where they are absent (failed under
// ZKWRITER_REQUIRE_KRAFT_FIXTURES=1).
func scenario(t *testing.T, name string) string {
	t.Helper()
	return filepath.Join(kraftfixtures.Dir(t), "scenarios", name)
}

// copyScenario copies the log directory of a scenario of the fixtures
// into a new directory, to be changed, and returns it.
func copyScenario(t *testing.T, name string) string {
	t.Helper()
	src, dst := scenario(t, name), t.TempDir()
	part := filepath.Join(dst, kraftmeta.MetadataPartitionDir)
	if err := os.Mkdir(part, 0o755); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(filepath.Join(src, kraftmeta.MetadataPartitionDir))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(src, kraftmeta.MetadataPartitionDir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(part, e.Name()), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dst
}

// appendToLog appends the batches of s to the last segment of the log
// directory dir.
func appendToLog(t *testing.T, dir string, s *kraftlog.SegmentWriter) {
	t.Helper()
	segs, err := filepath.Glob(filepath.Join(dir, kraftmeta.MetadataPartitionDir, "*.log"))
	if err != nil || len(segs) == 0 {
		t.Fatalf("no segment in %s: %v", dir, err)
	}
	f, err := os.OpenFile(segs[len(segs)-1], os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Write(s.Bytes); err != nil {
		t.Fatal(err)
	}
}

// writeMetaProperties writes the meta.properties of a controller of
// cluster id into the log directory dir.
func writeMetaProperties(t *testing.T, dir, id string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, "meta.properties"), []byte("node.id=3000\nversion=1\ncluster.id="+id+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}

// smallMetadata writes a log directory, of cluster testClusterID, whose
// image is in dual-write and holds topic orders of two partitions, and
// returns it: metadata that needs no fixtures.
func smallMetadata(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	s := &kraftlog.SegmentWriter{Timestamp: 1732093200000}
	s.LeaderChange(7, 3000, []int32{3000}, []int32{3000})
	orders := znode.Uuid{MostSignificantBits: 1, LeastSignificantBits: 2}
	for _, b := range [][]kraftlog.Message{
		{&kraftlog.FeatureLevelRecord{Name: "metadata.version", FeatureLevel: 21}, &kraftlog.ZkMigrationStateRecord{ZkMigrationState: 1}},
		{&kraftlog.TopicRecord{Name: "orders", TopicID: orders},
			&kraftlog.PartitionRecord{PartitionID: 0, TopicID: orders, Replicas: []int32{1, 2, 3}, Isr: []int32{1, 2, 3}, Leader: 1},
			&kraftlog.PartitionRecord{PartitionID: 1, TopicID: orders, Replicas: []int32{1, 2, 3}, Isr: []int32{1, 2, 3}, Leader: 2}},
	} {
		if err := s.Batch(b...); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, kraftmeta.MetadataPartitionDir), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, kraftmeta.MetadataPartitionDir, "00000000000000000000.log"), s.Bytes, 0o644); err != nil {
		t.Fatal(err)
	}
	writeMetaProperties(t, dir, testClusterID)
	return dir
}

// kraftCluster is an empty Kafka cluster in ZooKeeper, its
// /controller_epoch at 43, to sync KRaft's metadata into.
func kraftCluster(t *testing.T, srv *zktest.Server, name string) *cluster {
	t.Helper()
	c := newCluster(t, srv, srv.Connect(t), name)
	c.seedKafka(43)
	return c
}

// runEnv runs the command against this cluster with env added.
func (c *cluster) runEnv(env []string, args ...string) result {
	c.t.Helper()
	return runBinary(c.t, env, append([]string{"--zk", strings.Join(c.srv.Servers, ","), "--root", c.root}, args...)...)
}
