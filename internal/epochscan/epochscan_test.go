package epochscan_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/kraftmigration/zkwriter/internal/epochscan"
	"github.com/kraftmigration/zkwriter/internal/testkit/must"
	"github.com/kraftmigration/zkwriter/migrationzk"
	"github.com/kraftmigration/zkwriter/migrationzk/zktest"
	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

// seed lays out topics t0..t(n-1) of size partitions under srv's root,
// each state stamped with stamp(topic, partition); a stamp below 0 leaves
// the partition without a state.
func seed(t *testing.T, srv *zktest.Server, admin *zk.Conn, n, size int, stamp func(t, p int) int32) {
	t.Helper()
	acl := zk.WorldACL(zk.PermAll)
	create := func(p string, data []byte) *zk.CreateRequest {
		return &zk.CreateRequest{Path: srv.Path(p), Data: data, Acl: acl}
	}
	ops := []any{create("/brokers", nil), create(znode.TopicsPath, nil)}
	for tp := 0; tp < n; tp++ {
		name := fmt.Sprintf("t%d", tp)
		ops = append(ops, create(znode.TopicsPath+"/"+name, nil), create(znode.TopicPartitionsPath(name), nil))
		for p := 0; p < size; p++ {
			ops = append(ops, create(fmt.Sprintf("%s/%d", znode.TopicPartitionsPath(name), p), nil))
			if e := stamp(tp, p); e >= 0 {
				st := znode.PartitionState{ControllerEpoch: e, Leader: 1, LeaderEpoch: 1, ISR: []int32{1}}
				ops = append(ops, create(znode.PartitionStatePath(name, int32(p)), st.Encode()))
			}
		}
	}
	if _, err := admin.Multi(ops...); err != nil {
		t.Fatalf("seed: %v", err)
	}
}

// reader returns a Writer of conn under srv's root, which a scan reads
// with.
func reader(t *testing.T, srv *zktest.Server, conn *zk.Conn) *migrationzk.Writer {
	t.Helper()
	return must.Get(migrationzk.New(conn, migrationzk.WithRoot(srv.Root)))
}

// TestScan counts the partitions stamped above a threshold, the highest
// stamp, the partitions without a state and the states that do not decode.
// Faults: a garbage state and a partition znode whose name is no number.
func TestScan(t *testing.T) {
	srv := zktest.Start(t)
	admin := srv.Connect(t)
	seed(t, srv, admin, 3, 10, func(tp, p int) int32 {
		switch {
		case p == 9:
			return -1
		case tp == 1 && p%3 == 0:
			return 50
		}
		return 43
	})
	garbage := srv.Path(znode.TopicPartitionsPath("t2") + "/x")
	must.Get(admin.Create(garbage, nil, 0, zk.WorldACL(zk.PermAll)))
	must.Get(admin.Create(garbage+"/state", []byte("{not json"), 0, zk.WorldACL(zk.PermAll)))
	conn := srv.Connect(t)

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := epochscan.Scan(ctx, reader(t, srv, conn), 44, epochscan.Options{Root: srv.Root, List: true})
	if err != nil {
		t.Fatal(err)
	}
	want := []epochscan.Partition{{Topic: "t1", Partition: 0, ControllerEpoch: 50}, {Topic: "t1", Partition: 3, ControllerEpoch: 50}, {Topic: "t1", Partition: 6, ControllerEpoch: 50}}
	if res.Topics != 3 || res.Partitions != 28 || res.WithoutState != 3 || res.Highest != 50 || res.AtRiskCount != 3 ||
		fmt.Sprint(res.AtRisk) != fmt.Sprint(want) || *res.HighestAt != want[0] || res.UndecodableCount != 1 {
		t.Fatalf("result: %+v", res)
	}
	if u := res.Undecodable[0]; u.Topic != "t2" || u.Partition != "x" || u.Path != garbage+"/state" || !errors.Is(u.Err, epochscan.ErrNotPartitionNumber) {
		t.Fatalf("undecodable: %+v", u)
	}

	counted, err := epochscan.Scan(ctx, reader(t, srv, conn), 44, epochscan.Options{Root: srv.Root})
	if err != nil {
		t.Fatal(err)
	}
	if counted.AtRiskCount != 3 || len(counted.AtRisk) != 0 || counted.UndecodableCount != 1 || len(counted.Undecodable) != 0 {
		t.Fatalf("without lists: %+v", counted)
	}
}

// TestScanRate bounds a scan's requests to the rate asked for: the
// requests on the wire over the scan's duration stay at or below it, and
// the scan counts every one it sent.
// Fault: none; the bound is what is checked.
func TestScanRate(t *testing.T) {
	srv := zktest.Start(t)
	admin := srv.Connect(t)
	seed(t, srv, admin, 4, 10, func(int, int) int32 { return 43 })
	faults := zktest.NewFaultDialer(t)
	conn := srv.Connect(t, faults.Option())
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	const rate = 40
	faults.ResetCounts()
	start := time.Now()
	res, err := epochscan.Scan(ctx, reader(t, srv, conn), 44, epochscan.Options{Root: srv.Root, Rate: rate})
	elapsed := time.Since(start)
	if err != nil {
		t.Fatal(err)
	}
	wire := faults.Requests() - faults.Count(zktest.OpPing)
	if int64(res.Requests) != wire {
		t.Fatalf("the scan counted %d requests, the wire carried %d", res.Requests, wire)
	}
	if got := float64(wire) / elapsed.Seconds(); got > rate {
		t.Fatalf("%d requests in %v: %.1f a second, above %d", wire, elapsed, got, rate)
	}
	if res.Partitions != 40 {
		t.Fatalf("read %d partition states", res.Partitions)
	}
	t.Logf("%d requests in %v (%.1f a second)", wire, elapsed.Round(time.Millisecond), float64(wire)/elapsed.Seconds())
}

// TestScanLostConnection finishes the scan with every state read after a
// read and a listing lost with their connections, which the Writer sends
// again once the client holds a session.
// Faults: the reply to one partition state's read dropped (the connection
// cut), and a listing's request cut before the server.
func TestScanLostConnection(t *testing.T) {
	srv := zktest.Start(t)
	admin := srv.Connect(t)
	seed(t, srv, admin, 3, 10, func(tp, p int) int32 { return int32(40 + tp) })
	faults := zktest.NewFaultDialer(t)
	conn := srv.Connect(t, faults.Option())
	faults.Arm(zktest.Fault{Action: zktest.DropReply, Op: zktest.OpGetData, Path: srv.Path(znode.PartitionStatePath("t1", 4))})
	faults.Arm(zktest.Fault{Action: zktest.CutRequest, Op: zktest.OpChildren, Path: srv.Path(znode.TopicPartitionsPath("t2"))})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	faults.ResetCounts()
	res, err := epochscan.Scan(ctx, reader(t, srv, conn), 41, epochscan.Options{Root: srv.Root, Step: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if res.Partitions != 30 || res.AtRiskCount != 10 || res.Highest != 42 {
		t.Fatalf("result: %+v", res)
	}
	// The sync, the topics' listing, 3 listings and 30 reads counted;
	// on the wire besides, those in flight when each connection was cut,
	// sent again.
	wire := faults.Requests() - faults.Count(zktest.OpPing)
	if res.Requests != 2+3+30 || wire < int64(res.Requests)+2 {
		t.Fatalf("%d requests counted, %d on the wire; want %d counted and at least 2 more sent", res.Requests, wire, 2+3+30)
	}
}
