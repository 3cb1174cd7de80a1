package dualwrite_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/kraftmigration/zkwriter/migrationzk/dualwrite"
	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

// topicID returns the id the topic znode of name holds.
func (c *cluster) topicID(name string) znode.Uuid {
	c.t.Helper()
	data, _, _ := c.get(znode.TopicPath(name))
	zt, err := znode.DecodeTopic(data)
	if err != nil {
		c.t.Fatalf("%s: %q: %v", znode.TopicPath(name), data, err)
	}
	return zt.ID
}

// Fault: none. CreateTopic of a topic ZooKeeper holds under another id,
// or with an id when none is asked for, leaves ZooKeeper as it is, the
// checkpoint included, and names both ids in a *TopicIDError. Kafka's
// createTopic leaves such a topic alone too (NodeExists), and says
// nothing.
func TestCreateTopicOtherIDLeftAlone(t *testing.T) {
	c := newCluster(t)
	ctx := testContext(t)
	held := topic("orders", 2)
	s, err := c.c.CreateTopic(ctx, at(c.s, 101), held)
	if err != nil {
		t.Fatal(err)
	}
	for _, requested := range []znode.Uuid{otherUUID, {}} {
		other := topic("orders", 3)
		other.ID = requested
		before := c.tree()
		c.faults.ResetCounts()
		_, err := c.c.CreateTopic(ctx, at(s, 102), other)
		var idErr *dualwrite.TopicIDError
		if !errors.As(err, &idErr) || idErr.Topic != "orders" || idErr.Held != held.ID || idErr.Requested != requested {
			t.Fatalf("CreateTopic with id %v: %v, want a *TopicIDError", requested, err)
		}
		if !strings.Contains(err.Error(), held.ID.String()) || !requested.IsZero() && !strings.Contains(err.Error(), requested.String()) {
			t.Fatalf("the error does not name both ids: %v", err)
		}
		if n := c.writeRequests(); n != 0 {
			t.Fatalf("%d write requests", n)
		}
		c.sameTree("after CreateTopic with another id", before, c.tree())
	}
}

// Fault: none. A topic ZooKeeper holds without an id (written by a tool
// before topic ids) gets the id CreateTopic asks for: no conflict, as a
// ZooKeeper-mode controller gives ids to such topics itself.
func TestCreateTopicGivesAnID(t *testing.T) {
	c := newCluster(t)
	c.plant(rawTree{{znode.TopicPath("legacy"), []byte(`{"version":1,"partitions":{"0":[1,2,3]}}`)}})
	want := topic("legacy", 1)
	if _, err := c.c.CreateTopic(testContext(t), at(c.s, 101), want); err != nil {
		t.Fatal(err)
	}
	if got := c.topicID("legacy"); got != want.ID {
		t.Fatalf("topic id %v, want %v", got, want.ID)
	}
}

// Fault: none. UpdateTopic writes the id it is given over another one,
// as Kafka's updateTopic does.
func TestUpdateTopicWritesTheID(t *testing.T) {
	c := newCluster(t)
	ctx := testContext(t)
	s, err := c.c.CreateTopic(ctx, at(c.s, 101), topic("orders", 2))
	if err != nil {
		t.Fatal(err)
	}
	other := topic("orders", 2)
	other.ID = otherUUID
	if _, err := c.c.UpdateTopic(ctx, at(s, 102), other); err != nil {
		t.Fatal(err)
	}
	if got := c.topicID("orders"); got != otherUUID {
		t.Fatalf("topic id %v, want %v", got, otherUUID)
	}
}

// Fault: none. A Sync whose image holds a topic under another id plans
// one replace-topic change naming both ids (and the write of the topic's
// config, deleted with it), and then deletes the topic and creates it
// anew with the new id, as Kafka's full sync does, in the Sync's one
// transaction.
func TestSyncReplacesATopicWithAnotherID(t *testing.T) {
	c := newCluster(t)
	s, _ := c.sync(at(c.s, 200), fullImage())
	desired := fullImage()
	editTopic("orders", func(t *dualwrite.Topic) { t.ID = otherUUID })(&desired)
	oldID := fullImage().Topics["orders"].ID
	oldCreated := c.czxid(znode.TopicPath("orders"))
	_, rep := c.sync(at(s, 300), desired)
	if len(rep.Plan.Changes) != 2 || rep.Plan.Changes[1].Kind != dualwrite.ChangeWriteConfigs {
		t.Fatalf("plan:\n%s", rep.Plan)
	}
	ch := rep.Plan.Changes[0]
	if ch.Kind != dualwrite.ChangeReplaceTopic || ch.Subject != "orders" || ch.FromID != oldID.String() || ch.ToID != otherUUID.String() {
		t.Fatalf("change %+v", ch)
	}
	if got := c.topicID("orders"); got != otherUUID || c.czxid(znode.TopicPath("orders")) == oldCreated {
		t.Fatalf("topic id %v, the topic znode not created anew", got)
	}
	c.converged(desired)
}

// Fault: none. Sync deletes a partition znode outside its topic's
// assignment, state first, only when the desired image lacks it; the
// image Read returned keeps it, and the topic znode is never rewritten
// for it.
func TestSyncUnassignedPartitions(t *testing.T) {
	c := newCluster(t)
	c.plant(fixedTrees()["partition znodes outside the assignment"])
	img := c.read()
	stray := img.Topics["stray"]
	if len(stray.Partitions) != 1 || len(stray.Unassigned) != 2 || stray.Unassigned[1].State != nil || stray.Unassigned[2].State == nil {
		t.Fatalf("read %+v", stray)
	}
	topicVersion := c.version(znode.TopicPath("stray"))
	s, _ := c.sync(at(c.s, 200), img)
	delete(stray.Unassigned, 2)
	img.Topics["stray"] = stray
	_, rep := c.sync(at(s, 300), img)
	if got := planLines(rep.Plan); len(got) != 1 || got[0] != "delete-partitions stray partitions [2]" {
		t.Fatalf("plan:\n%s", rep.Plan)
	}
	if got := c.children(znode.TopicPartitionsPath("stray")); strings.Join(got, ",") != "0,1" {
		t.Fatalf("partitions left: %v", got)
	}
	if v := c.version(znode.TopicPath("stray")); v != topicVersion {
		t.Fatalf("topic znode at version %d, was %d", v, topicVersion)
	}
	c.converged(img)
}
