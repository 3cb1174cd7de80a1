package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-zookeeper/zk"

	"github.com/kraftmigration/zkwriter/migrationzk/kraftmeta"
	"github.com/kraftmigration/zkwriter/migrationzk/zktest"
	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

// TestKRaftSyncRefusals runs kraft sync --apply --yes where it must
// refuse, one case each, on a cluster that holds a topic: each is
// refused with its kind, exit 2, and ZooKeeper's whole tree is unchanged,
// byte for byte and version for version. A KRaft controller in
// /controller is refused without --force, and synced with it: in the
// epoch of the partitions' stamps, 43, above its own.
// Faults: a ZooKeeper-mode controller live (ephemeral /controller); a
// KRaft controller's /controller; another cluster's id, from
// --cluster-id and from meta.properties; no cluster id at all; /cluster/id
// absent; PRE_MIGRATION metadata; metadata older than /migration;
// password configs without an encoder; no leader named and no
// --controller-id; undecodable /migration; a corrupted segment.
func TestKRaftSyncRefusals(t *testing.T) {
	srv := zktest.Start(t)
	small := smallMetadata(t)
	basic := scenario(t, "migration-basic")
	corrupt := copyScenario(t, "aborted-migration")
	seg := filepath.Join(corrupt, kraftmeta.MetadataPartitionDir, "00000000000000000000.log")
	data, err := os.ReadFile(seg)
	if err != nil {
		t.Fatal(err)
	}
	data[len(data)/2] ^= 0x40
	if err := os.WriteFile(seg, data, 0o644); err != nil {
		t.Fatal(err)
	}
	otherCluster := copyScenario(t, "aborted-migration")
	writeMetaProperties(t, otherCluster, "another-cluster-id-xx")
	noLeader := filepath.Join(t.TempDir(), "00000000000000000097-0000000002.checkpoint")
	snapshot, err := os.ReadFile(filepath.Join(scenario(t, "old-metadata-version"), kraftmeta.MetadataPartitionDir, filepath.Base(noLeader)))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(noLeader, snapshot, 0o644); err != nil {
		t.Fatal(err)
	}
	id := []string{"--cluster-id", testClusterID}
	for _, tc := range []struct {
		name    string
		prepare func(c *cluster)
		args    []string
		kind    string
		want    string
	}{
		{"zookeeper-controller", func(c *cluster) { c.zkController(1) }, []string{small}, refuseZooKeeperController, "is ephemeral: ZooKeeper-mode broker 1 is live"},
		{"kraft-controller", func(c *cluster) { c.kraftController(3000, 9) }, []string{small}, refuseKRaftController, "names KRaft controller 3000 with epoch 9"},
		{"cluster-id-flag", nil, []string{small, "--cluster-id", "another-cluster-id-xx"}, refuseClusterID, "differs from the cluster.id " + testClusterID},
		{"cluster-id-meta", nil, []string{otherCluster}, refuseClusterID, "the metadata is of cluster another-cluster-id-xx (meta.properties), ZooKeeper of cluster " + testClusterID},
		{"cluster-id-none", nil, []string{scenario(t, "aborted-migration")}, refuseClusterID, "give --cluster-id"},
		{"cluster-id-absent", func(c *cluster) { c.deleteZnode("/cluster/id") }, []string{small}, refuseClusterID, "/cluster/id is absent"},
		{"pre-migration", nil, append([]string{scenario(t, "open-transaction")}, id...), refuseMigrationState, "PRE_MIGRATION"},
		{"older-than-migration", func(c *cluster) { c.migration(checkpoint(1000, 3000, 9)) }, []string{small}, refuseOffset, "below /"},
		{"passwords", nil, append([]string{basic}, id...), refusePasswords, "brokers/1 listener.name.internal.ssl.key.password"},
		{"no-leader", nil, append([]string{noLeader}, id...), refuseControllerID, "give --controller-id"},
		{"undecodable-migration", func(c *cluster) { c.migration([]byte(`{"version":7}`)) }, []string{small}, refuseControlZnode, "does not decode"},
		{"corrupt", nil, append([]string{corrupt}, id...), "", "CRC mismatch"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newCluster(t, srv, srv.Connect(t), tc.name)
			c.seedKafka(43, uniform("orders", 2, 43))
			if tc.prepare != nil {
				tc.prepare(c)
			}
			before := c.tree()
			r := c.run(append([]string{"--output", "json", "kraft", "sync", "--apply", "--yes"}, tc.args...)...)
			wantCode(t, r, exitError)
			var rep kraftSyncReport
			r.decode(t, &rep)
			if tc.kind == "" {
				if rep.Error == "" || !strings.Contains(rep.Error, tc.want) {
					t.Fatalf("want an error with %q: %s", tc.want, r)
				}
			} else if !refusedFor(rep, tc.kind, tc.want) {
				t.Fatalf("want a refusal %s with %q: %s", tc.kind, tc.want, r)
			}
			c.sameTree(tc.name, before, c.tree())
		})
	}
	t.Run("kraft-controller-forced", func(t *testing.T) {
		c := newCluster(t, srv, srv.Connect(t), "forced")
		c.seedKafka(43, uniform("orders", 2, 43))
		c.kraftController(3000, 9)
		rep := syncJSON(t, c, nil, exitOK, small, "--force", "--apply", "--yes")
		if rep.Outcome != outcomeApplied || rep.Claim.KRaftEpoch != 43 || c.exists(znode.ControllerPath) {
			t.Fatalf("--force: %+v", rep)
		}
	})
}

// refusedFor reports whether rep refused with a refusal of kind whose
// text holds want, and wrote nothing.
func refusedFor(rep kraftSyncReport, kind, want string) bool {
	if rep.Outcome != outcomeRefused {
		return false
	}
	for _, s := range rep.Steps {
		if s.Done {
			return false
		}
	}
	for _, r := range rep.Refusals {
		if r.Kind == kind && strings.Contains(r.Text, want) {
			return true
		}
	}
	return false
}

// deleteZnode deletes the znode at path, relative to the root.
func (c *cluster) deleteZnode(path string) {
	c.t.Helper()
	if err := c.admin.Delete(c.root+path, -1); err != nil && err != zk.ErrNoNode {
		c.t.Fatal(err)
	}
}

// TestKRaftSyncConfirms: without --apply, and with --apply but neither a
// terminal nor --yes, kraft sync shows its plan and writes nothing.
// Fault: no --apply; --apply off a terminal without --yes.
func TestKRaftSyncConfirms(t *testing.T) {
	srv := zktest.Start(t)
	c := newCluster(t, srv, srv.Connect(t), "confirm")
	c.seedKafka(43, uniform("orders", 2, 50))
	small := smallMetadata(t)
	before := c.tree()
	rep := syncJSON(t, c, nil, exitProblem, small)
	if rep.Outcome != outcomePlanned || len(rep.Steps) != 3 || len(rep.Changes) == 0 || rep.Claim.KRaftEpoch != 50 {
		t.Fatalf("dry run: %+v", rep)
	}
	r := c.run("kraft", "sync", small, "--apply")
	wantCode(t, r, exitError)
	if !strings.Contains(r.stderr, "add --yes") {
		t.Fatalf("--apply off a terminal: %s", r)
	}
	c.sameTree("no --apply, then no --yes", before, c.tree())
}
