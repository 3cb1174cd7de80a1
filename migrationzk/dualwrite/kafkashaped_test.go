package dualwrite_test

// This file holds a Kafka-shaped migration client: the write sequences of
// Kafka 3.9's ZkTopicMigrationClient, ZkConfigMigrationClient,
// ZkAclMigrationClient and ZkMigrationClient, reproduced request for
// request with the raw go-zookeeper client, so that the tests can show
// where they go wrong next to the same situation through dualwrite.
// Nothing in it is used for anything else.

import (
	"errors"
	"path"
	"strings"

	"github.com/go-zookeeper/zk"

	"github.com/kraftmigration/zkwriter/internal/zkerr"
	"github.com/kraftmigration/zkwriter/migrationzk"
	"github.com/kraftmigration/zkwriter/migrationzk/dualwrite"
	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

// kafkaShaped writes as a Kafka 3.9 KRaft controller does: every request
// in its own fenced multi, notifications as plain creates after it. s is
// its in-memory ZkMigrationLeadershipState.
type kafkaShaped struct {
	c    *cluster
	conn *zk.Conn
	s    migrationzk.State
}

// kafkaShapedClient writes through the cluster's writer session from
// state s, which holds the fence the cluster's claim gave.
func (c *cluster) kafkaShapedClient(s migrationzk.State) *kafkaShaped {
	return &kafkaShaped{c: c, conn: c.conn, s: s}
}

// kafkaShapedMulti is one fenced request: [Check /controller_epoch, Check
// /migration, op], or on the call's last request [Check /controller_epoch,
// SetData /migration = s at its version, op]. On the last, the version
// kept is the new one when the SetData succeeded, else the one sent.
func (k *kafkaShaped) kafkaShapedMulti(op any, last bool) error {
	reqs := []any{&zk.CheckVersionRequest{Path: k.c.p("/controller_epoch"), Version: k.s.ZkControllerEpochZkVersion}}
	if last {
		m := znode.Migration{KRaftMetadataOffset: k.s.KRaftMetadataOffset, KRaftControllerID: k.s.KRaftControllerID,
			KRaftMetadataEpoch: k.s.KRaftMetadataEpoch, KRaftControllerEpoch: k.s.KRaftControllerEpoch}
		reqs = append(reqs, &zk.SetDataRequest{Path: k.c.p("/migration"), Data: m.Encode(), Version: k.s.MigrationZkVersion})
	} else {
		reqs = append(reqs, &zk.CheckVersionRequest{Path: k.c.p("/migration"), Version: k.s.MigrationZkVersion})
	}
	res, err := k.conn.Multi(append(reqs, op)...)
	if last && err == nil {
		k.s.MigrationZkVersion = res[1].Stat.Version
	}
	return err
}

// kafkaShapedCreate is a create inside a fenced request, with the ACL of
// an unsecured cluster.
func (k *kafkaShaped) kafkaShapedCreate(p string, data []byte) *zk.CreateRequest {
	return &zk.CreateRequest{Path: k.c.p(p), Data: data, Acl: zk.WorldACL(zk.PermAll)}
}

// kafkaShapedResend sends a plain create until ZooKeeper answers, resent
// unchanged after a lost connection as Kafka's
// retryRequestsUntilConnected resends it.
func (k *kafkaShaped) kafkaShapedResend(p string, data []byte, flags int32, acl []zk.ACL) error {
	var err error
	for attempt := 0; attempt < 10; attempt++ {
		if _, err = k.conn.Create(k.c.p(p), data, flags, acl); !zkerr.Retryable(err) {
			return err
		}
	}
	return err
}

// kafkaShapedCreateRecursive is createRecursive: the path and its missing
// parents, null data, NodeExists taken for success.
func (k *kafkaShaped) kafkaShapedCreateRecursive(p string, acl func(string) []zk.ACL) {
	k.c.t.Helper()
	for i := 1; i <= len(p); i++ {
		if i < len(p) && p[i] != '/' {
			continue
		}
		if err := k.kafkaShapedResend(p[:i], nil, 0, acl(p[:i])); err != nil && !errors.Is(err, zk.ErrNodeExists) {
			k.c.t.Fatalf("createRecursive %s: %v", p[:i], err)
		}
	}
}

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

// kafkaShapedWriteResourceACLs is writeResourceAcls: SetData the ACL
// znode; on NoNode create it; on any other outcome, failures included, a
// plain notification whose result is ignored.
func (k *kafkaShaped) kafkaShapedWriteResourceACLs(p dualwrite.ResourcePattern, entries znode.ACLs) error {
	aclPath := znode.LiteralACLPath(p.Type, p.Name)
	err := k.kafkaShapedMulti(&zk.SetDataRequest{Path: k.c.p(aclPath), Data: entries.Encode(), Version: -1}, true)
	if errors.Is(err, zk.ErrNoNode) {
		if err = k.kafkaShapedMulti(k.kafkaShapedCreate(aclPath, entries.Encode()), true); errors.Is(err, zk.ErrNoNode) {
			return err
		}
	}
	change := znode.LiteralACLChange{ResourceType: p.Type, Name: p.Name}.Encode()
	_ = k.kafkaShapedResend(znode.LiteralACLChangePrefix, change, zk.FlagSequence, zk.WorldACL(zk.PermAll))
	return err
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

// kafkaShapedDeletePartitions is deleteTopicPartitions: a delete of each
// partition znode, its state left in place.
func (k *kafkaShaped) kafkaShapedDeletePartitions(topic string, ids []int32) error {
	var errs []error
	for i, id := range ids {
		errs = append(errs, k.kafkaShapedMulti(&zk.DeleteRequest{Path: k.c.p(znode.PartitionPath(topic, id)), Version: -1}, i == len(ids)-1))
	}
	return errors.Join(errs...)
}

// kafkaShapedUpdatePartitions is updateTopicPartitions, which
// handleSnapshot also calls for partitions ZooKeeper lacks: a SetData of
// each state.
func (k *kafkaShaped) kafkaShapedUpdatePartitions(topic string, states map[int32]dualwrite.PartitionState) error {
	var errs []error
	i := 0
	for id, st := range states {
		i++
		state := znode.PartitionState{ControllerEpoch: k.s.KRaftControllerEpoch, Leader: st.Leader, LeaderEpoch: st.LeaderEpoch, ISR: st.ISR}
		req := &zk.SetDataRequest{Path: k.c.p(znode.PartitionStatePath(topic, id)), Data: state.Encode(), Version: -1}
		errs = append(errs, k.kafkaShapedMulti(req, i == len(states)))
	}
	return errors.Join(errs...)
}

// kafkaShapedSyncProducerID is handleSnapshot's producer id step and
// writeProducerId: rewrite the block unless the next id it gives equals
// KRaft's next producer id, with the block [next, next+999].
func (k *kafkaShaped) kafkaShapedSyncProducerID(next int64) error {
	data, _, err := k.conn.Get(k.c.p(znode.ProducerIDBlockPath))
	if err != nil {
		return err
	}
	if b, err := znode.DecodeProducerIDBlock(data); err == nil && b.NextBlockFirstID() == next {
		return nil
	}
	block := znode.MigrationProducerIDBlock(next).Encode()
	return k.kafkaShapedMulti(&zk.SetDataRequest{Path: k.c.p(znode.ProducerIDBlockPath), Data: block, Version: -1}, true)
}

// kafkaShapedSecureACL is defaultAcls of a secured cluster (zookeeper.set.acl)
// for a path: all to the authenticated creator, and read to the world
// unless the path is sensitive (a plain string prefix test).
func kafkaShapedSecureACL(p string) []zk.ACL {
	creator := zk.AuthACL(zk.PermAll)
	for _, sensitive := range []string{"/config/users", "/config/brokers", "/delegation_token/tokens"} {
		if strings.HasPrefix(p, sensitive) {
			return creator
		}
	}
	return append(creator, zk.WorldACL(zk.PermRead)...)
}
