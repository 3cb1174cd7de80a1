package main

import (
	"context"
	"fmt"
	"testing"

	"github.com/go-zookeeper/zk"

	"github.com/kraftmigration/zkwriter/internal/testkit/must"
	"github.com/kraftmigration/zkwriter/migrationzk"
	"github.com/kraftmigration/zkwriter/migrationzk/zktest"
	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

// dualWrite runs a KRaft controller (3000, KRaft epoch kraftEpoch) through
// a Writer with opts on a session of its own: it claims leadership, reads
// the checkpoint, and mirrors a batch stamped with its KRaft epoch (topic
// orders with three partitions, and a new state for legacy-0), then stops,
// closing its session. It returns the /controller_epoch the claim left.
func (c *cluster) dualWrite(kraftEpoch int32, opts ...migrationzk.Option) int32 {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	conn := c.srv.Connect(c.t)
	defer conn.Close()
	w := must.Get(migrationzk.New(conn, append([]migrationzk.Option{migrationzk.WithRoot(c.root)}, opts...)...))
	s := migrationzk.InitialState()
	s.KRaftControllerID, s.KRaftControllerEpoch = 3000, kraftEpoch
	s, err := w.ClaimLeadership(ctx, s)
	if err != nil {
		c.t.Fatalf("claim: %v", err)
	}
	if s, _, err = w.GetOrCreate(ctx, s); err != nil {
		c.t.Fatalf("GetOrCreate: %v", err)
	}
	stamp := znode.PartitionState{ControllerEpoch: s.KRaftControllerEpoch, Leader: 1, LeaderEpoch: 5, ISR: []int32{1, 2, 3}}.Encode()
	ops := []migrationzk.Op{
		migrationzk.Create(znode.TopicsPath+"/orders", []byte(`{"partitions":{"0":[1,2,3],"1":[2,3,1],"2":[3,1,2]},"topic_id":"cDz3VdoFSamPyu3jZ-Vh0w","adding_replicas":{},"removing_replicas":{},"version":3}`)),
		migrationzk.Create(znode.TopicsPath+"/orders/partitions", nil),
		migrationzk.SetData(znode.PartitionStatePath("legacy", 0), stamp, 0),
	}
	for p := int32(0); p < 3; p++ {
		ops = append(ops, migrationzk.Create(fmt.Sprintf("%s/orders/partitions/%d", znode.TopicsPath, p), nil),
			migrationzk.Create(znode.PartitionStatePath("orders", p), stamp))
	}
	s.KRaftMetadataOffset, s.KRaftMetadataEpoch = 1234, kraftEpoch
	_, res, err := w.Apply(ctx, s, ops...)
	if err == nil {
		err = migrationzk.OpErrors(res)
	}
	if err != nil {
		c.t.Fatalf("dual-write: %v", err)
	}
	return s.ZkControllerEpoch
}

// rollBack does what a rollback to ZooKeeper mode does once the KRaft
// controllers are stopped: /controller is deleted, and ZooKeeper-mode
// broker 1 is elected as a broker does it, in one transaction creating
// /controller (ephemeral, on the broker's own session) and raising
// /controller_epoch by one, conditioned on the version read. It returns
// the epoch the broker was elected with.
func (c *cluster) rollBack() int32 {
	c.t.Helper()
	if err := c.admin.Delete(c.root+znode.ControllerPath, -1); err != nil {
		c.t.Fatalf("delete /controller: %v", err)
	}
	data, st := c.get(znode.ControllerEpochPath)
	epoch, err := znode.DecodeControllerEpoch(data)
	if err != nil {
		c.t.Fatal(err)
	}
	broker := c.srv.Connect(c.t)
	ctl := znode.Controller{Version: 2, BrokerID: 1, Timestamp: 1729500000000, KRaftControllerEpoch: -1}
	if _, err := broker.Multi(
		&zk.CreateRequest{Path: c.root + znode.ControllerPath, Data: ctl.Encode(), Acl: worldACL, Flags: zk.FlagEphemeral},
		&zk.SetDataRequest{Path: c.root + znode.ControllerEpochPath, Data: znode.EncodeControllerEpoch(epoch + 1), Version: st.Version},
	); err != nil {
		c.t.Fatalf("elect broker 1: %v", err)
	}
	return epoch + 1
}

// TestRollbackSafeEpochsCheck dual-writes partition states under KRaft
// epoch 50, far above /controller_epoch (43), rolls back to ZooKeeper mode
// and runs rollback-check.
// Fault: none; the rollback hazard itself. With WithRollbackSafeEpochs the
// claim raised /controller_epoch to 50, the broker elected after the
// rollback got 51, above every stamp: safe. Without it the claim wrote 44
// as Kafka does, the broker got 45, and the four partitions stamped 50 are
// at risk.
func TestRollbackSafeEpochsCheck(t *testing.T) {
	srv := zktest.Start(t)
	admin := srv.Connect(t)
	for _, tc := range []struct {
		name          string
		opts          []migrationzk.Option
		claimed       int32
		code          int
		verdict       string
		atRisk        int
		electionEpoch int32
		output        string
	}{
		{"option", []migrationzk.Option{migrationzk.WithRollbackSafeEpochs()}, 50, exitOK, verdictSafe, 0, 51, "Verdict: safe."},
		{"no-option", nil, 44, exitProblem, verdictAtRisk, 4, 45, "AT RISK: 4 partitions are stamped with a controller epoch above 45."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newCluster(t, srv, admin, "rollbacksafe-"+tc.name)
			c.seedKafka(43, topic{"legacy", []int32{40, 12}})
			c.zkController(2)
			if got := c.dualWrite(50, tc.opts...); got != tc.claimed {
				t.Fatalf("claim left /controller_epoch %d, want %d", got, tc.claimed)
			}
			if got := c.rollBack(); got != tc.electionEpoch {
				t.Fatalf("broker elected with epoch %d, want %d", got, tc.electionEpoch)
			}
			r := c.run("--output", "json", "rollback-check")
			wantCode(t, r, tc.code)
			var out checkReport
			r.decode(t, &out)
			if out.Verdict != tc.verdict || out.AtRiskCount != tc.atRisk || out.ElectionEpoch != tc.electionEpoch ||
				out.HighestStampedEpoch != 50 || out.Partitions != 5 || !out.Controller.isZooKeeper() {
				t.Fatalf("json: %+v", out)
			}
			r = c.run("rollback-check")
			wantCode(t, r, tc.code)
			wantOutput(t, r, "ZooKeeper-mode broker 1 is the controller", tc.output)
		})
	}
}
