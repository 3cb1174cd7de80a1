package dualwrite_test

import (
	"context"
	"testing"

	"github.com/kraftmigration/zkwriter/migrationzk"
	"github.com/kraftmigration/zkwriter/migrationzk/dualwrite"
	"github.com/kraftmigration/zkwriter/migrationzk/zktest"
	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

// call is one change of the fault table: setup brings ZooKeeper to where
// the change starts from, fault-free; apply makes the change under test.
type call struct {
	name  string
	setup func(ctx context.Context, c *dualwrite.Client, s migrationzk.State) (migrationzk.State, error)
	apply func(ctx context.Context, c *dualwrite.Client, s migrationzk.State) (migrationzk.State, error)
}

// noSetup leaves ZooKeeper as newCluster lays it out.
func noSetup(_ context.Context, _ *dualwrite.Client, s migrationzk.State) (migrationzk.State, error) {
	return s, nil
}

// withTopic starts from topic orders with three partitions.
func withTopic(ctx context.Context, c *dualwrite.Client, s migrationzk.State) (migrationzk.State, error) {
	return c.CreateTopic(ctx, s, topic("orders", 3))
}

// topicCalls are the topic and partition changes of the fault table.
func topicCalls() []call {
	moved := topic("orders", 3)
	moved.Partitions[2] = dualwrite.Partition{Replicas: []int32{3, 2, 1}, State: moved.Partitions[2].State}
	return []call{
		{"CreateTopic", noSetup, func(ctx context.Context, c *dualwrite.Client, s migrationzk.State) (migrationzk.State, error) {
			return c.CreateTopic(ctx, s, topic("orders", 3))
		}},
		{"UpdateTopic", withTopic, func(ctx context.Context, c *dualwrite.Client, s migrationzk.State) (migrationzk.State, error) {
			return c.UpdateTopic(ctx, s, moved)
		}},
		{"DeleteTopic", withTopic, func(ctx context.Context, c *dualwrite.Client, s migrationzk.State) (migrationzk.State, error) {
			return c.DeleteTopic(ctx, s, "orders")
		}},
		{"CreatePartitions", withTopic, func(ctx context.Context, c *dualwrite.Client, s migrationzk.State) (migrationzk.State, error) {
			return c.CreatePartitions(ctx, s, "orders", topic("orders", 5).Partitions)
		}},
		{"UpdatePartitions", withTopic, func(ctx context.Context, c *dualwrite.Client, s migrationzk.State) (migrationzk.State, error) {
			return c.UpdatePartitions(ctx, s, "orders", map[int32]dualwrite.PartitionState{
				0: {Leader: 2, LeaderEpoch: 1, ISR: []int32{2, 3}}, 1: {Leader: 3, LeaderEpoch: 1, ISR: []int32{3}}})
		}},
		{"DeletePartitions", withTopic, func(ctx context.Context, c *dualwrite.Client, s migrationzk.State) (migrationzk.State, error) {
			return c.DeletePartitions(ctx, s, "orders", []int32{1, 2})
		}},
	}
}

// configCalls are the config, quota and ACL changes of the fault table.
func configCalls() []call {
	withBrokerConfig := func(ctx context.Context, c *dualwrite.Client, s migrationzk.State) (migrationzk.State, error) {
		return c.WriteConfigs(ctx, s, brokerOne, map[string]string{"log.retention.ms": "1000"})
	}
	withPrefixedACL := func(ctx context.Context, c *dualwrite.Client, s migrationzk.State) (migrationzk.State, error) {
		return c.WriteACLs(ctx, s, prefixBar, readAll)
	}
	return []call{
		{"WriteConfigs", withBrokerConfig, func(ctx context.Context, c *dualwrite.Client, s migrationzk.State) (migrationzk.State, error) {
			return c.WriteConfigs(ctx, s, brokerOne, map[string]string{"log.retention.ms": "2000", "num.io.threads": "8"})
		}},
		{"DeleteConfigs", withBrokerConfig, func(ctx context.Context, c *dualwrite.Client, s migrationzk.State) (migrationzk.State, error) {
			return c.DeleteConfigs(ctx, s, brokerOne)
		}},
		{"WriteClientQuotas", noSetup, func(ctx context.Context, c *dualwrite.Client, s migrationzk.State) (migrationzk.State, error) {
			return c.WriteClientQuotas(ctx, s, aliceQuota, map[string]float64{znode.QuotaConsumerByteRate: 1000},
				map[string]znode.ScramCredential{znode.ScramSHA256: credential})
		}},
		{"WriteACLs", noSetup, func(ctx context.Context, c *dualwrite.Client, s migrationzk.State) (migrationzk.State, error) {
			return c.WriteACLs(ctx, s, literalFoo, readAll)
		}},
		{"DeleteACLs", withPrefixedACL, func(ctx context.Context, c *dualwrite.Client, s migrationzk.State) (migrationzk.State, error) {
			return c.DeleteACLs(ctx, s, prefixBar)
		}},
	}
}

// otherCalls are the token and producer-id changes of the fault table,
// and a batch of several changes.
func otherCalls() []call {
	withToken := func(ctx context.Context, c *dualwrite.Client, s migrationzk.State) (migrationzk.State, error) {
		return c.WriteDelegationToken(ctx, s, token)
	}
	return []call{
		{"WriteDelegationToken", noSetup, func(ctx context.Context, c *dualwrite.Client, s migrationzk.State) (migrationzk.State, error) {
			return c.WriteDelegationToken(ctx, s, token)
		}},
		{"DeleteDelegationToken", withToken, func(ctx context.Context, c *dualwrite.Client, s migrationzk.State) (migrationzk.State, error) {
			return c.DeleteDelegationToken(ctx, s, token.TokenID)
		}},
		{"WriteProducerID", noSetup, func(ctx context.Context, c *dualwrite.Client, s migrationzk.State) (migrationzk.State, error) {
			return c.WriteProducerID(ctx, s, 6000)
		}},
		{"Batch", withTopic, func(ctx context.Context, c *dualwrite.Client, s migrationzk.State) (migrationzk.State, error) {
			st, _, err := c.Batch().
				CreateTopic(topic("payments", 2)).
				DeletePartitions("orders", []int32{2}).
				WriteConfigs(dualwrite.ConfigResource{Type: dualwrite.TopicConfig, Name: "payments"}, map[string]string{"retention.ms": "1"}).
				WriteClientQuotas(aliceQuota, map[string]float64{znode.QuotaProducerByteRate: 1024}, nil).
				WriteACLs(literalFoo, readAll).
				WriteProducerID(7000).
				Apply(ctx, s)
			return st, err
		}},
	}
}

// fault is what goes wrong when the change's transaction is sent.
type fault struct {
	name string
	arm  func(c *cluster)
	// fenced: a rival takes over before the transaction lands, which must
	// then write nothing.
	fenced bool
	// recovered: the transaction lands unacknowledged, and a reread must
	// prove it landed.
	recovered bool
}

// transaction matches the change's transaction, or the checkpoint alone:
// every write of a Client carries /migration.
const transaction = "/migration"

func faultKinds() []fault {
	return []fault{
		{name: "reply-lost", recovered: true, arm: func(c *cluster) {
			c.faults.Arm(zktest.Fault{Action: zktest.DropReply, Op: zktest.OpMulti, Path: transaction})
		}},
		{name: "request-lost", arm: func(c *cluster) {
			c.faults.Arm(zktest.Fault{Action: zktest.DropRequest, Op: zktest.OpMulti, Path: transaction})
		}},
		{name: "rival-epoch", fenced: true, arm: func(c *cluster) {
			c.faults.Arm(zktest.Fault{Action: zktest.DropRequest, Op: zktest.OpMulti, Path: transaction, Then: c.raiseEpoch})
		}},
		{name: "rival-claim", fenced: true, arm: func(c *cluster) {
			c.faults.Arm(zktest.Fault{Action: zktest.DropRequest, Op: zktest.OpMulti, Path: transaction, Then: c.rivalClaims})
		}},
	}
}

// Fault: reply lost after commit, request lost, and a rival controller
// (a raised /controller_epoch, or another KRaft controller's claim) right
// when the transaction reaches the server, for every Client method and a
// Batch. The change lands exactly once, whole, as a fault-free run lands
// it, and the State carries the /migration version ZooKeeper holds; a
// fenced writer writes nothing and is retired.
func TestFaultsEveryMethod(t *testing.T) {
	calls := append(append(topicCalls(), configCalls()...), otherCalls()...)
	for _, cl := range calls {
		for _, f := range faultKinds() {
			t.Run(cl.name+"/"+f.name, func(t *testing.T) { runFault(t, cl, f) })
		}
	}
}

// runFault makes the change of cl under f, and compares ZooKeeper with a
// fault-free run of the same change on a cluster of its own.
func runFault(t *testing.T, cl call, f fault) {
	ctx := testContext(t)
	want, wantState := faultFree(t, cl)
	c := newCluster(t)
	s, err := cl.setup(ctx, c.c, at(c.s, 200))
	if err != nil {
		t.Fatalf("setup: %v", err)
	}
	before := c.tree()
	f.arm(c)
	got, err := cl.apply(ctx, c.c, at(s, 300))
	if f.fenced {
		c.checkFenced(err, before)
		return
	}
	if err != nil {
		t.Fatalf("%s: %v", cl.name, err)
	}
	c.checkState(got)
	if got.Recovered != f.recovered {
		t.Fatalf("State.Recovered %v, want %v", got.Recovered, f.recovered)
	}
	if got.MigrationZkVersion != wantState.MigrationZkVersion {
		t.Fatalf("/migration version %d, a fault-free run gives %d", got.MigrationZkVersion, wantState.MigrationZkVersion)
	}
	// /controller holds the time of the claim.
	c.sameTree("against a fault-free run", want, c.tree(), "/controller")
}

// faultFree makes the change of cl without faults on a cluster of its
// own and returns what ZooKeeper then holds.
func faultFree(t *testing.T, cl call) (map[string]stored, migrationzk.State) {
	t.Helper()
	ctx := testContext(t)
	c := newCluster(t)
	s, err := cl.setup(ctx, c.c, at(c.s, 200))
	if err != nil {
		t.Fatalf("setup: %v", err)
	}
	if s, err = cl.apply(ctx, c.c, at(s, 300)); err != nil {
		t.Fatalf("%s without faults: %v", cl.name, err)
	}
	return c.tree(), s
}
