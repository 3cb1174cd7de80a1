package dualwrite_test

import (
	"testing"

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

// Fault: none. Configs are written with one notification per change, none
// for an unchanged write, and deleted with one more.
func TestWriteConfigsNotifies(t *testing.T) {
	c := newCluster(t)
	res := dualwrite.ConfigResource{Type: dualwrite.BrokerConfig, Name: "1"}
	s, err := c.c.WriteConfigs(testContext(t), at(c.s, 300), res, map[string]string{"log.retention.ms": "1000"})
	if err != nil {
		t.Fatal(err)
	}
	if s, err = c.c.WriteConfigs(testContext(t), at(s, 301), res, map[string]string{"log.retention.ms": "1000"}); err != nil {
		t.Fatal(err)
	}
	if s, err = c.c.DeleteConfigs(testContext(t), at(s, 302), res); err != nil {
		t.Fatal(err)
	}
	if s, err = c.c.DeleteConfigs(testContext(t), at(s, 303), res); err != nil {
		t.Fatal(err)
	}
	got := c.notifications("/config/changes", "config_change_")
	want := `{"version":2,"entity_path":"brokers/1"}`
	if len(got) != 2 || got[0] != want || got[1] != want {
		t.Fatalf("notifications %q", got)
	}
	c.checkState(s)
}
