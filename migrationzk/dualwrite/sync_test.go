package dualwrite_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/kraftmigration/zkwriter/internal/testkit/must"
	"github.com/kraftmigration/zkwriter/migrationzk"
	"github.com/kraftmigration/zkwriter/migrationzk/dualwrite"
	"github.com/kraftmigration/zkwriter/migrationzk/zktest"
	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

// read reads the whole image through a Writer of the test's own session,
// so that it works whatever became of the cluster's writer.
func (c *cluster) read() dualwrite.Image {
	c.t.Helper()
	img, err := must.Get(dualwrite.New(must.Get(migrationzk.New(c.admin, migrationzk.WithRoot(c.root))))).Read(testContext(c.t), nil)
	if err != nil {
		c.t.Fatalf("read: %v", err)
	}
	return img
}

// converged fails unless ZooKeeper holds desired: a Read Diffs empty
// against it, both ways, and holds nothing undecodable.
func (c *cluster) converged(desired dualwrite.Image) {
	c.t.Helper()
	got := c.read()
	if len(got.Undecodable) > 0 {
		c.t.Fatalf("undecodable znodes: %+v", got.Undecodable)
	}
	if p := dualwrite.Diff(got, desired); !p.Empty() {
		c.t.Fatalf("ZooKeeper differs from the desired image:\n%s", p)
	}
	if p := dualwrite.Diff(desired, got); !p.Empty() {
		c.t.Fatalf("the desired image differs from ZooKeeper:\n%s", p)
	}
}

// lastZxid returns the newest zxid that created, changed or changed the
// children of any znode under the root: a write, a create or a delete
// after it raises it.
func (c *cluster) lastZxid() int64 {
	c.t.Helper()
	if _, err := c.admin.Sync(c.root); err != nil {
		c.t.Fatal(err)
	}
	var walk func(p string) int64
	walk = func(p string) int64 {
		names, st, err := c.admin.Children(p)
		if err != nil {
			c.t.Fatalf("list %s: %v", p, err)
		}
		last := max(st.Czxid, st.Mzxid, st.Pzxid)
		for _, n := range names {
			last = max(last, walk(p+"/"+n))
		}
		return last
	}
	return walk(c.root)
}

// migration decodes /migration.
func (c *cluster) migration() znode.Migration {
	c.t.Helper()
	data, _, _ := c.get("/migration")
	m, err := znode.DecodeMigration(data)
	if err != nil {
		c.t.Fatalf("/migration %q: %v", data, err)
	}
	return m
}

// sync runs a Sync of desired from s, failing the test on error.
func (c *cluster) sync(s migrationzk.State, desired dualwrite.Image, opts ...dualwrite.SyncOption) (migrationzk.State, dualwrite.SyncReport) {
	c.t.Helper()
	st, rep, err := c.c.Sync(testContext(c.t), s, desired, opts...)
	if err != nil {
		c.t.Fatalf("sync: %v\nplan:\n%s", err, rep.Plan)
	}
	return st, rep
}

// changedImage returns fullImage with a change in every domain.
func changedImage() dualwrite.Image {
	img := fullImage()
	editTopic("orders", func(t *dualwrite.Topic) {
		t.Partitions[2] = topic("x", 3).Partitions[2]
		p := t.Partitions[0]
		p.State.LeaderEpoch = 3
		t.Partitions[0] = p
	})(&img)
	editTopic("payments", func(t *dualwrite.Topic) { t.ID = otherUUID })(&img)
	img.Topics["audit"] = topic("audit", 2)
	img.Configs[brokerOne] = map[string]string{"log.retention.hours": "2"}
	delete(img.Configs, topicOrders)
	delete(img.ClientQuotas, clientQuota)
	img.Scram["bob"] = map[string]znode.ScramCredential{znode.ScramSHA512: sha512}
	img.ACLs[literalFoo] = []znode.ACLEntry{writeBob}
	delete(img.ACLs, prefixBar)
	delete(img.DelegationTokens, "tok1")
	tok := token
	tok.TokenID = "tok2"
	img.DelegationTokens["tok2"] = tok
	block := znode.MigrationProducerIDBlock(9000)
	img.ProducerIDBlock = &block
	return img
}

// Fault: none. A Sync from an empty tree writes the whole image with the
// checkpoint; a second Sync right after writes nothing at all (no write
// request, /migration's version and the tree's last zxid unchanged); one
// with a new offset writes the checkpoint alone.
func TestSyncIdempotent(t *testing.T) {
	c := newCluster(t)
	s, rep := c.sync(at(c.s, 200), fullImage())
	if rep.Plan.Empty() || rep.Plan.Counts()[dualwrite.ChangeCreateTopic] != 2 {
		t.Fatalf("first plan:\n%s", rep.Plan)
	}
	c.wantVersion(s, 1)
	c.converged(fullImage())

	version, zxid := c.version("/migration"), c.lastZxid()
	c.faults.ResetCounts()
	s2, rep := c.sync(s, fullImage())
	if !rep.Plan.Empty() || c.writeRequests() != 0 || c.version("/migration") != version || c.lastZxid() != zxid {
		t.Fatalf("second Sync: plan\n%s%d write requests, /migration version %d (was %d), last zxid %d (was %d)",
			rep.Plan, c.writeRequests(), c.version("/migration"), version, c.lastZxid(), zxid)
	}
	if s2.MigrationZkVersion != s.MigrationZkVersion {
		t.Fatalf("second Sync returned version %d, want %d", s2.MigrationZkVersion, s.MigrationZkVersion)
	}
	c.faults.ResetCounts()
	s3, _ := c.sync(at(s2, 300), fullImage())
	if n := c.writeRequests(); n != 1 {
		t.Fatalf("Sync at a new offset sent %d write requests, want the checkpoint alone", n)
	}
	c.wantVersion(s3, 2)
}

// Fault: none. From a tree that differs in every domain, one Sync makes
// ZooKeeper hold the desired image, in one transaction, and the next
// finds nothing to do.
func TestSyncConverges(t *testing.T) {
	c := newCluster(t)
	s, _ := c.sync(at(c.s, 200), fullImage())
	c.faults.ResetCounts()
	s, rep := c.sync(at(s, 300), changedImage())
	if n := c.faults.Count(zktest.OpMulti); n != 1 {
		t.Fatalf("%d multis, want one transaction", n)
	}
	want := map[dualwrite.ChangeKind]int{dualwrite.ChangeCreateTopic: 1, dualwrite.ChangeReplaceTopic: 1, dualwrite.ChangeCreatePartitions: 1,
		dualwrite.ChangeUpdatePartitions: 1, dualwrite.ChangeUpdateTopic: 1, dualwrite.ChangeWriteConfigs: 1, dualwrite.ChangeDeleteConfigs: 1,
		dualwrite.ChangeWriteClientQuotas: 2, dualwrite.ChangeWriteACLs: 1, dualwrite.ChangeDeleteACLs: 1,
		dualwrite.ChangeWriteDelegationToken: 1, dualwrite.ChangeDeleteDelegationToken: 1, dualwrite.ChangeWriteProducerID: 1}
	if got := rep.Plan.Counts(); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("plan counts %v, want %v\n%s", got, want, rep.Plan)
	}
	c.wantVersion(s, 2)
	c.converged(changedImage())
	if _, rep = c.sync(s, changedImage()); !rep.Plan.Empty() {
		t.Fatalf("after converging:\n%s", rep.Plan)
	}
}

// Fault: none. Kafka's full sync keeps a quota entity ZooKeeper holds and
// the image lacks, its config emptied; so does Sync, and a quota entity
// holding an empty config is no change after.
func TestSyncKeepsAbsentQuotaEntity(t *testing.T) {
	c := newCluster(t)
	s, _ := c.sync(at(c.s, 200), fullImage())
	desired := fullImage()
	delete(desired.ClientQuotas, aliceQuota)
	delete(desired.Scram, "alice")
	s, _ = c.sync(at(s, 300), desired)
	if cfg := c.config("/config/users/alice"); len(cfg) != 0 {
		t.Fatalf("alice's config %v, want an empty one", cfg)
	}
	c.converged(desired)
	c.faults.ResetCounts()
	if _, rep := c.sync(s, desired); !rep.Plan.Empty() || c.writeRequests() != 0 {
		t.Fatalf("again: %d writes, plan\n%s", c.writeRequests(), rep.Plan)
	}
}

// Fault: none. A plan larger than a transaction (a 200-partition topic
// with 4 KiB requests) lands in several transactions; /migration holds
// the checkpoint once, with the last. Sync's report counts the
// partitions read and the time taken.
func TestSyncManyTransactions(t *testing.T) {
	c := newCluster(t).sized(4096)
	desired := fullImage()
	desired.Topics["big"] = topic("big", 200)
	s, rep := c.sync(at(c.s, 200), desired)
	if n := c.faults.Count(zktest.OpMulti); n < 5 {
		t.Fatalf("%d multis; the test needs a plan of several transactions", n)
	}
	c.wantVersion(s, c.version("/migration"))
	if m := c.migration(); m.KRaftMetadataOffset != 200 {
		t.Fatalf("/migration offset %d", m.KRaftMetadataOffset)
	}
	c.converged(desired)
	_, rep = c.sync(s, desired)
	if rep.Partitions != 203 || rep.ReadTime <= 0 {
		t.Fatalf("report: %d partitions read, read time %v", rep.Partitions, rep.ReadTime)
	}
}

// sized replaces the cluster's writer by one that sends requests of at
// most n bytes, on the same session and fence.
func (c *cluster) sized(n int) *cluster {
	c.w = must.Get(migrationzk.New(c.conn, migrationzk.WithRoot(c.root), migrationzk.WithMaxRequestBytes(n)))
	c.c = must.Get(dualwrite.New(c.w))
	c.faults.ResetCounts()
	return c
}

// Fault: none. An invalid desired image
// (a config of an unknown type) fails the Sync with ErrInvalidArgument
// before anything is written.
func TestSyncInvalidImageWritesNothing(t *testing.T) {
	c := newCluster(t)
	desired := fullImage()
	desired.Configs[dualwrite.ConfigResource{Type: "group", Name: "g"}] = map[string]string{"a": "b"}
	before := c.tree()
	_, _, err := c.c.Sync(testContext(t), at(c.s, 200), desired)
	if !errors.Is(err, migrationzk.ErrInvalidArgument) {
		t.Fatalf("got %v, want ErrInvalidArgument", err)
	}
	c.sameTree("after an invalid Sync", before, c.tree())
}

// Fault: the tenure ended before the Sync: a rival claimed. The Sync is
// fenced, writes nothing, and its writer is retired.
func TestSyncFencedBeforeStart(t *testing.T) {
	c := newCluster(t)
	c.rivalClaims()
	before := c.tree()
	_, _, err := c.c.Sync(testContext(t), at(c.s, 200), fullImage())
	c.checkFenced(err, before)
}

// Fault: the caller's context ends before the Sync: it reads nothing
// and writes nothing.
func TestSyncCancelledBeforeStart(t *testing.T) {
	c := newCluster(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	before := c.tree()
	c.faults.ResetCounts()
	if _, _, err := c.c.Sync(ctx, at(c.s, 200), fullImage()); !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v, want context.Canceled", err)
	}
	if n := c.writeRequests(); n != 0 {
		t.Fatalf("%d write requests", n)
	}
	c.sameTree("after a cancelled Sync", before, c.tree())
}

// Fault: none. A nil option fails the Sync with ErrInvalidArgument
// before it reads or writes anything.
func TestSyncNilOptionReadsNothing(t *testing.T) {
	c := newCluster(t)
	before := c.tree()
	c.faults.ResetCounts()
	s := at(c.s, 200)
	next, _, err := c.c.Sync(testContext(t), s, fullImage(), dualwrite.OverwriteUndecodable(), nil)
	if !errors.Is(err, migrationzk.ErrInvalidArgument) || next != s {
		t.Fatalf("got %+v, %v; want the State given and ErrInvalidArgument", next, err)
	}
	if n := c.faults.Requests(); n != 0 {
		t.Fatalf("%d requests sent", n)
	}
	c.sameTree("after a Sync with a nil option", before, c.tree())
}
