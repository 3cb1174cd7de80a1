package migrationzk_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/kraftmigration/zkwriter/migrationzk"
	"github.com/kraftmigration/zkwriter/migrationzk/zktest"
)

// notifications lists the children of /config/changes.
func (c *cluster) notifications() []string {
	c.t.Helper()
	if _, err := c.admin.Sync(c.p("/config/changes")); err != nil {
		c.t.Fatal(err)
	}
	names, _, err := c.admin.Children(c.p("/config/changes"))
	if err != nil {
		c.t.Fatal(err)
	}
	return names
}

// Fault: none, then the reply to the transaction lost after the server
// applied it. Sequential creates inside a batch report the names
// ZooKeeper gave them; after a lost acknowledgement the names are found
// again, in order, and no notification is written twice.
func TestCreateSequentialInBatch(t *testing.T) {
	for _, action := range []zktest.Action{0, zktest.DropReply} {
		name := map[zktest.Action]string{0: "acknowledged", zktest.DropReply: "reply-lost"}[action]
		t.Run(name, func(t *testing.T) {
			c := newCluster(t)
			c.create("/config", nil)
			c.create("/config/changes", nil)
			c.create("/config/changes/config_change_0000000000", []byte("older"))
			w := c.writer()
			s := c.start(w)
			if action != 0 {
				c.faults.Arm(zktest.Fault{Action: action, Op: zktest.OpCreate, Path: "/config/changes/config_change_"})
			}
			s.KRaftMetadataOffset = 8000
			next, res, err := w.Apply(testContext(t), s,
				migrationzk.Create("/config/topics", nil),
				migrationzk.CreateSequential("/config/changes/config_change_", []byte(`{"version":2,"entity_path":"topics/a"}`)),
				migrationzk.CreateSequential("/config/changes/config_change_", []byte(`{"version":2,"entity_path":"topics/b"}`)))
			if err != nil {
				t.Fatal(err)
			}
			if next.Recovered != (action != 0) {
				t.Fatalf("recovered %v", next.Recovered)
			}
			for i, want := range []string{"", "/config/changes/config_change_0000000001", "/config/changes/config_change_0000000002"} {
				if i > 0 && (res[i].Err != nil || res[i].Path != want) {
					t.Fatalf("op %d: %+v, want path %s", i, res[i], want)
				}
			}
			if got := c.notifications(); len(got) != 3 {
				t.Fatalf("notifications %v: want the older one and exactly one per change", got)
			}
			for i, entity := range []string{"a", "b"} {
				data, _ := c.get(res[i+1].Path)
				if !strings.Contains(string(data), "topics/"+entity) {
					t.Fatalf("%s holds %s", res[i+1].Path, data)
				}
			}
			c.checkMatches(next)
		})
	}
}

// Fault: a rival controller claims while the transaction is in flight.
// A fenced batch writes no notification.
func TestCreateSequentialFenced(t *testing.T) {
	c := newCluster(t)
	c.create("/config", nil)
	c.create("/config/changes", nil)
	w := c.writer()
	s := c.start(w)
	c.faults.Arm(zktest.Fault{Action: zktest.DropRequest, Op: zktest.OpCreate, Path: "/config/changes/config_change_", Then: c.endTenure})
	_, res, err := w.Apply(testContext(t), s, migrationzk.CreateSequential("/config/changes/config_change_", []byte("x")))
	if !errors.Is(err, migrationzk.ErrFenced) || res[0].Err == nil || res[0].Path != "" {
		t.Fatalf("err %v, result %+v: want fenced and nothing created", err, res[0])
	}
	if got := c.notifications(); len(got) != 0 {
		t.Fatalf("notifications %v written by a fenced batch", got)
	}
}

// Fault: none. ApplyAtomic: an op refused on its own account fails its
// transaction, nothing of it lands, and the call returns the *OpError.
func TestApplyAtomic(t *testing.T) {
	c := newCluster(t)
	w := c.writer()
	s := c.start(w)
	c.create("/brokers/topics/taken", []byte("someone's"))
	ops := []migrationzk.Op{
		migrationzk.Create("/brokers/topics/free", nil),
		migrationzk.Create("/brokers/topics/taken", nil),
		migrationzk.Create("/brokers/topics/free2", nil),
	}
	s.KRaftMetadataOffset = 8100
	got, res, err := w.ApplyAtomic(testContext(t), s, ops...)
	var oe *migrationzk.OpError
	if !errors.As(err, &oe) || oe.Index != 1 || !errors.Is(err, migrationzk.ErrConflict) {
		t.Fatalf("err = %v, want the *OpError of op 1", err)
	}
	if got.MigrationZkVersion != s.MigrationZkVersion {
		t.Fatalf("state moved to version %d", got.MigrationZkVersion)
	}
	if !errors.As(res[1].Err, &oe) || !errors.Is(res[0].Err, migrationzk.ErrNotApplied) || !errors.Is(res[2].Err, migrationzk.ErrNotApplied) {
		t.Fatalf("results %+v", res)
	}
	if c.exists("/brokers/topics/free") || c.exists("/brokers/topics/free2") {
		t.Fatal("part of a refused transaction landed")
	}
	if _, v := c.migration(); v != s.MigrationZkVersion {
		t.Fatalf("/migration moved to version %d", v)
	}
}

// Fault: none. Read and Children sync first, read under the root, and
// report missing znodes without an error.
func TestWriterRead(t *testing.T) {
	c := newCluster(t)
	w := c.writer()
	for i := 0; i < 5; i++ {
		c.create(fmt.Sprintf("/brokers/topics/t%d", i), []byte{byte('a' + i)})
	}
	paths := []string{"/brokers/topics/t0", "/brokers/topics/none", "/brokers/topics/t4"}
	got, err := w.Read(testContext(t), paths...)
	if err != nil {
		t.Fatal(err)
	}
	if !got[0].Exists || string(got[0].Data) != "a" || got[1].Exists || got[1].Version != -1 || string(got[2].Data) != "e" || got[2].Path != paths[2] {
		t.Fatalf("read %+v", got)
	}
	lists, err := w.Children(testContext(t), "/brokers/topics", "/none")
	if err != nil || !lists[0].Exists || len(lists[0].Names) != 5 || lists[0].Names[0] != "t0" {
		t.Fatalf("children %+v %v", lists, err)
	}
	if lists[1].Exists || lists[1].Names != nil {
		t.Fatalf("children of a missing znode: %+v", lists[1])
	}
	if _, err := w.Read(testContext(t), "bad"); !errors.Is(err, migrationzk.ErrInvalidArgument) {
		t.Fatalf("invalid path: %v", err)
	}
}

// Fault: none. Read tells an ephemeral znode from a persistent one: the
// seeded /controller belongs to the admin session.
func TestWriterReadEphemeralOwner(t *testing.T) {
	c := newCluster(t)
	got, err := c.writer().Read(testContext(t), "/controller", "/controller_epoch", "/none")
	if err != nil {
		t.Fatal(err)
	}
	if got[0].EphemeralOwner != c.admin.SessionID() {
		t.Fatalf("/controller: owner %#x, want the admin session %#x", got[0].EphemeralOwner, c.admin.SessionID())
	}
	if got[1].EphemeralOwner != 0 || got[2].EphemeralOwner != 0 {
		t.Fatalf("a persistent or missing znode has an owner: %+v", got[1:])
	}
}
