//go:build unix

package main

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/kraftmigration/zkwriter/migrationzk"
	"github.com/kraftmigration/zkwriter/migrationzk/dualwrite"
	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

// The cluster the sandbox holds.
const (
	// kafkaRoot is the cluster's chroot.
	kafkaRoot = "/kafka"
	// zkControllerEpoch is the epoch of the last ZooKeeper-mode
	// controller, which /controller_epoch holds before the migration.
	zkControllerEpoch = 43
	// kraftControllerID and kraftEpoch are the KRaft controller that
	// migrated the cluster and mirrors its metadata.
	kraftControllerID = 3000
	kraftEpoch        = 50
	// deltaControllerID and deltaEpoch are the KRaft controller elected
	// next, which mirrors the delta of zksandbox delta.
	deltaControllerID = 3001
	deltaEpoch        = 51
)

// Resources of the cluster.
var (
	ordersConfig = dualwrite.ConfigResource{Type: dualwrite.TopicConfig, Name: "orders"}
	ordersACLs   = dualwrite.ResourcePattern{Type: znode.ResourceTopic, Name: "orders", PatternType: znode.PatternLiteral}
	aliceReads   = znode.ACLEntry{Principal: "User:alice", PermissionType: znode.PermissionAllow, Operation: znode.OperationRead, Host: "*"}
	bobWrites    = znode.ACLEntry{Principal: "User:bob", PermissionType: znode.PermissionAllow, Operation: znode.OperationWrite, Host: "*"}
)

// seed lays out the cluster under root: first what the ZooKeeper-mode
// cluster left (brokers, topic payments, /controller_epoch), then what the
// KRaft controller wrote since it took over in dual-write. The KRaft
// controller's metadata, which ZooKeeper then mirrors, goes to
// metadata, a Kafka log directory.
func seed(ctx context.Context, conn *zk.Conn, root, metadata string) error {
	w, err := migrationzk.New(conn, migrationzk.WithRoot(root))
	if err != nil {
		return err
	}
	if err := w.CreateTopLevelPaths(ctx); err != nil {
		return err
	}
	t := newSeededTopics()
	offset, err := writeMetadata(metadata, t)
	if err != nil {
		return fmt.Errorf("the KRaft metadata: %w", err)
	}
	if err := seedZooKeeperMode(conn, root, t); err != nil {
		return fmt.Errorf("the ZooKeeper-mode cluster: %w", err)
	}
	return seedDualWrite(ctx, w, t, offset)
}

// seedZooKeeperMode writes under root what a ZooKeeper-mode cluster
// leaves: the cluster id, three live brokers (ephemeral, held by conn),
// topic payments of t as its controller created it in epoch
// zkControllerEpoch, and /controller_epoch.
func seedZooKeeperMode(conn *zk.Conn, root string, t seededTopics) error {
	acl := zk.WorldACL(zk.PermAll)
	create := func(path string, data []byte, flags int32) *zk.CreateRequest {
		return &zk.CreateRequest{Path: root + path, Data: data, Acl: acl, Flags: flags}
	}
	ops := []any{
		create("/cluster", nil, 0),
		create("/cluster/id", []byte(`{"version":"1","id":"`+clusterID+`"}`), 0),
		create(znode.ControllerEpochPath, znode.EncodeControllerEpoch(zkControllerEpoch), 0),
	}
	for b := 1; b <= 3; b++ {
		reg := fmt.Sprintf(`{"features":{},"listener_security_protocol_map":{"PLAINTEXT":"PLAINTEXT"},"endpoints":["PLAINTEXT://localhost:%d"],"jmx_port":-1,"port":%d,"host":"localhost","version":5,"kraftControllerEpoch":-1,"timestamp":"%d"}`,
			9091+b, 9091+b, time.Now().UnixMilli())
		ops = append(ops, create(fmt.Sprintf("/brokers/ids/%d", b), []byte(reg), zk.FlagEphemeral))
	}
	payments := znode.Topic{ID: t.payments, Partitions: t.paymentsParts}
	dir := znode.TopicPath("payments")
	ops = append(ops, create(dir, payments.Encode(), 0), create(dir+"/partitions", nil, 0),
		create(znode.TopicConfigEntity("payments").Path(), znode.Config{}.Encode(), 0))
	for p, a := range payments.Partitions {
		st := znode.PartitionState{ControllerEpoch: zkControllerEpoch, Leader: a.Replicas[0], LeaderEpoch: 3, ISR: a.Replicas}
		ops = append(ops, create(fmt.Sprintf("%s/partitions/%d", dir, p), nil, 0), create(znode.PartitionStatePath("payments", p), st.Encode(), 0))
	}
	_, err := conn.Multi(sortedCreates(ops)...)
	return err
}

// sortedCreates orders creates so that each parent comes before its
// children.
func sortedCreates(ops []any) []any {
	out := make([]any, 0, len(ops))
	for depth := 0; len(out) < len(ops); depth++ {
		for _, op := range ops {
			if strings.Count(op.(*zk.CreateRequest).Path, "/") == depth {
				out = append(out, op)
			}
		}
	}
	return out
}

// seedDualWrite is the KRaft controller's tenure so far: it claims
// leadership, names itself in /migration, and mirrors one delta (topic
// orders of t created, a leader of payments moved, configs, a quota and
// ACLs), which stamps its partition states with the KRaft epoch, above
// the epoch the next ZooKeeper-mode controller would get; the checkpoint
// is at offset, the last of KRaft's log.
func seedDualWrite(ctx context.Context, w *migrationzk.Writer, t seededTopics, offset int64) error {
	s, err := tenure(ctx, w, kraftControllerID, kraftEpoch)
	if err != nil {
		return err
	}
	c, err := dualwrite.New(w)
	if err != nil {
		return err
	}
	orders := dualwrite.Topic{Name: "orders", ID: t.orders, Partitions: map[int32]dualwrite.Partition{}}
	for p, r := range t.ordersParts {
		orders.Partitions[p] = dualwrite.Partition{Replicas: r, State: dualwrite.PartitionState{Leader: r[0], ISR: r}}
	}
	s.KRaftMetadataOffset = offset
	_, _, err = c.Batch().
		CreateTopic(orders).
		UpdatePartitions("payments", map[int32]dualwrite.PartitionState{0: {Leader: 2, LeaderEpoch: 4, ISR: []int32{2, 3}}}).
		WriteConfigs(ordersConfig, map[string]string{"retention.ms": "86400000", "cleanup.policy": "delete"}).
		WriteConfigs(dualwrite.ConfigResource{Type: dualwrite.BrokerConfig, Name: "1"}, map[string]string{"log.retention.hours": "168"}).
		WriteClientQuotas(dualwrite.QuotaEntity{User: "alice"}, map[string]float64{"producer_byte_rate": 1048576}, nil).
		WriteACLs(ordersACLs, []znode.ACLEntry{aliceReads}).
		Apply(ctx, s)
	return err
}

// tenure claims leadership for KRaft controller id in epoch, reads or
// creates /migration and names the controller in it, as a KRaft
// controller does when it becomes leader during a migration.
func tenure(ctx context.Context, w *migrationzk.Writer, id, epoch int32) (migrationzk.State, error) {
	s := migrationzk.InitialState()
	s.KRaftControllerID, s.KRaftControllerEpoch, s.KRaftMetadataEpoch = id, epoch, epoch
	s, err := w.ClaimLeadership(ctx, s)
	if err != nil {
		return s, fmt.Errorf("claim leadership: %w", err)
	}
	if s, _, err = w.GetOrCreate(ctx, s); err != nil {
		return s, fmt.Errorf("read /migration: %w", err)
	}
	s.KRaftMetadataEpoch = epoch
	return w.Update(ctx, s)
}

// delta is what the KRaft controller elected next mirrors: a leader of
// orders moves, a topic config changes and an ACL entry is added. It
// commits them to the sandbox's KRaft metadata log first, in a new leader
// epoch, then mirrors them. It is
// planned from what ZooKeeper holds: only what differs is written, its
// partition state stamped with the new KRaft epoch, and when nothing
// differs no controller takes over and nothing is written. Either way it
// prints what it did and what the cluster holds then.
func (sb sandbox) delta(ctx context.Context) error {
	addr, err := sb.addr()
	if err != nil {
		return err
	}
	conn, root, err := openZK(ctx, addr)
	if err != nil {
		return err
	}
	defer conn.Close()
	w, current, err := readCluster(ctx, conn, root)
	if err != nil {
		return err
	}
	plan := dualwrite.Diff(current, withDelta(current))
	if plan.Empty() {
		fmt.Fprintf(sb.stdout, "Nothing to mirror: ZooKeeper holds the delta already (orders-1 led by broker 3, retention.ms 3600000, User:bob may write to orders); nothing was written. The cluster holds:\n")
		return describe(ctx, w, current, sb.stdout)
	}
	id, epoch, err := nextController(ctx, w)
	if err != nil {
		return err
	}
	offset, err := appendDelta(ctx, sb.path(metadataDir), current.Topics["orders"].ID, id, epoch)
	if err != nil {
		return err
	}
	err = sb.mirror(ctx, w, plan, id, epoch, offset)
	if err != nil {
		return err
	}
	fmt.Fprintf(sb.stdout, "KRaft controller %d (epoch %d) took over and mirrored a delta, checkpoint at offset %d:\n%s\nThe cluster holds:\n", id, epoch, offset, plan)
	_, after, err := readCluster(ctx, conn, root)
	if err != nil {
		return err
	}
	return describe(ctx, w, after, sb.stdout)
}

// withDelta returns img with the delta applied: orders-1 led by broker 3
// in leader epoch 1 with ISR [3 1], retention.ms of orders 3600000, and
// User:bob allowed to write to orders.
func withDelta(img dualwrite.Image) dualwrite.Image {
	out := img
	out.Topics, out.Configs, out.ACLs = maps.Clone(img.Topics), maps.Clone(img.Configs), maps.Clone(img.ACLs)
	if orders, ok := out.Topics["orders"]; ok {
		orders.Partitions = maps.Clone(orders.Partitions)
		if p, ok := orders.Partitions[1]; ok {
			p.State.Leader, p.State.LeaderEpoch, p.State.ISR = 3, 1, []int32{3, 1}
			orders.Partitions[1] = p
		}
		out.Topics["orders"] = orders
	}
	config := maps.Clone(out.Configs[ordersConfig])
	if config == nil {
		config = map[string]string{}
	}
	config["retention.ms"] = "3600000"
	out.Configs[ordersConfig] = config
	acls := slices.DeleteFunc(slices.Clone(out.ACLs[ordersACLs]), func(e znode.ACLEntry) bool { return e == bobWrites })
	out.ACLs[ordersACLs] = append(acls, bobWrites)
	return out
}

// nextController is the KRaft controller elected after the one that
// holds /controller, or else wrote /migration last: the next id, in the
// next KRaft epoch; deltaControllerID in deltaEpoch when neither names
// one.
func nextController(ctx context.Context, w *migrationzk.Writer) (id, epoch int32, err error) {
	zs, err := w.Read(ctx, znode.ControllerPath, znode.MigrationPath)
	if err != nil {
		return 0, 0, err
	}
	if c, err := znode.DecodeController(zs[0].Data); zs[0].Exists && err == nil && c.IsKRaft() {
		return c.BrokerID + 1, c.KRaftControllerEpoch + 1, nil
	}
	if m, err := znode.DecodeMigration(zs[1].Data); zs[1].Exists && err == nil && m.KRaftControllerID >= 0 {
		return m.KRaftControllerID + 1, m.KRaftControllerEpoch + 1, nil
	}
	return deltaControllerID, deltaEpoch, nil
}

// mirror claims leadership as KRaft controller id in epoch and applies
// plan in one fenced batch with the checkpoint at offset.
func (sb sandbox) mirror(ctx context.Context, w *migrationzk.Writer, plan dualwrite.Plan, id, epoch int32, offset int64) error {
	s, err := tenure(ctx, w, id, epoch)
	if err != nil {
		return err
	}
	c, err := dualwrite.New(w)
	if err != nil {
		return err
	}
	b := c.Batch()
	if err := plan.AddTo(b); err != nil {
		return err
	}
	s.KRaftMetadataOffset = offset
	_, _, err = b.Apply(ctx, s)
	return err
}

// readCluster returns a Writer under root and the image of the cluster
// it reads there.
func readCluster(ctx context.Context, conn *zk.Conn, root string) (*migrationzk.Writer, dualwrite.Image, error) {
	w, err := migrationzk.New(conn, migrationzk.WithRoot(root))
	if err != nil {
		return nil, dualwrite.Image{}, err
	}
	c, err := dualwrite.New(w)
	if err != nil {
		return nil, dualwrite.Image{}, err
	}
	img, err := c.Read(ctx, nil)
	return w, img, err
}
