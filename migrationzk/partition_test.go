package migrationzk_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/kraftmigration/zkwriter/internal/testkit/must"
	"github.com/kraftmigration/zkwriter/migrationzk"
	"github.com/kraftmigration/zkwriter/migrationzk/zktest"
	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

// Fault: the ensemble member a controller's session uses is cut from the
// other two, and while it still serves reads (its syncLimit has not run
// out) a rival KRaft controller with a higher epoch claims leadership
// through the majority, acknowledged. The first controller then restarts
// and claims again with its old controller id and epoch, on the same
// session. Its claim no longer stands, so it must not resume it: the read
// before the decision syncs, which the cut member cannot serve; the session
// moves to a member of the majority and the claim is refused, fenced by
// the rival. A read without the sync would find the old claim on the cut
// member and resume a tenure that had ended before the call began.
func TestClaimDoesNotResumeThroughLaggingMember(t *testing.T) {
	e := zktest.StartEnsemble(t, 3, zktest.WithTickTime(200*time.Millisecond), zktest.WithSetting("syncLimit", "25"))
	ctx, cancel := context.WithTimeout(context.Background(), 45*time.Second)
	defer cancel()
	leader, err := e.WaitLeader(ctx)
	if err != nil {
		t.Fatal(err)
	}
	conn, lagging := connectToFollower(t, e, leader)
	admin := zktest.Connect(t, []string{leader.Addr})
	seedEnsemble(t, admin)
	first := must.Get(migrationzk.New(conn))
	claimed, err := first.ClaimLeadership(ctx, kraft())
	if err != nil {
		t.Fatal(err)
	}
	restarted := must.Get(migrationzk.New(conn))

	if err := e.Isolate(lagging.ID); err != nil {
		t.Fatal(err)
	}
	rival := kraft()
	rival.KRaftControllerID, rival.KRaftControllerEpoch = 3001, kraft().KRaftControllerEpoch+1
	won, err := must.Get(migrationzk.New(admin)).ClaimLeadership(ctx, rival)
	if err != nil {
		t.Fatal(err)
	}
	if st, err := lagging.Status(ctx); err != nil || st.Mode != "follower" {
		t.Fatalf("the cut member no longer serves (%q, %v): the test's window closed", st.Mode, err)
	}

	again, err := restarted.ClaimLeadership(ctx, kraft())
	if err == nil {
		t.Fatalf("resumed the claim at /controller_epoch version %d; the rival's claim made version %d before the call began", again.ZkControllerEpochZkVersion, won.ZkControllerEpochZkVersion)
	}
	if !errors.Is(err, migrationzk.ErrFenced) {
		t.Fatalf("claim after the rival's: %v, want ErrFenced", err)
	}
	if conn.Server() == lagging.Addr {
		t.Fatalf("the session is still on the cut member %s", lagging.Addr)
	}
	if claimed.ZkControllerEpochZkVersion+1 != won.ZkControllerEpochZkVersion {
		t.Fatalf("claims at versions %d and %d", claimed.ZkControllerEpochZkVersion, won.ZkControllerEpochZkVersion)
	}
	e.Heal()
}

// connectToFollower returns a session of the ensemble that a follower
// serves, and that follower. The client picks its first member at random.
func connectToFollower(t *testing.T, e *zktest.Ensemble, leader *zktest.Member) (*zk.Conn, *zktest.Member) {
	t.Helper()
	for range 20 {
		conn := zktest.Connect(t, e.Servers)
		if m := e.Member(conn.Server()); m != nil && m != leader {
			return conn, m
		}
		conn.Close()
	}
	t.Fatal("every session landed on the leader")
	return nil, nil
}

// seedEnsemble lays out an ensemble as Kafka leaves it when a migration
// starts, as cluster.seed does.
func seedEnsemble(t *testing.T, admin *zk.Conn) {
	t.Helper()
	ctl := znode.Controller{Version: 2, BrokerID: 1, Timestamp: 1729500000000, KRaftControllerEpoch: -1}
	for _, z := range []struct {
		path  string
		data  []byte
		flags int32
	}{
		{"/controller_epoch", znode.EncodeControllerEpoch(1), 0},
		{"/controller", ctl.Encode(), zk.FlagEphemeral},
		{"/brokers", nil, 0},
		{"/brokers/topics", nil, 0},
	} {
		if _, err := admin.Create(z.path, z.data, z.flags, worldACL); err != nil {
			t.Fatal(err)
		}
	}
}
