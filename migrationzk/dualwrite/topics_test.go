package dualwrite_test

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/go-zookeeper/zk"

	"github.com/kraftmigration/zkwriter/migrationzk"
	"github.com/kraftmigration/zkwriter/migrationzk/dualwrite"
	"github.com/kraftmigration/zkwriter/migrationzk/zktest"
	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

// Fault: none. A topic is created with its partitions, its states and an
// empty config, in one transaction that moves the checkpoint; created
// again it writes nothing but the checkpoint.
func TestCreateTopic(t *testing.T) {
	c := newCluster(t)
	tp := topic("orders", 3)
	s, err := c.c.CreateTopic(testContext(t), at(c.s, 200), tp)
	if err != nil {
		t.Fatal(err)
	}
	if s.MigrationZkVersion != c.s.MigrationZkVersion+1 {
		t.Fatalf("/migration version %d from %d: want one transaction", s.MigrationZkVersion, c.s.MigrationZkVersion)
	}
	c.checkState(s)
	data, _, _ := c.get("/brokers/topics/orders")
	got, err := znode.DecodeTopic(data)
	if err != nil || got.ID != tp.ID || len(got.Partitions) != 3 {
		t.Fatalf("topic znode %s (%v)", data, err)
	}
	if data, _, _ := c.get("/config/topics/orders"); string(data) != `{"version":1,"config":{}}` {
		t.Fatalf("config %s", data)
	}
	for p := int32(0); p < 3; p++ {
		data, _, _ := c.get(znode.PartitionStatePath("orders", p))
		st, err := znode.DecodePartitionState(data)
		if err != nil || st.ControllerEpoch != 5 || st.Leader != tp.Partitions[p].State.Leader {
			t.Fatalf("partition %d: %s (%v)", p, data, err)
		}
	}
	before := c.tree()
	c.faults.ResetCounts()
	s2, err := c.c.CreateTopic(testContext(t), at(s, 201), tp)
	if err != nil || s2.MigrationZkVersion != s.MigrationZkVersion+1 {
		t.Fatalf("again: %v, version %d", err, s2.MigrationZkVersion)
	}
	if n := c.faults.Count(zktest.OpMulti) + c.faults.Count(zktest.OpSetData); n != 1 {
		t.Fatalf("%d write requests for a topic that exists: want the checkpoint alone", n)
	}
	c.sameTree("after creating the topic again", before, c.tree(), "/migration")
	c.checkState(s2)
}

// Fault: none. testCreateNewTopic and testIdempotentCreateTopics: a new
// topic moves /migration to 1 and reads back byte for byte as Kafka
// writes it. Created again, Kafka sends nothing and stays at 1; ours
// writes the checkpoint alone, in one request, and reaches 2.
func TestKafkaCreateNewAndIdempotentTopic(t *testing.T) {
	c := newCluster(t)
	tp := topic("test", 2)
	tp.ID = kafkaTopicID
	s, err := c.c.CreateTopic(testContext(t), at(c.s, 200), tp)
	if err != nil {
		t.Fatal(err)
	}
	c.wantVersion(s, 1)
	c.wantData(znode.TopicPath("test"), `{"partitions":{"0":[1,2,3],"1":[2,3,1]},"topic_id":"ASNFZ4mrze_-3LqYdlQyEA","adding_replicas":{},"removing_replicas":{},"version":3}`)
	c.wantData(znode.PartitionStatePath("test", 1), `{"controller_epoch":5,"leader":2,"version":1,"leader_epoch":0,"isr":[2,3,1]}`)
	c.wantData("/config/topics/test", `{"version":1,"config":{}}`)
	before := c.tree()
	c.faults.ResetCounts()
	if s, err = c.c.CreateTopic(testContext(t), s, tp); err != nil {
		t.Fatal(err)
	}
	if n := c.writeRequests(); n != 1 {
		t.Fatalf("%d write requests for a topic that exists, want the checkpoint alone", n)
	}
	c.sameTree("after creating the topic again", before, c.tree(), "/migration")
	c.wantVersion(s, 2)
}

// Fault: none. testTopicAndBrokerConfigsMigrationWithSnapshots: a full
// sync writes the topic with its id and assignment, its state (leader 1,
// leader epoch 100, recovered, ISR [1,2,3]), and broker and topic configs,
// a password config in plain text as Kafka's NOOP encoder writes it. Kafka
// makes one call per item; ours is one Batch, one transaction: version 1.
func TestKafkaSnapshotTopicAndConfigs(t *testing.T) {
	c := newCluster(t)
	tp := dualwrite.Topic{Name: "test", ID: kafkaTopicID, Partitions: map[int32]dualwrite.Partition{
		0: {Replicas: []int32{1, 2, 3}, State: dualwrite.PartitionState{Leader: 1, LeaderEpoch: 100, ISR: []int32{1, 2, 3}}}}}
	s, _, err := c.c.Batch().CreateTopic(tp).
		WriteConfigs(brokerOne, map[string]string{"ssl.keystore.password": "SECRET"}).
		WriteConfigs(dualwrite.ConfigResource{Type: dualwrite.TopicConfig, Name: "test"}, map[string]string{"segment.ms": "100000"}).
		Apply(testContext(t), at(c.s, 200))
	if err != nil {
		t.Fatal(err)
	}
	c.wantVersion(s, 1)
	c.wantData(znode.TopicPath("test"), `{"partitions":{"0":[1,2,3]},"topic_id":"ASNFZ4mrze_-3LqYdlQyEA","adding_replicas":{},"removing_replicas":{},"version":3}`)
	c.wantData(znode.PartitionStatePath("test", 0), `{"controller_epoch":5,"leader":1,"version":1,"leader_epoch":100,"isr":[1,2,3]}`)
	if got := c.config("/config/brokers/1")["ssl.keystore.password"]; got != "SECRET" {
		t.Fatalf("broker password config %q", got)
	}
	if got := c.config("/config/topics/test"); len(got) != 1 || got["segment.ms"] != "100000" {
		t.Fatalf("topic configs %v", got)
	}
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

// Fault: none. Kafka's deleteTopic of a topic already gone fails on its
// last request: NoNode. dualwrite finds nothing to delete and writes the
// checkpoint alone.
func TestDefectDeleteDeletedTopic(t *testing.T) {
	c := newCluster(t)
	if err := c.kafkaShapedClient(at(c.s, 300)).kafkaShapedDeleteTopic("orders"); !errors.Is(err, zk.ErrNoNode) {
		t.Fatalf("Kafka-shaped: %v; the defect is NoNode", err)
	}
	before := c.tree()
	c.faults.ResetCounts()
	s, err := c.c.DeleteTopic(testContext(t), at(c.s, 300), "orders")
	if err != nil {
		t.Fatal(err)
	}
	if n := c.writeRequests(); n != 1 {
		t.Fatalf("dualwrite sent %d write requests, want the checkpoint alone", n)
	}
	c.sameTree("after deleting a topic that is gone", before, c.tree(), "/migration")
	c.wantVersion(s, 1)
}

// Fault: none. An earlier createTopic left only the topic znode (Kafka's
// requests are not one transaction). Kafka's createTopic then lands the
// rest, /migration included, but returns the version it was given, since
// the topic znode existed: its next write fails. dualwrite finishes the
// topic and returns the version ZooKeeper holds.
func TestDefectCreateTopicReturnsStaleVersion(t *testing.T) {
	k := newCluster(t)
	kafka := k.kafkaShapedClient(at(k.s, 300))
	if err := kafka.kafkaShapedMulti(kafka.kafkaShapedCreate(znode.TopicPath("orders"), topicBytes(topic("orders", 2))), false); err != nil {
		t.Fatal(err)
	}
	s, err := kafka.kafkaShapedCreateTopic(topic("orders", 2))
	if err != nil || s.MigrationZkVersion != 0 || k.version("/migration") != 1 {
		t.Fatalf("Kafka-shaped: %v, version %d, ZooKeeper %d; the defect is 0 against 1", err, s.MigrationZkVersion, k.version("/migration"))
	}
	if err := kafka.kafkaShapedSyncProducerID(6000); !errors.Is(err, zk.ErrBadVersion) {
		t.Fatalf("Kafka-shaped next write: %v; the defect is BadVersion", err)
	}

	c := newCluster(t)
	c.create(znode.TopicPath("orders"), topicBytes(topic("orders", 2)))
	if s, err = c.c.CreateTopic(testContext(t), at(c.s, 300), topic("orders", 2)); err != nil {
		t.Fatal(err)
	}
	c.wantVersion(s, 1)
	if s, err = c.c.WriteProducerID(testContext(t), at(s, 301), 6000); err != nil {
		t.Fatalf("dualwrite next write: %v", err)
	}
	c.wantVersion(s, 2)
}

// Fault: none. A topic of 249 characters, the longest Kafka allows, is
// created.
func TestLongestTopicNameWritten(t *testing.T) {
	c := newCluster(t)
	name := strings.Repeat("x", 249)
	s, err := c.c.CreateTopic(testContext(t), at(c.s, 400), topic(name, 1))
	if err != nil {
		t.Fatal(err)
	}
	if _, _, ok := c.get(znode.PartitionStatePath(name, 0)); !ok {
		t.Fatal("the topic's partition was not written")
	}
	c.checkState(s)
}

// Fault: none. A tree of more topics than Read takes a page at a time
// (1001 against 500) reads in three pages, each reported, and whole; a
// Sync of the same image writes nothing.
func TestReadPages(t *testing.T) {
	c := newCluster(t)
	want := c.seedTopics(1001)
	var progress []dualwrite.ReadProgress
	got, err := c.c.Read(testContext(t), func(p dualwrite.ReadProgress) { progress = append(progress, p) })
	if err != nil {
		t.Fatal(err)
	}
	wantProgress := []dualwrite.ReadProgress{{Topics: 500, TopicsTotal: 1001, Partitions: 500},
		{Topics: 1000, TopicsTotal: 1001, Partitions: 1000}, {Topics: 1001, TopicsTotal: 1001, Partitions: 1001}}
	if !slices.Equal(progress, wantProgress) {
		t.Fatalf("progress %+v, want %+v", progress, wantProgress)
	}
	if p := dualwrite.Diff(got, want); !p.Empty() || len(got.Topics) != 1001 {
		t.Fatalf("read %d topics; differs:\n%s", len(got.Topics), p)
	}
	var synced []dualwrite.ReadProgress
	c.faults.ResetCounts()
	_, rep := c.sync(c.s, want, dualwrite.WithReadProgress(func(p dualwrite.ReadProgress) { synced = append(synced, p) }))
	if !rep.Plan.Empty() || c.writeRequests() != 0 || !slices.Equal(synced, wantProgress) || rep.Partitions != 1001 {
		t.Fatalf("Sync: %d writes, progress %+v, plan\n%s", c.writeRequests(), synced, rep.Plan)
	}
}

// kafkaTopicID is the topic id of Kafka's byte examples,
// ASNFZ4mrze_-3LqYdlQyEA.
var kafkaTopicID = znode.Uuid{MostSignificantBits: 0x0123456789abcdef, LeastSignificantBits: -0x0123456789abcdf0}

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

// seedTopics creates n topics of one partition through the test's
// session, as a ZooKeeper-mode cluster holds them, many to a multi.
func (c *cluster) seedTopics(n int) dualwrite.Image {
	c.t.Helper()
	img := dualwrite.NewImage()
	var ops []any
	flush := func() {
		if _, err := c.admin.Multi(ops...); err != nil {
			c.t.Fatal(err)
		}
		ops = ops[:0]
	}
	create := func(p string, data []byte) {
		ops = append(ops, &zk.CreateRequest{Path: c.p(p), Data: data, Acl: zk.WorldACL(zk.PermAll)})
	}
	for i := 0; i < n; i++ {
		t := topic(fmt.Sprintf("topic-%04d", i), 1)
		img.Topics[t.Name] = t
		st := t.Partitions[0].State
		create(znode.TopicPath(t.Name), topicBytes(t))
		create(znode.TopicPartitionsPath(t.Name), nil)
		create(znode.PartitionPath(t.Name, 0), nil)
		create(znode.PartitionStatePath(t.Name, 0), znode.PartitionState{ControllerEpoch: 1, Leader: st.Leader, ISR: st.ISR}.Encode())
		if len(ops) >= 400 {
			flush()
		}
	}
	flush()
	return img
}

// kafkaShapedCreateTopic is createTopic: the topic znode, its config, its
// partitions znode, then each partition and its state, each a request of
// its own, none stopping the others; the last state's carries /migration.
// When the topic znode exists it returns the state it was given, "already
// created", whatever the other requests did.
func (k *kafkaShaped) kafkaShapedCreateTopic(t dualwrite.Topic) (migrationzk.State, error) {
	before := k.s
	reqs := []*zk.CreateRequest{
		k.kafkaShapedCreate(znode.TopicPath(t.Name), topicBytes(t)),
		k.kafkaShapedCreate(znode.TopicConfigEntity(t.Name).Path(), znode.Config{}.Encode()),
		k.kafkaShapedCreate(znode.TopicPartitionsPath(t.Name), nil),
	}
	for _, id := range sortedPartitions(t) {
		st := t.Partitions[id].State
		state := znode.PartitionState{ControllerEpoch: k.s.KRaftControllerEpoch, Leader: st.Leader, LeaderEpoch: st.LeaderEpoch, ISR: st.ISR}
		reqs = append(reqs, k.kafkaShapedCreate(znode.PartitionPath(t.Name, id), nil),
			k.kafkaShapedCreate(znode.PartitionStatePath(t.Name, id), state.Encode()))
	}
	errs := make([]error, len(reqs))
	for i, r := range reqs {
		errs[i] = k.kafkaShapedMulti(r, i == len(reqs)-1)
	}
	if errors.Is(errs[0], zk.ErrNodeExists) {
		k.s = before
		return before, nil
	}
	return k.s, errors.Join(errs...)
}

// kafkaShapedDeleteTopic is deleteTopic: every descendant of the topic's
// partitions znode, children first, the topic's config, then the topic
// znode on the last request; only the last request's outcome counts.
func (k *kafkaShaped) kafkaShapedDeleteTopic(topic string) error {
	paths := k.kafkaShapedDescendants(znode.TopicPartitionsPath(topic))
	paths = append(paths, znode.TopicConfigEntity(topic).Path())
	for _, p := range paths {
		_ = k.kafkaShapedMulti(&zk.DeleteRequest{Path: k.c.p(p), Version: -1}, false)
	}
	return k.kafkaShapedMulti(&zk.DeleteRequest{Path: k.c.p(znode.TopicPath(topic)), Version: -1}, true)
}

// kafkaShapedDescendants lists p and what is below it, children first;
// nothing when p is missing.
func (k *kafkaShaped) kafkaShapedDescendants(p string) []string {
	names, _, err := k.conn.Children(k.c.p(p))
	if err != nil {
		return nil
	}
	var out []string
	for _, n := range names {
		out = append(out, k.kafkaShapedDescendants(p+"/"+n)...)
	}
	return append(out, p)
}

// topicRows are the topics' rows of the tables every domain fills.
func topicRows() domainRows {
	return domainRows{
		invalid: invalidTopicChanges(),
		refused: []namedInvalid{
			{invalid{"topic deleted by a name not UTF-8", func(b *dualwrite.Batch) *dualwrite.Batch { return b.DeleteTopic("a\xffb") }}, `topic name "a\xffb"`},
		},
		newNames: newTopicNames(),
		undecodable: []undecodable{
			{"topic", znode.TopicPath("orders"), func(b *dualwrite.Batch) *dualwrite.Batch { return b.UpdateTopic(topic("orders", 1)) }},
		},
		diff:   topicDiffCases(),
		values: topicValuesCases(),
	}
}

func invalidTopicChanges() []invalid {
	return []invalid{
		{"empty topic name", func(b *dualwrite.Batch) *dualwrite.Batch { return b.CreateTopic(withPartition("", 0)) }},
		{"topic name with a slash", func(b *dualwrite.Batch) *dualwrite.Batch { return b.CreateTopic(withPartition("a/b", 0)) }},
		{"topic name ..", func(b *dualwrite.Batch) *dualwrite.Batch { return b.UpdateTopic(withPartition("..", 0)) }},
		{"topic name with NUL", func(b *dualwrite.Batch) *dualwrite.Batch { return b.DeleteTopic("a\x00b") }},
		{"topic without partitions", func(b *dualwrite.Batch) *dualwrite.Batch { return b.CreateTopic(dualwrite.Topic{Name: "orders"}) }},
	}
}

func newTopicNames() []newName {
	long := strings.Repeat("t", 250)
	withName := func(name string) dualwrite.Topic { return topic(name, 1) }
	return []newName{
		{"topic name of 250 characters", `topic name "` + long + `": 250 characters`, func(b *dualwrite.Batch) *dualwrite.Batch { return b.CreateTopic(withName(long)) }},
		{"topic name with a space", `topic name "a b"`, func(b *dualwrite.Batch) *dualwrite.Batch { return b.CreateTopic(withName("a b")) }},
		{"topic name with a colon", `topic name "a:b"`, func(b *dualwrite.Batch) *dualwrite.Batch { return b.CreateTopic(withName("a:b")) }},
		{"topic name not ASCII", `topic name "zürich"`, func(b *dualwrite.Batch) *dualwrite.Batch { return b.CreateTopic(withName("zürich")) }},
		{"topic name .", `topic name "."`, func(b *dualwrite.Batch) *dualwrite.Batch { return b.CreateTopic(withName(".")) }},
		{"topic updated under a new bad name", `topic name "a b"`, func(b *dualwrite.Batch) *dualwrite.Batch { return b.UpdateTopic(withName("a b")) }},
	}
}

func topicDiffCases() []diffCase {
	return []diffCase{
		{name: "topic new", desired: func(img *dualwrite.Image) { img.Topics["audit"] = topic("audit", 1) }, want: []string{"create-topic audit"}},
		{name: "topic removed", desired: func(img *dualwrite.Image) { delete(img.Topics, "payments") }, want: []string{"delete-topic payments"}},
		{name: "replica order is the preferred leader", desired: editTopic("orders", func(t *dualwrite.Topic) {
			p := t.Partitions[1]
			p.Replicas = []int32{p.Replicas[1], p.Replicas[0], p.Replicas[2]}
			t.Partitions[1] = p
		}), want: []string{"update-topic orders"}},
		{name: "reassignment in progress", desired: editTopic("orders", func(t *dualwrite.Topic) {
			p := t.Partitions[0]
			p.AddingReplicas = []int32{4}
			t.Partitions[0] = p
		}), want: []string{"update-topic orders"}},
		{name: "topic id changed is a replace", desired: editTopic("orders", func(t *dualwrite.Topic) { t.ID = otherUUID }),
			want: []string{"replace-topic orders id ASNFZ4mrze8P7cuph2VDIQ to AAAAAAAAAAEAAAAAAAAAAg", "write-configs topics/orders"}},
		{name: "topic id removed is a replace", desired: editTopic("orders", func(t *dualwrite.Topic) { t.ID = znode.Uuid{} }),
			want: []string{"replace-topic orders id ASNFZ4mrze8P7cuph2VDIQ to none", "write-configs topics/orders"}},
		{name: "topic id added is an update", current: editTopic("orders", func(t *dualwrite.Topic) { t.ID = znode.Uuid{} }),
			want: []string{"update-topic orders"}},
		{name: "Name field need not be set", desired: editTopic("orders", func(t *dualwrite.Topic) { t.Name = "" })},
	}
}

func topicValuesCases() []valuesCase {
	return []valuesCase{
		{name: "replicas and reassignment",
			desired: editTopic("orders", func(t *dualwrite.Topic) {
				p := t.Partitions[0]
				p.Replicas, p.AddingReplicas, p.RemovingReplicas = []int32{1, 2, 3, 4}, []int32{4}, []int32{1}
				t.Partitions[0] = p
			}),
			want: "update-topic orders\n    partition 0 replicas: [1,2,3] -> [1,2,3,4]\n    partition 0 adding_replicas: (none) -> [4]\n    partition 0 removing_replicas: (none) -> [1]\n"},
		{name: "topic created",
			current: func(img *dualwrite.Image) { delete(img.Topics, "payments") },
			want: "create-topic payments\n    topic_id: (none) -> ASNFZ4mrze8P7cuph2VDIQ\n    partition 0 replicas: (none) -> [1,2,3]\n" +
				"    partition 0 leader: (none) -> 1\n    partition 0 leader_epoch: (none) -> 0\n    partition 0 isr: (none) -> [1,2,3]\n" +
				"    partition 0 leader_recovery_state: (none) -> 0\n"},
	}
}
