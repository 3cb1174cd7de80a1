package main

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/kraftmigration/zkwriter/internal/kraftlog"
	"github.com/kraftmigration/zkwriter/migrationzk/dualwrite"
	"github.com/kraftmigration/zkwriter/migrationzk/zktest"
	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

// syncedCluster is a cluster into which kraft sync wrote the metadata at
// dir.
func syncedCluster(t *testing.T, srv *zktest.Server, name, dir string) *cluster {
	t.Helper()
	c := kraftCluster(t, srv, name)
	syncJSON(t, c, nil, exitOK, dir, "--cluster-id", testClusterID, "--apply", "--yes")
	return c
}

// changeLines are a report's changes, "kind subject" each, then each
// field "field: old -> new".
func changeLines(cs []dualwrite.Change) []string {
	var out []string
	for _, c := range cs {
		out = append(out, string(c.Kind)+" "+c.Subject)
		for _, f := range c.Fields {
			out = append(out, "  "+f.String())
		}
	}
	return out
}

// TestKRaftDiffBehindTheBack syncs aborted-migration, then changes
// ZooKeeper behind the tool's back, one change at a time: a partition
// state, a config, an ACL, a deleted topic. kraft diff reports each
// exactly, with its values, and nothing else (exit 1, nothing behind);
// kraft sync restores it, and kraft diff then exits 0.
// Faults: a partition state's leader epoch raised, a topic config
// changed, an ACL entry added, a topic and its config deleted, each
// written directly to ZooKeeper.
func TestKRaftDiffBehindTheBack(t *testing.T) {
	srv := zktest.Start(t)
	dir := scenario(t, "aborted-migration")
	c := syncedCluster(t, srv, "behind-the-back", dir)
	state := znode.PartitionStatePath("orders", 0)
	for _, tc := range []struct {
		name   string
		change func()
		want   []string
	}{
		{"partition-state", func() {
			data, _ := c.get(state)
			st, err := znode.DecodePartitionState(data)
			if err != nil {
				t.Fatal(err)
			}
			st.LeaderEpoch += 5
			c.set(state, st.Encode())
		}, []string{"update-partitions orders", "  partition 0 leader_epoch: %d -> %d"}},
		{"config", func() {
			c.set(znode.TopicConfigEntity("orders").Path(), znode.Config{"retention.ms": "1"}.Encode())
		}, []string{"write-configs topics/orders", "  retention.ms: 1 -> 259200000"}},
		{"acl", func() {
			path := znode.LiteralACLPath(znode.ResourceTopic, "orders")
			data, _ := c.get(path)
			acls, err := znode.DecodeACLs(data)
			if err != nil {
				t.Fatal(err)
			}
			c.set(path, append(acls, znode.ACLEntry{Principal: "User:bob", PermissionType: znode.PermissionAllow, Operation: znode.OperationWrite, Host: "*"}).Encode())
		}, []string{"write-acls LITERAL Topic orders", "  acl: User:bob Allow Write from host * -> (none)"}},
		{"deleted-topic", func() {
			if err := zktest.DeleteAll(c.admin, c.root+znode.TopicPath("clicks")); err != nil {
				t.Fatal(err)
			}
			c.deleteZnode(znode.TopicConfigEntity("clicks").Path())
		}, []string{"create-topic clicks", "write-configs topics/clicks", "  segment.ms: (none) -> 3600000"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var epoch int32
			data, _ := c.get(state)
			if st, err := znode.DecodePartitionState(data); err == nil {
				epoch = st.LeaderEpoch
			}
			tc.change()
			d := diffJSON(t, c, nil, exitProblem, dir)
			got := changeLines(d.Divergence.Changes)
			want := slices.Clone(tc.want)
			if tc.name == "partition-state" {
				want[1] = fmt.Sprintf(want[1], epoch+5, epoch)
			}
			if tc.name == "deleted-topic" {
				got = slices.DeleteFunc(got, func(l string) bool { return strings.HasPrefix(l, "  topic_id") || strings.HasPrefix(l, "  partition ") })
			}
			if !slices.Equal(got, want) || d.Divergence.Kind != divergenceDivergent || len(d.Divergence.Unplanned) != 0 ||
				d.After.Kind != afterCurrent || len(d.Problems) != 1 {
				t.Fatalf("want\n\t%s\ngot\n\t%s\n%+v", strings.Join(want, "\n\t"), strings.Join(got, "\n\t"), d)
			}
			syncJSON(t, c, nil, exitOK, dir, "--cluster-id", testClusterID, "--apply", "--yes")
			diffJSON(t, c, nil, exitOK, dir)
		})
	}
}

// set overwrites the znode at path, relative to the root, with data.
func (c *cluster) set(path string, data []byte) {
	c.t.Helper()
	if _, err := c.admin.Set(c.root+path, data, -1); err != nil {
		c.t.Fatalf("set %s: %v", path, err)
	}
}

// TestKRaftDiffLag syncs a copy of aborted-migration, then appends to its
// log what a KRaft controller committed after: a NoOp, a config change,
// an ISR shrink, a NoOp. kraft diff finds ZooKeeper holding KRaft's image
// at /migration's offset, and behind by the two records, offsets given,
// NoOps aside (exit 1, kind "behind"); with --at the end, the changes
// themselves, with a warning, the records after nothing. kraft status
// says the same, lag --metadata-dir bounds the lag by the log's end.
// Fault: records appended after the synced offset (a stalled dual-write).
func TestKRaftDiffLag(t *testing.T) {
	srv := zktest.Start(t)
	dir := copyScenario(t, "aborted-migration")
	c := syncedCluster(t, srv, "lag", dir)
	diffJSON(t, c, nil, exitOK, dir)
	s := &kraftlog.SegmentWriter{Next: 192, Epoch: 2, Timestamp: 1732093300000}
	value := "1"
	ordersID := c.topicID("orders")
	for _, b := range [][]kraftlog.Message{
		{&kraftlog.NoOpRecord{}},
		{&kraftlog.ConfigRecord{ResourceType: 2, ResourceName: "orders", Name: "retention.ms", Value: &value},
			&kraftlog.PartitionChangeRecord{PartitionID: 1, TopicID: ordersID, Isr: []int32{2}, Leader: kraftlog.NoLeaderChange, LeaderRecoveryState: -1}},
		{&kraftlog.NoOpRecord{}},
	} {
		if err := s.Batch(b...); err != nil {
			t.Fatal(err)
		}
	}
	appendToLog(t, dir, s)

	d := diffJSON(t, c, nil, exitProblem, dir)
	a := d.After
	if d.Divergence.Kind != divergenceEqual || a.Kind != afterBehind || a.Records != 2 || a.FirstOffset != 193 || a.LastOffset != 194 ||
		a.NoOps != 2 || a.EndOffset != 195 || a.ByType["ConfigRecord"] != 1 || a.ByType["PartitionChangeRecord"] != 1 || len(d.Problems) != 1 {
		t.Fatalf("behind: %+v", d)
	}
	r := c.run("kraft", "diff", dir)
	wantCode(t, r, exitProblem)
	wantOutput(t, r, "Behind: KRaft's log holds 2 metadata records after /migration's offset 191 that ZooKeeper lacks, offsets 193 to 194 (ConfigRecord 1, PartitionChangeRecord 1), besides 2 NoOps")

	d = diffJSON(t, c, nil, exitProblem, dir, "--at", "195")
	if got := changeLines(d.Divergence.Changes); len(got) != 4 || got[0] != "update-partitions orders" || got[2] != "write-configs topics/orders" ||
		got[3] != "  retention.ms: 259200000 -> 1" || !d.AtGiven || d.After.Records != 0 || !strings.Contains(d.Warning, "may hold records the quorum has not committed") {
		t.Fatalf("--at 195: %v %+v", got, d)
	}

	r = c.run("--output", "json", "kraft", "status", dir)
	wantCode(t, r, exitProblem)
	var st kraftStatusReport
	r.decode(t, &st)
	if st.Behind.Kind != afterBehind || st.Behind.Records != 2 || st.Metadata.LogEndOffset != 196 || st.Image.Offset != 195 || len(st.Problems) != 1 {
		t.Fatalf("status: %+v", st)
	}
	out := lagJSON(t, c, exitOK, "--metadata-dir", dir)
	if out.Lag != nil || out.Quorum != nil || out.LagAtMost == nil || *out.LagAtMost != 4 || out.LagAtLeast == nil || *out.LagAtLeast != 0 ||
		!strings.Contains(out.Text, "an upper bound") {
		t.Fatalf("lag --metadata-dir: %+v", out)
	}
}

// topicID is the id of topic name, read from ZooKeeper.
func (c *cluster) topicID(name string) znode.Uuid {
	c.t.Helper()
	data, _ := c.get(znode.TopicPath(name))
	tp, err := znode.DecodeTopic(data)
	if err != nil {
		c.t.Fatal(err)
	}
	return tp.ID
}

// TestKRaftDiffErrors: kraft diff of a cluster whose /migration records
// no offset says no migration has run yet; of a directory that ends
// below /migration's offset names both offsets; of one cleaned past it
// names the oldest image there is. Each exits 2 with its kind.
// Faults: /migration absent; at -1; a log ending below /migration's
// offset; a snapshot later than /migration's offset.
func TestKRaftDiffErrors(t *testing.T) {
	srv := zktest.Start(t)
	small := smallMetadata(t)
	for _, tc := range []struct {
		name      string
		migration []byte
		dir       string
		kind      string
		want      string
	}{
		{"absent", nil, small, kindNoMigration, "is absent: no migration has run yet"},
		{"initial", checkpoint(-1, -1, -1), small, kindNoMigration, "holds offset -1, the initial load has not ended"},
		{"old-copy", checkpoint(900, 3000, 7), small, kindKRaftOffset, "ends at offset 5, below /migration's offset 900"},
		{"cleaned", checkpoint(100, 3000, 1), scenario(t, "large"), kindKRaftOffset, "offset 100: offset below the oldest image held: the oldest image held is at offset 102041"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newCluster(t, srv, srv.Connect(t), tc.name)
			c.seedKafka(43)
			if tc.migration != nil {
				c.migration(tc.migration)
			}
			r := c.run("--output", "json", "kraft", "diff", tc.dir)
			wantCode(t, r, exitError)
			var got errorReport
			r.decode(t, &got)
			if got.Kind != tc.kind || !strings.Contains(got.Error, tc.want) {
				t.Fatalf("want %s %q: %+v", tc.kind, tc.want, got)
			}
		})
	}
}
