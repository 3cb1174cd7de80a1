package migrationzk_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/kraftmigration/zkwriter/internal/testkit/must"
	"github.com/kraftmigration/zkwriter/migrationzk"
	"github.com/kraftmigration/zkwriter/migrationzk/zktest"
	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

// smallTxn keeps transactions small so that a few dozen ops span several.
const smallTxn = 4096

// bigOps returns n creates of 400-byte znodes under /brokers/topics.
func bigOps(prefix string, n int) []migrationzk.Op {
	ops := make([]migrationzk.Op, n)
	for i := range ops {
		ops[i] = migrationzk.Create(fmt.Sprintf("%s/%s-%03d", znode.TopicsPath, prefix, i), bytes.Repeat([]byte{'a' + byte(i%26)}, 400))
	}
	return ops
}

// checkApplied fails unless every op's znode holds its data.
func (c *cluster) checkApplied(ops []migrationzk.Op) {
	c.t.Helper()
	for _, op := range ops {
		data, _ := c.get(op.Path())
		if !bytes.Equal(data, op.Data()) {
			c.t.Fatalf("%s holds %q", op.Path(), data)
		}
	}
}

// Fault: none. A batch larger than one request is split into transactions
// that each stay under the limit; the checkpoint moves in the last one.
func TestApplySplitsBatch(t *testing.T) {
	c := newCluster(t)
	w := c.writer(migrationzk.WithMaxRequestBytes(smallTxn))
	s := c.start(w)
	ops := bigOps("t", 30)
	c.faults.ResetCounts()
	s.KRaftMetadataOffset = 1000
	next, res, err := w.Apply(testContext(t), s, ops...)
	if err != nil {
		t.Fatal(err)
	}
	txns := c.faults.Count(zktest.OpMulti)
	if txns < 3 {
		t.Fatalf("%d transactions, want at least 3", txns)
	}
	if got := c.faults.LargestRequest(); got > smallTxn {
		t.Fatalf("largest request %d bytes, limit %d", got, smallTxn)
	}
	if next.MigrationZkVersion != s.MigrationZkVersion+int32(txns) {
		t.Fatalf("version %d after %d transactions from %d", next.MigrationZkVersion, txns, s.MigrationZkVersion)
	}
	if c.faults.Requests() != txns {
		t.Fatalf("%d requests for %d transactions: %v", c.faults.Requests(), txns, c.faults.Counts())
	}
	for i, r := range res {
		if r.Err != nil || r.Version != 0 {
			t.Fatalf("op %d: %+v", i, r)
		}
	}
	c.checkApplied(ops)
	c.checkMatches(next)
}

// Fault: connection cut after the server committed (reply lost), on the
// first, a middle and the last transaction of a batch.
func TestApplyDroppedReply(t *testing.T) {
	for _, where := range []string{"first", "middle", "last"} {
		t.Run(where, func(t *testing.T) {
			c := newCluster(t)
			w := c.writer(migrationzk.WithMaxRequestBytes(smallTxn))
			s := c.start(w)
			ops := bigOps("t", 30)
			target := map[string]int{"first": 0, "middle": 15, "last": 29}[where]
			armed := c.faults.Arm(zktest.Fault{Action: zktest.DropReply, Op: zktest.OpMulti, Path: c.p(ops[target].Path())})
			s.KRaftMetadataOffset = 1000
			next, res, err := w.Apply(testContext(t), s, ops...)
			if err != nil {
				t.Fatal(err)
			}
			if !armed.HasFired() || !next.Recovered {
				t.Fatalf("fired %v recovered %v", armed.HasFired(), next.Recovered)
			}
			if !res[target].Recovered {
				t.Fatalf("op %d in the transaction that lost its ack not marked recovered", target)
			}
			for i, r := range res {
				if r.Err != nil {
					t.Fatalf("op %d: %v", i, r.Err)
				}
			}
			c.checkApplied(ops)
			c.checkMatches(next)
			if st := w.Stats(); st.LostAcks != 1 || st.Recovered != 1 {
				t.Fatalf("stats %+v", st)
			}
			c.tenMoreWrites(w, next)
		})
	}
}

// Fault: connection cut before the request was sent, on a middle
// transaction.
func TestApplyDroppedRequest(t *testing.T) {
	c := newCluster(t)
	w := c.writer(migrationzk.WithMaxRequestBytes(smallTxn))
	s := c.start(w)
	ops := bigOps("t", 30)
	c.faults.Arm(zktest.Fault{Action: zktest.DropRequest, Op: zktest.OpMulti, Path: c.p(ops[15].Path())})
	s.KRaftMetadataOffset = 1000
	next, res, err := w.Apply(testContext(t), s, ops...)
	if err != nil {
		t.Fatal(err)
	}
	if next.Recovered {
		t.Fatal("a plain retry marked recovered")
	}
	for i, r := range res {
		if r.Err != nil || r.Recovered {
			t.Fatalf("op %d: %+v", i, r)
		}
	}
	c.checkApplied(ops)
	c.checkMatches(next)
	c.tenMoreWrites(w, next)
}

// Fault: none. Kafka's expectations: creating a topic znode that exists is
// reported for that op and the rest of the batch applies; an empty batch
// changes nothing.
func TestApplyPerOpFailure(t *testing.T) {
	c := newCluster(t)
	w := c.writer()
	s := c.start(w)
	c.create("/brokers/topics/foo", []byte("already"))
	ops := append(topicOps("foo", 2), topicOps("bar", 2)...)
	ops = append(ops, migrationzk.Delete("/brokers/topics/missing", -1), migrationzk.SetData("/brokers/topics/bar", []byte("v2"), 7))
	s.KRaftMetadataOffset = 1100
	next, res, err := w.Apply(testContext(t), s, ops...)
	if err != nil {
		t.Fatal(err)
	}
	want := map[int]error{0: zk.ErrNodeExists, len(ops) - 2: zk.ErrNoNode, len(ops) - 1: zk.ErrBadVersion}
	for i, r := range res {
		if werr, bad := want[i]; bad {
			var oe *migrationzk.OpError
			if !errors.Is(r.Err, werr) || !errors.As(r.Err, &oe) || oe.Index != i {
				t.Fatalf("op %d (%v): err = %v, want OpError %v", i, r.Op, r.Err, werr)
			}
			continue
		}
		if r.Err != nil {
			t.Fatalf("op %d (%v): %v", i, r.Op, r.Err)
		}
	}
	if data, _ := c.get("/brokers/topics/foo"); string(data) != "already" {
		t.Fatalf("existing topic overwritten: %s", data)
	}
	c.checkApplied(ops[1 : len(ops)-2])
	c.checkMatches(next)
	if got := migrationzk.OpErrors(res); !errors.Is(got, zk.ErrNodeExists) || !errors.Is(got, zk.ErrNoNode) || !errors.Is(got, zk.ErrBadVersion) {
		t.Fatalf("OpErrors = %v", got)
	}

	c.faults.ResetCounts()
	same, res, err := w.Apply(testContext(t), next)
	if err != nil || res != nil || same != next || c.faults.Requests() != 0 {
		t.Fatalf("empty batch: %+v %v %v, %d requests", same, res, err, c.faults.Requests())
	}
	c.checkMatches(next)
}

// Fault: connection cut after commit, then the server stops so the call
// gives up with ErrOutcomeUnknown; after a restart the caller calls again
// as documented, and the batch completes without a false conflict.
func TestApplyOutcomeUnknownThenRetry(t *testing.T) {
	c := newCluster(t)
	if c.srv.Pid() == 0 {
		t.Skip("needs a server of its own")
	}
	w := c.writer(migrationzk.WithMaxRequestBytes(smallTxn))
	s := c.start(w)
	ops := bigOps("t", 30)
	c.faults.Arm(zktest.Fault{Action: zktest.DropReply, Op: zktest.OpMulti, Path: c.p(ops[15].Path()), Then: c.stopServer})
	s.KRaftMetadataOffset = 1200
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	got, res, err := w.Apply(ctx, s, ops...)
	if !errors.Is(err, migrationzk.ErrOutcomeUnknown) {
		t.Fatalf("err = %v, want ErrOutcomeUnknown", err)
	}
	if got.MigrationZkVersion <= s.MigrationZkVersion || got.KRaftMetadataOffset == s.KRaftMetadataOffset {
		t.Fatalf("returned state %+v after a partial batch: want the earlier checkpoint at a later version", got)
	}
	var pending []migrationzk.Op
	var unknown int
	for _, r := range res {
		var oe *migrationzk.OpError
		if r.Err != nil && !errors.As(r.Err, &oe) {
			pending = append(pending, r.Op)
		}
		if errors.Is(r.Err, migrationzk.ErrOutcomeUnknown) {
			unknown++
		}
	}
	if unknown == 0 || len(pending) == 0 || len(pending) == len(ops) {
		t.Fatalf("%d pending ops, %d unknown", len(pending), unknown)
	}

	c.restartServer()
	waitSession(t, c.conn)
	waitSession(t, c.admin)
	retry := s
	retry.MigrationZkVersion = got.MigrationZkVersion
	next, res, err := w.Apply(testContext(t), retry, pending...)
	if err != nil {
		t.Fatalf("retry: %v", err)
	}
	for i, r := range res {
		if r.Err != nil {
			t.Fatalf("retry op %d: %v", i, r.Err)
		}
	}
	if !next.Recovered {
		t.Fatal("retry did not find the transaction that landed")
	}
	c.checkApplied(ops)
	c.checkMatches(next)
	c.tenMoreWrites(w, next)
}

// Fault: none. An op refused on its own account costs one request when it
// is the only one of its transaction: the fence and /migration come first
// in a transaction, so a refusal at an op needs no reread. A transaction left
// without ops by refusals still writes the checkpoint, and is not mistaken
// for a landed one.
func TestApplyRefusedOpsCostOneRequestEach(t *testing.T) {
	c := newCluster(t)
	w := c.writer(migrationzk.WithMaxRequestBytes(smallTxn))
	s := c.start(w)
	ops := bigOps("t", 20) // three transactions: 8, 8 and 4 ops
	refused := map[int]bool{4: true, 11: true}
	s.KRaftMetadataOffset = 1300
	next, _ := c.applyRefusing(w, s, ops, refused)
	if got, want := c.faults.Requests(), int64(3+len(refused)); got != want || c.faults.Count(zktest.OpMulti) != want {
		t.Fatalf("%d requests (%v), want %d multis", got, c.faults.Counts(), want)
	}
	if next.Recovered || next.MigrationZkVersion != s.MigrationZkVersion+3 {
		t.Fatalf("returned %+v", next)
	}
	c.checkMatches(next)

	c.faults.ResetCounts()
	next.KRaftMetadataOffset = 1400
	last, res, err := w.Apply(testContext(t), next, ops[4])
	if err != nil || !errors.Is(res[0].Err, zk.ErrNodeExists) {
		t.Fatalf("lone refused op: %v, %v", err, res)
	}
	if last.Recovered || last.MigrationZkVersion != next.MigrationZkVersion+1 || c.faults.Requests() != 2 {
		t.Fatalf("lone refused op: returned %+v after %d requests", last, c.faults.Requests())
	}
	c.checkMatches(last)
	if st := w.Stats(); st.LostAcks != 0 || st.Recovered != 0 {
		t.Fatalf("stats %+v", st)
	}
}

// Fault: none. A batch whose ops are mostly refused, over several
// transactions, costs at most a small request per op rather than a resend
// of its whole transaction per refusal; the ops that pass land in order
// and the checkpoint moves last.
func TestApplyManyRefusedOps(t *testing.T) {
	c := newCluster(t)
	w := c.writer(migrationzk.WithMaxRequestBytes(smallTxn))
	s := c.start(w)
	ops := bigOps("t", 60)
	refused := map[int]bool{}
	for i := range ops {
		refused[i] = i%5 != 2
	}
	s.KRaftMetadataOffset = 1500
	next, _ := c.applyRefusing(w, s, ops, refused)
	var applied []migrationzk.Op
	for i, op := range ops {
		if !refused[i] {
			applied = append(applied, op)
		}
	}
	c.checkApplied(applied)
	var prev int64
	for _, op := range applied {
		if _, st := c.get(op.Path()); st.Czxid < prev {
			t.Fatalf("%s created before the op ahead of it", op.Path())
		} else {
			prev = st.Czxid
		}
	}
	_, st := c.get("/migration")
	if st.Mzxid < prev {
		t.Fatal("checkpoint written before the last op")
	}
	c.checkMatches(next)
	// At most one request per op, as Kafka's one multi per op, and one per
	// transaction (eight of eight ops) for the checkpoint.
	if got, limit := c.faults.Requests(), int64(len(ops)+8); got > limit {
		t.Fatalf("%d requests for %d refused ops and %d applied (%v)", got, len(refused), len(applied), c.faults.Counts())
	}
}

// applyRefusing creates the znodes of the ops marked in refused, so that
// ZooKeeper refuses them, then applies the batch with w from s, counting
// requests from there, and fails unless exactly those ops were refused,
// with NodeExists, and the others applied.
func (c *cluster) applyRefusing(w *migrationzk.Writer, s migrationzk.State, ops []migrationzk.Op, refused map[int]bool) (migrationzk.State, []migrationzk.OpResult) {
	c.t.Helper()
	for i, op := range ops {
		if refused[i] {
			c.create(op.Path(), []byte("already"))
		}
	}
	c.faults.ResetCounts()
	next, res, err := w.Apply(testContext(c.t), s, ops...)
	if err != nil {
		c.t.Fatal(err)
	}
	for i, r := range res {
		var oe *migrationzk.OpError
		if refused[i] != errors.Is(r.Err, zk.ErrNodeExists) || (refused[i] && (!errors.As(r.Err, &oe) || oe.Index != i)) || (!refused[i] && r.Err != nil) {
			c.t.Fatalf("op %d: %v", i, r.Err)
		}
	}
	return next, res
}

// Fault: connection cut after the server answered, in a transaction most
// of whose ops are refused: on the first requests that carry one op that
// passes, which ZooKeeper refuses, and on the part that lands with it. The
// batch still ends with exactly the refused ops refused, the others
// applied, the part's lost acknowledgement recovered, and the checkpoint
// written.
func TestApplyManyRefusedOpsDroppedReplies(t *testing.T) {
	c := newCluster(t)
	ops := bigOps("t", 40)
	refused := map[int]bool{}
	refusedPaths := map[string]bool{}
	for i := range ops {
		refused[i] = i%4 != 0
		refusedPaths[c.p(ops[i].Path())] = refused[i]
	}
	target := c.p(ops[28].Path())
	var faults []*zktest.Armed
	for k := 0; k < 4; k++ {
		faults = append(faults, c.faults.Arm(zktest.Fault{Action: zktest.DropReply, Op: zktest.OpMulti, Path: target}))
	}
	// The first request that carries the target and no refused op lands:
	// drop its reply too.
	var landing *zktest.Armed
	conn := multiHook{Conn: c.conn, hook: func(reqs []interface{}) {
		carries := false
		for _, r := range reqs {
			if cr, ok := r.(*zk.CreateRequest); ok {
				carries = carries || cr.Path == target
				if refusedPaths[cr.Path] {
					return
				}
			}
		}
		if carries && landing == nil {
			landing = c.faults.Arm(zktest.Fault{Action: zktest.DropReply, Op: zktest.OpMulti, Path: target})
		}
	}}
	w := must.Get(migrationzk.New(conn, migrationzk.WithRoot(c.root)))
	s := c.start(w)
	s.KRaftMetadataOffset = 1600
	next, res := c.applyRefusing(w, s, ops, refused)
	for _, f := range append(faults, landing) {
		if f == nil || !f.HasFired() {
			t.Fatal("a fault did not fire")
		}
	}
	if st := w.Stats(); st.LostAcks != 1 || !next.Recovered || !res[28].Recovered {
		t.Fatalf("recovered %v, op recovered %v, stats %+v", next.Recovered, res[28].Recovered, st)
	}
	for i, op := range ops {
		if !refused[i] {
			c.checkApplied([]migrationzk.Op{op})
		}
	}
	c.checkMatches(next)
	c.tenMoreWrites(w, next)
}

// multiHook calls hook with the ops of each multi before sending it.
type multiHook struct {
	*zk.Conn
	hook func(reqs []interface{})
}

func (m multiHook) Multi(ops ...interface{}) ([]zk.MultiResponse, error) {
	m.hook(ops)
	return m.Conn.Multi(ops...)
}
