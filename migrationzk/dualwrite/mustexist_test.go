package dualwrite_test

import (
	"errors"
	"testing"

	"github.com/go-zookeeper/zk"

	"github.com/kraftmigration/zkwriter/internal/testkit/must"
	"github.com/kraftmigration/zkwriter/migrationzk"
	"github.com/kraftmigration/zkwriter/migrationzk/dualwrite"
	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

// TestWhatMustExistFirst checks what the README's "What must exist
// first" says, on an ensemble that holds nothing under the root: the
// Writer needs its root and creates its control znodes itself; the
// dual-write Client creates every parent it writes under, without
// CreateTopLevelPaths; raw Apply does not, and reports a missing parent
// in the op's result only, not as the call's error.
// Fault: a chroot that does not exist; no persistent path of Kafka's.
func TestWhatMustExistFirst(t *testing.T) {
	servers, base := newRoot(t)
	conn := connect(t, servers, nil)
	ctx := testContext(t)
	root := base + "/kafka"
	s := migrationzk.InitialState()
	s.KRaftControllerID, s.KRaftControllerEpoch = 3000, 5

	w := must.Get(migrationzk.New(conn, migrationzk.WithRoot(root)))
	if _, err := w.ClaimLeadership(ctx, s); !errors.Is(err, zk.ErrNoNode) {
		t.Fatalf("claim under a chroot that does not exist: %v, want NoNode", err)
	}
	if ok, _, _ := conn.Exists(root); ok {
		t.Fatal("the claim created the chroot")
	}

	must.Get(conn.Create(root, nil, 0, zk.WorldACL(zk.PermAll)))
	w = must.Get(migrationzk.New(conn, migrationzk.WithRoot(root)))
	s = must.Get(w.ClaimLeadership(ctx, s))
	s, _, err := w.GetOrCreate(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	s = must.Get(w.Update(ctx, s))

	s, res, err := w.Apply(ctx, s, migrationzk.Create("/brokers/topics/raw/partitions/0/state", []byte("{}")))
	if err != nil || len(res) != 1 || !errors.Is(res[0].Err, zk.ErrNoNode) || migrationzk.OpErrors(res) == nil {
		t.Fatalf("raw Apply under a missing parent: %v, %+v; want the call to succeed and the op to report NoNode", err, res)
	}

	c := must.Get(dualwrite.New(w))
	s = must.Get(c.CreateTopic(ctx, s, topic("orders", 2)))
	acl := []znode.ACLEntry{{Principal: "User:a", PermissionType: znode.PermissionAllow, Operation: znode.OperationRead, Host: "*"}}
	_, _, err = c.Batch().
		WriteConfigs(dualwrite.ConfigResource{Type: dualwrite.BrokerConfig, Name: "1"}, map[string]string{"log.retention.hours": "1"}).
		WriteClientQuotas(dualwrite.QuotaEntity{User: "alice"}, map[string]float64{"producer_byte_rate": 1}, nil).
		WriteACLs(dualwrite.ResourcePattern{Type: znode.ResourceTopic, Name: "orders", PatternType: znode.PatternLiteral}, acl).
		WriteACLs(dualwrite.ResourcePattern{Type: znode.ResourceTopic, Name: "ord", PatternType: znode.PatternPrefixed}, acl).
		WriteDelegationToken(znode.DelegationToken{TokenID: "tok", Owner: "User:a", TokenRequester: "User:a", MaxTimestamp: 10, ExpiryTimestamp: 5}).
		WriteProducerID(1000).
		Apply(ctx, s)
	if err != nil {
		t.Fatalf("dual-write without CreateTopLevelPaths: %v", err)
	}
	for _, p := range []string{znode.ControllerEpochPath, znode.ControllerPath, znode.MigrationPath,
		znode.PartitionStatePath("orders", 1), "/config/topics/orders", "/config/brokers/1", "/config/users/alice",
		"/kafka-acl/Topic/orders", "/kafka-acl-extended/prefixed/Topic/ord", "/delegation_token/tokens/tok",
		znode.ProducerIDBlockPath} {
		if ok, _, err := conn.Exists(root + p); err != nil || !ok {
			t.Errorf("%s was not created: %v", p, err)
		}
	}
	if ls, _, _ := conn.Children(root + "/config/changes"); len(ls) != 2 {
		t.Errorf("config change notifications %v, want 2: the broker config and the quota", ls)
	}
}
