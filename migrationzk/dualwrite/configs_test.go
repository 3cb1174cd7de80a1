package dualwrite_test

import (
	"errors"
	"path"
	"reflect"
	"strings"
	"testing"

	"github.com/go-zookeeper/zk"

	"github.com/kraftmigration/zkwriter/migrationzk"
	"github.com/kraftmigration/zkwriter/migrationzk/dualwrite"
	"github.com/kraftmigration/zkwriter/migrationzk/zktest"
	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

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

// Fault: none. testWriteNewTopicConfigs and testWriteExistingTopicConfigs:
// writeConfigs of a topic with one config gives version 1 and leaves
// exactly that config, whether the znode was new or held others.
func TestKafkaTopicConfigsNewAndExisting(t *testing.T) {
	for _, existing := range []bool{false, true} {
		c := newCluster(t)
		if existing {
			c.create("/config/topics/test", znode.Config{"flush.ms": "60000", "retention.ms": "300000"}.Encode())
		}
		s, err := c.c.WriteConfigs(testContext(t), at(c.s, 200), dualwrite.ConfigResource{Type: dualwrite.TopicConfig, Name: "test"},
			map[string]string{"segment.ms": "100000"})
		if err != nil {
			t.Fatal(err)
		}
		c.wantVersion(s, 1)
		c.wantData("/config/topics/test", `{"version":1,"config":{"segment.ms":"100000"}}`)
	}
}

// Fault: none. testMigrationBrokerConfigs: writeConfigs of broker 1 makes
// config_change_0000000000 = {"version":2,"entity_path":"brokers/1"},
// deleteConfigs config_change_0000000001 with the same data, and there is
// no config_change_0000000002. Versions 1 and 2.
func TestKafkaBrokerConfigNotifications(t *testing.T) {
	c := newCluster(t)
	c.create("/config/brokers/1", znode.Config{"default.replication.factor": "1"}.Encode())
	s, err := c.c.WriteConfigs(testContext(t), at(c.s, 200), brokerOne, map[string]string{"default.replication.factor": "2"})
	if err != nil {
		t.Fatal(err)
	}
	c.wantVersion(s, 1)
	if s, err = c.c.DeleteConfigs(testContext(t), at(s, 201), brokerOne); err != nil {
		t.Fatal(err)
	}
	c.wantVersion(s, 2)
	want := `{"version":2,"entity_path":"brokers/1"}`
	if got := c.children(znode.ConfigChangesPath); strings.Join(got, ",") != "config_change_0000000000,config_change_0000000001" {
		t.Fatalf("notifications %v", got)
	}
	c.wantData("/config/changes/config_change_0000000000", want)
	c.wantData("/config/changes/config_change_0000000001", want)
	if c.version("/config/brokers/1") != -1 {
		t.Fatal("broker 1's configs are still there")
	}
}

// Fault: none. testCreateConfigChangeNotification: the notification's
// parent is created when missing. Kafka's test echoes its argument; ours
// is the entity path Kafka's migration writes, topics/topic1.
func TestKafkaConfigChangeNotificationParent(t *testing.T) {
	c := newCluster(t)
	if err := c.admin.Delete(c.p(znode.ConfigChangesPath), -1); err != nil {
		t.Fatal(err)
	}
	s, err := c.c.WriteConfigs(testContext(t), at(c.s, 200), dualwrite.ConfigResource{Type: dualwrite.TopicConfig, Name: "topic1"},
		map[string]string{"retention.ms": "1"})
	if err != nil {
		t.Fatal(err)
	}
	c.wantData(znode.ConfigChangesPath, "")
	c.wantData("/config/changes/config_change_0000000000", `{"version":2,"entity_path":"topics/topic1"}`)
	c.wantVersion(s, 1)
}

// Fault: none. A config value that is refused is not printed: it may be a
// password.
func TestRefusedConfigValueNotPrinted(t *testing.T) {
	c := newCluster(t)
	_, err := c.c.WriteConfigs(testContext(t), at(c.s, 400), brokerOne, map[string]string{"ssl.key.password": "s3cr\xffet"})
	if !errors.Is(err, migrationzk.ErrInvalidArgument) || strings.Contains(err.Error(), "s3cr") {
		t.Fatalf("got %v, want ErrInvalidArgument without the value", err)
	}
}

// Fault: none (pure). A topic replaced under another id loses its config
// with it, and the write that recreates the config shows each key as it
// is before and after: old -> new where it changes, unchanged ones
// marked as rewritten, never as added from nothing; secrets stay hidden.
func TestDiffReplacedTopicConfigs(t *testing.T) {
	current, desired := fullImage(), fullImage()
	current.Configs[topicOrders]["ssl.key.password"] = "old-secret"
	editTopic("orders", func(t *dualwrite.Topic) { t.ID = znode.Uuid{MostSignificantBits: 1, LeastSignificantBits: 2} })(&desired)
	desired.Configs[topicOrders] = map[string]string{"retention.ms": "2000", "cleanup.policy": "compact", "ssl.key.password": "old-secret"}
	p := dualwrite.Diff(current, desired)
	var got []string
	for _, c := range p.Changes {
		if c.Kind == dualwrite.ChangeWriteConfigs {
			for _, f := range c.Fields {
				got = append(got, f.String())
			}
		}
	}
	want := []string{
		"cleanup.policy: compact (unchanged, rewritten with the recreated topic)",
		"retention.ms: 1000 -> 2000",
		"ssl.key.password: (secret) (unchanged, rewritten with the recreated topic)",
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("write-configs fields %q, want %q\n%s", got, want, p)
	}
	if strings.Contains(p.String(), "old-secret") || p.Counts()[dualwrite.ChangeReplaceTopic] != 1 {
		t.Fatalf("plan:\n%s", p)
	}
	checkJSONRoundTrip(t, p)

	// A key the desired config drops goes with the topic.
	desired.Configs[topicOrders] = map[string]string{"retention.ms": "1000"}
	p = dualwrite.Diff(current, desired)
	if s := p.String(); !strings.Contains(s, "write-configs topics/orders\n    retention.ms: 1000 (unchanged, rewritten with the recreated topic)\n    cleanup.policy: compact -> (none)\n") {
		t.Fatalf("plan:\n%s", s)
	}
}

// Fault: reply lost after commit, on the request that creates the config
// change notification. Kafka creates it with a plain sequential create
// after the multi and resends it: two notifications of one change.
// dualwrite creates it inside the change's transaction: one.
func TestDefectNotificationDuplicatedByResend(t *testing.T) {
	k := newCluster(t)
	k.faults.Arm(zktest.Fault{Action: zktest.DropReply, Op: zktest.OpCreate, Path: znode.ConfigChangePrefix})
	err := k.kafkaShapedClient(at(k.s, 300)).kafkaShapedWriteConfigs(znode.BrokerConfigEntity("1"), znode.Config{"a": "1"}, worldACL)
	if err != nil {
		t.Fatal(err)
	}
	if got := k.notifications(znode.ConfigChangesPath, "config_change_"); len(got) != 2 {
		t.Fatalf("Kafka-shaped: %d notifications %q; the defect is 2", len(got), got)
	}

	c := newCluster(t)
	c.faults.Arm(zktest.Fault{Action: zktest.DropReply, Op: zktest.OpCreate, Path: znode.ConfigChangePrefix})
	s, err := c.c.WriteConfigs(testContext(t), at(c.s, 300), brokerOne, map[string]string{"a": "1"})
	if err != nil {
		t.Fatal(err)
	}
	if got := c.notifications(znode.ConfigChangesPath, "config_change_"); len(got) != 1 {
		t.Fatalf("dualwrite: %d notifications %q, want 1", len(got), got)
	}
	c.checkState(s)
}

// Fault: request lost, a rival controller elected before it is resent,
// on the request that creates the config change notification. Kafka's
// notification is a plain create: the fenced controller creates it after
// the rival's election.
func TestDefectFencedNotifyKafkaShaped(t *testing.T) {
	k := newCluster(t)
	k.faults.Arm(zktest.Fault{Action: zktest.DropRequest, Op: zktest.OpCreate, Path: znode.ConfigChangePrefix, Then: k.raiseEpoch})
	err := k.kafkaShapedClient(at(k.s, 300)).kafkaShapedWriteConfigs(znode.BrokerConfigEntity("1"), znode.Config{"a": "1"}, worldACL)
	if err != nil {
		t.Fatal(err)
	}
	if k.czxid("/config/changes/config_change_0000000000") < k.mzxid("/controller_epoch") {
		t.Fatal("Kafka-shaped: the notification predates the rival's election; the defect is that it follows it")
	}
}

// Fault: a rival controller elected right when dualwrite's transaction
// reaches the server (request lost, then resent), and right after it
// commits (reply lost). Before, nothing is written; after, the change and
// its notification are in whole, older than the election. Either way the
// writer is fenced and retired, and the call's outcome is unknown: the
// client cannot tell a lost request from a lost reply.
func TestDefectFencedNotifyDualwrite(t *testing.T) {
	c := newCluster(t)
	before := c.tree()
	c.faults.Arm(zktest.Fault{Action: zktest.DropRequest, Op: zktest.OpMulti, Path: transaction, Then: c.raiseEpoch})
	_, err := c.c.WriteConfigs(testContext(t), at(c.s, 300), brokerOne, map[string]string{"a": "1"})
	c.checkFenced(err, before)

	c = newCluster(t)
	c.faults.Arm(zktest.Fault{Action: zktest.DropReply, Op: zktest.OpMulti, Path: transaction, Then: c.raiseEpoch})
	_, err = c.c.WriteConfigs(testContext(t), at(c.s, 300), brokerOne, map[string]string{"a": "1"})
	if !errors.Is(err, migrationzk.ErrFenced) || !errors.Is(err, migrationzk.ErrOutcomeUnknown) {
		t.Fatalf("got %v, want ErrFenced with the outcome unknown", err)
	}
	if got := c.notifications(znode.ConfigChangesPath, "config_change_"); len(got) != 1 || c.config("/config/brokers/1")["a"] != "1" {
		t.Fatalf("the change landed before the election: want its config and 1 notification, got %q", got)
	}
	if c.czxid("/config/changes/config_change_0000000000") > c.mzxid("/controller_epoch") {
		t.Fatal("dualwrite created a notification after the rival's election")
	}
}

func worldACL(string) []zk.ACL { return zk.WorldACL(zk.PermAll) }

// kafkaShapedNotifyConfig is createConfigChangeNotification: ensure
// /config/changes, then a plain sequential create of the notification.
func (k *kafkaShaped) kafkaShapedNotifyConfig(entityPath string) error {
	_ = k.kafkaShapedResend(znode.ConfigChangesPath, nil, 0, zk.WorldACL(zk.PermAll))
	data := znode.ConfigChange{EntityPath: entityPath}.Encode()
	return k.kafkaShapedResend(znode.ConfigChangePrefix, data, zk.FlagSequence, zk.WorldACL(zk.PermAll))
}

// kafkaShapedWriteConfigs is writeConfigs and writeClientQuotas: SetData
// the entity's znode; on NoNode create its parent recursively and the
// znode, with the ACL acl computes from the entity's name, as Kafka
// computes it; once the multi succeeded, a plain notification.
func (k *kafkaShaped) kafkaShapedWriteConfigs(e znode.ConfigEntity, cfg znode.Config, acl func(string) []zk.ACL) error {
	err := k.kafkaShapedMulti(&zk.SetDataRequest{Path: k.c.p(e.Path()), Data: cfg.Encode(), Version: -1}, true)
	if errors.Is(err, zk.ErrNoNode) {
		k.kafkaShapedCreateRecursive(path.Dir(e.Path()), acl)
		err = k.kafkaShapedMulti(&zk.CreateRequest{Path: k.c.p(e.Path()), Data: cfg.Encode(), Acl: acl(e.Name)}, true)
	}
	if err != nil {
		return err
	}
	return k.kafkaShapedNotifyConfig(e.EntityPath())
}

// configRows are the configs' rows of the tables every domain fills.
func configRows() domainRows {
	configs := func(r dualwrite.ConfigResource, cfg map[string]string) func(*dualwrite.Batch) *dualwrite.Batch {
		return func(b *dualwrite.Batch) *dualwrite.Batch { return b.WriteConfigs(r, cfg) }
	}
	return domainRows{
		invalid: []invalid{
			{"config resource of an unknown type", func(b *dualwrite.Batch) *dualwrite.Batch {
				return b.WriteConfigs(dualwrite.ConfigResource{Type: "user", Name: "alice"}, map[string]string{"a": "b"})
			}},
			{"broker name with a slash", func(b *dualwrite.Batch) *dualwrite.Batch {
				return b.DeleteConfigs(dualwrite.ConfigResource{Type: dualwrite.BrokerConfig, Name: "1/2"})
			}},
		},
		refused: []namedInvalid{
			{invalid{"config key not UTF-8", configs(brokerOne, map[string]string{"ok": "1", "log.\xff": "1"})}, `config key "log.\xff"`},
			{invalid{"config value not UTF-8", configs(brokerOne, map[string]string{"ssl.key.password": "s3cr\xffet"})}, `config "ssl.key.password": the value`},
			{invalid{"topic config of a topic not UTF-8", configs(dualwrite.ConfigResource{Type: dualwrite.TopicConfig, Name: "\xfe"}, nil)}, `topic name "\xfe"`},
		},
		newNames: newConfigNames(),
		undecodable: []undecodable{
			{"topic config", "/config/topics/orders", func(b *dualwrite.Batch) *dualwrite.Batch {
				return b.WriteConfigs(dualwrite.ConfigResource{Type: dualwrite.TopicConfig, Name: "orders"}, map[string]string{"a": "b"})
			}},
		},
		diff: configDiffCases(),
		values: []valuesCase{
			{name: "config keys added, removed and changed",
				desired: func(img *dualwrite.Image) {
					img.Configs[topicOrders] = map[string]string{"retention.ms": "2000", "segment.bytes": "1024"}
				},
				want: "write-configs topics/orders\n    retention.ms: 1000 -> 2000\n    segment.bytes: (none) -> 1024\n    cleanup.policy: compact -> (none)\n"},
			{name: "configs deleted",
				desired: func(img *dualwrite.Image) { delete(img.Configs, brokerOne) },
				want:    "delete-configs brokers/1\n    log.retention.hours: 1 -> (none)\n"},
		},
	}
}

func newConfigNames() []newName {
	configs := func(r dualwrite.ConfigResource) func(*dualwrite.Batch) *dualwrite.Batch {
		return func(b *dualwrite.Batch) *dualwrite.Batch { return b.WriteConfigs(r, map[string]string{"a": "b"}) }
	}
	return []newName{
		{"configs of a new topic with a bad name", `topic name "a b"`, configs(dualwrite.ConfigResource{Type: dualwrite.TopicConfig, Name: "a b"})},
		{"configs of a new broker not numbered", `broker name "one"`, configs(dualwrite.ConfigResource{Type: dualwrite.BrokerConfig, Name: "one"})},
		{"configs of a new broker numbered -1", `broker name "-1"`, configs(dualwrite.ConfigResource{Type: dualwrite.BrokerConfig, Name: "-1"})},
	}
}

func configDiffCases() []diffCase {
	return []diffCase{
		{name: "config changed", desired: func(img *dualwrite.Image) { img.Configs[brokerOne] = map[string]string{"log.retention.hours": "2"} },
			want: []string{"write-configs brokers/1"}},
		{name: "config new", desired: func(img *dualwrite.Image) {
			img.Configs[dualwrite.ConfigResource{Type: dualwrite.BrokerConfig}] = map[string]string{"a": "b"}
		}, want: []string{"write-configs brokers/<default>"}},
		{name: "config removed", desired: func(img *dualwrite.Image) { delete(img.Configs, topicOrders) }, want: []string{"delete-configs topics/orders"}},
		{name: "config emptied", desired: func(img *dualwrite.Image) { img.Configs[topicOrders] = map[string]string{} }, want: []string{"delete-configs topics/orders"}},
		{name: "empty config is none", current: func(img *dualwrite.Image) {
			img.Configs[dualwrite.ConfigResource{Type: dualwrite.TopicConfig, Name: "payments"}] = map[string]string{}
		}},
	}
}
