package migrationzk

import (
	"bytes"
	"errors"
	"math"
	"testing"

	"github.com/go-zookeeper/zk"

	"github.com/kraftmigration/zkwriter/checker"
	"github.com/kraftmigration/zkwriter/internal/zkerr"
	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

var (
	ours  = znode.Migration{KRaftMetadataOffset: 10, KRaftControllerID: 3000, KRaftMetadataEpoch: 5, KRaftControllerEpoch: 5}.Encode()
	other = znode.Migration{KRaftMetadataOffset: 11, KRaftControllerID: 3000, KRaftMetadataEpoch: 5, KRaftControllerEpoch: 5}.Encode()
	// ours with its keys in another order: the same checkpoint.
	reordered = []byte(`{"kraft_controller_epoch":5,"version":0,"kraft_metadata_epoch":5,"kraft_controller_id":3000,"kraft_metadata_offset":10}`)
)

func TestLanded(t *testing.T) {
	set := intent{kind: kindSetData, expected: 4, data: ours, chk: checker.MigrationState{}}
	create := intent{kind: kindCreate, expected: -1, data: ours, chk: checker.MigrationState{}}
	cases := []struct {
		name    string
		in      intent
		cur     znodeState
		want    bool
		wantErr bool
	}{
		{"set: ours at expected+1", set, znodeState{exists: true, data: ours, version: 5}, true, false},
		{"set: same checkpoint, keys reordered", set, znodeState{exists: true, data: reordered, version: 5}, true, false},
		{"set: ours written twice (expected+2)", set, znodeState{exists: true, data: ours, version: 6}, false, false},
		{"set: still at expected", set, znodeState{exists: true, data: other, version: 4}, false, false},
		{"set: other content at expected+1", set, znodeState{exists: true, data: other, version: 5}, false, false},
		{"set: garbage at expected+1", set, znodeState{exists: true, data: []byte("garbage"), version: 5}, false, true},
		{"set: null at expected+1", set, znodeState{exists: true, data: nil, version: 5}, false, true},
		{"set: gone", set, znodeState{version: -1}, false, false},
		{"set: unconditional never counts", intent{kind: kindSetData, expected: -1, data: ours, chk: checker.Bytes{}}, znodeState{exists: true, data: ours, version: 0}, false, false},
		{"create: ours at 0", create, znodeState{exists: true, data: ours, version: 0}, true, false},
		{"create: ours but modified since", create, znodeState{exists: true, data: ours, version: 1}, false, false},
		{"create: someone else's", create, znodeState{exists: true, data: other, version: 0}, false, false},
		{"create: absent", create, znodeState{version: -1}, false, false},
		{"delete: gone", intent{kind: kindDelete, expected: 3}, znodeState{version: -1}, true, false},
		{"delete: still there", intent{kind: kindDelete, expected: 3}, znodeState{exists: true, version: 3}, false, false},
		{"nil checker compares bytes", intent{kind: kindCreate, data: []byte("a")}, znodeState{exists: true, data: []byte("a")}, true, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := holds(tc.in, tc.cur)
			if got != tc.want || (err != nil) != tc.wantErr {
				t.Fatalf("landed = %v, %v; want %v (error %v)", got, err, tc.want, tc.wantErr)
			}
		})
	}
}

// newTestWriter returns a Writer without a connection, for the rules that
// need none.
func newTestWriter() *Writer {
	w, err := New(sessionConn{})
	if err != nil {
		panic(err)
	}
	return w
}

// transactionLanded applies the rule for a fenced /migration write.
func transactionLanded(mig intent, cur znodeState, fence int32, epoch znodeState) (bool, error) {
	v, err := newTestWriter().transactionVerdict(InitialState(), mig, fence, cur, epoch)
	return v == verdictLanded, err
}

func TestTransactionLanded(t *testing.T) {
	mig := intent{kind: kindSetData, expected: 4, data: ours, chk: checker.MigrationState{}}
	cur := znodeState{exists: true, data: ours, version: 5}
	if ok, _ := transactionLanded(mig, cur, 7, znodeState{exists: true, version: 7}); !ok {
		t.Fatal("landed transaction not recognised")
	}
	if ok, _ := transactionLanded(mig, cur, 7, znodeState{exists: true, version: 8}); ok {
		t.Fatal("transaction counted as landed although /controller_epoch moved")
	}
	if ok, _ := transactionLanded(mig, cur, 7, znodeState{version: -1}); ok {
		t.Fatal("transaction counted as landed although /controller_epoch is gone")
	}
}

func TestClaimLanded(t *testing.T) {
	c := claim{expected: 3, newEpoch: 8, controller: 3000, kraftEpoch: 5}
	epoch := znodeState{exists: true, data: znode.EncodeControllerEpoch(8), version: 4}
	ctl := znodeState{exists: true, data: znode.Controller{Version: 2, BrokerID: 3000, Timestamp: 1, KRaftControllerEpoch: 5}.Encode()}
	if !claimLanded(c, epoch, ctl) {
		t.Fatal("claim not recognised")
	}
	for name, tweak := range map[string]func(e, k *znodeState){
		"epoch version +2":  func(e, k *znodeState) { e.version = 5 },
		"other epoch value": func(e, k *znodeState) { e.data = znode.EncodeControllerEpoch(9) },
		"other controller": func(e, k *znodeState) {
			k.data = znode.Controller{Version: 2, BrokerID: 3001, KRaftControllerEpoch: 5}.Encode()
		},
		"other KRaft epoch": func(e, k *znodeState) {
			k.data = znode.Controller{Version: 2, BrokerID: 3000, KRaftControllerEpoch: 6}.Encode()
		},
		"ZK-mode controller": func(e, k *znodeState) {
			k.data = znode.Controller{Version: 2, BrokerID: 3000, KRaftControllerEpoch: -1}.Encode()
		},
		"no controller": func(e, k *znodeState) { *k = znodeState{version: -1} },
		"garbage epoch": func(e, k *znodeState) { e.data = []byte("x") },
	} {
		e, k := epoch, ctl
		tweak(&e, &k)
		if claimLanded(c, e, k) {
			t.Errorf("%s: counted as landed", name)
		}
	}
}

// What an op's znode shows of the transaction T that wrote /migration:
// carried T's zxid, denied by a znode untouched since before T, or hidden
// by a later change.
func TestOpEvidence(t *testing.T) {
	const T = 40
	for _, tc := range []struct {
		name string
		op   Op
		cur  znodeState
		want evidence
	}{
		{"create by T", Create("/a", []byte("x")), znodeState{exists: true, czxid: T, mzxid: T}, evidenceHeld},
		{"create by T, set since", Create("/a", []byte("x")), znodeState{exists: true, version: 1, czxid: T, mzxid: T + 3}, evidenceHeld},
		{"create: absent", Create("/a", []byte("x")), absent, evidenceNotHeld},
		{"create: older than T", Create("/a", []byte("x")), znodeState{exists: true, czxid: T - 5, mzxid: T - 5}, evidenceNotHeld},
		{"create: deleted and created again after T", Create("/a", []byte("x")), znodeState{exists: true, czxid: T + 5, mzxid: T + 5}, evidenceHidden},
		{"set by T", SetData("/a", []byte("x"), 2), znodeState{exists: true, version: 3, czxid: 1, mzxid: T}, evidenceHeld},
		{"set: untouched since before T", SetData("/a", []byte("x"), 2), znodeState{exists: true, version: 2, czxid: 1, mzxid: T - 1}, evidenceNotHeld},
		{"set: the same bytes written after T", SetData("/a", []byte("x"), 2), znodeState{exists: true, version: 4, czxid: 1, mzxid: T + 1}, evidenceHidden},
		{"set: gone", SetData("/a", []byte("x"), 2), absent, evidenceHidden},
		{"delete: gone", Delete("/a", -1), absent, evidenceHidden},
		{"delete: stands from before T", Delete("/a", -1), znodeState{exists: true, czxid: T - 1, mzxid: T - 1}, evidenceNotHeld},
		{"delete: created again after T", Delete("/a", -1), znodeState{exists: true, czxid: T + 1, mzxid: T + 1}, evidenceHidden},
	} {
		if got := opEvidence(tc.op, tc.cur, T); got != tc.want {
			t.Errorf("%s: evidence %d, want %d", tc.name, got, tc.want)
		}
	}
}

// A transaction is ours when an op carries its zxid, or when no op denies
// it; when ops deny it and none carries it, another writer wrote our bytes
// to /migration alone.
func TestHeldOps(t *testing.T) {
	held, ours := heldOps([]evidence{evidenceHeld, evidenceNotHeld, evidenceHidden})
	if !ours || !held[0] || held[1] || !held[2] {
		t.Fatalf("carried: %v %v", held, ours)
	}
	if held, ours := heldOps([]evidence{evidenceHidden, evidenceHidden}); !ours || !held[0] || !held[1] {
		t.Fatalf("all hidden: %v %v", held, ours)
	}
	if _, ours := heldOps([]evidence{evidenceNotHeld, evidenceHidden}); ours {
		t.Fatal("denied and not carried, yet ours")
	}
	// A transaction left in doubt whose ops were rewritten since, found
	// by a call that added ops of its own: ours, and the added ops sent.
	held, ours = heldOps([]evidence{evidenceHidden, evidenceNotHeld}, []bool{true, true}, []bool{true, false})
	if !ours || !held[0] || held[1] {
		t.Fatalf("in doubt, rewritten, with added ops: %v %v", held, ours)
	}
	// The ops of the transaction in doubt deny it: another writer wrote
	// our bytes to /migration.
	if _, ours := heldOps([]evidence{evidenceNotHeld, evidenceHidden}, []bool{true, true}, []bool{true, false}); ours {
		t.Fatal("the transaction in doubt denied by its own op, yet ours")
	}
}

// FuzzLanded checks the decision against arbitrary rereads: it never reports
// a write as landed unless the version rule and the checker both hold, and
// never reports landed together with an error.
func FuzzLanded(f *testing.F) {
	f.Add(byte(kindSetData), int32(4), ours, true, ours, int32(5), byte(0))
	f.Add(byte(kindSetData), int32(4), ours, true, reordered, int32(5), byte(1))
	f.Add(byte(kindCreate), int32(-1), ours, true, ours, int32(0), byte(2))
	f.Add(byte(kindDelete), int32(0), []byte(nil), false, []byte(nil), int32(-1), byte(0))
	f.Add(byte(kindSetData), int32(2147483647), ours, true, ours, int32(-2147483648), byte(1))
	f.Fuzz(func(t *testing.T, kind byte, expected int32, intended []byte, exists bool, data []byte, version int32, which byte) {
		checkers := []checker.Checker{checker.Bytes{}, checker.MigrationState{}, checker.JSON{}, checker.LeaderAndIsr{}}
		chk := checkers[int(which)%len(checkers)]
		in := intent{kind: opKind(kind%4 + 1), expected: expected, data: intended, chk: chk}
		cur := znodeState{exists: exists, data: data, version: version}
		got, err := holds(in, cur)
		if got && err != nil {
			t.Fatalf("landed with error %v", err)
		}
		if !got {
			return
		}
		switch in.kind {
		case kindSetData:
			// ZooKeeper's versions are int32 and wrap like Go's, so
			// expected+1 is computed in int32 as the server does.
			if in.expected < 0 || !exists || version != expected+1 {
				t.Fatalf("setData landed against the version rule: expected %d, found %d (exists %v)", expected, version, exists)
			}
		case kindCreate:
			if !exists || version != 0 {
				t.Fatalf("create landed at version %d (exists %v)", version, exists)
			}
		case kindDelete:
			if exists {
				t.Fatal("delete landed on a znode that exists")
			}
			return
		default:
			t.Fatalf("unknown kind %d landed", in.kind)
		}
		if ok, cerr := chk.Landed(intended, data); !ok || cerr != nil {
			t.Fatalf("landed although the checker says %v, %v", ok, cerr)
		}
		if _, isBytes := chk.(checker.Bytes); isBytes && !bytes.Equal(intended, data) {
			t.Fatal("byte checker landed on different bytes")
		}
		if _, isMig := chk.(checker.MigrationState); isMig {
			a, errA := znode.DecodeMigration(intended)
			b, errB := znode.DecodeMigration(data)
			if errA != nil || errB != nil || a != b {
				t.Fatalf("checkpoint checker landed on %+v vs %+v (%v, %v)", a, b, errA, errB)
			}
		}
	})
}

func TestClassify(t *testing.T) {
	for err, want := range map[error]zkerr.Class{
		nil:                        zkerr.OK,
		errors.New("read: EOF"):    zkerr.Unknown,
		ErrConnClosed:              zkerr.Unknown,
		errors.New("unknown -112"): zkerr.Unknown,
	} {
		if got := classify(err); got != want {
			t.Errorf("classify(%v) = %v, want %v", err, got, want)
		}
	}
}

// FuzzTransactionLanded checks the decision for a fenced transaction: it
// never reports landed unless /controller_epoch is still at the fencing
// version and the /migration write landed by the version rule and the
// checkpoint checker.
func FuzzTransactionLanded(f *testing.F) {
	f.Add(int32(4), ours, true, ours, int32(5), int32(7), true, int32(7))
	f.Add(int32(4), ours, true, reordered, int32(5), int32(7), true, int32(8))
	f.Add(int32(4), ours, true, ours, int32(5), int32(-1), false, int32(-1))
	f.Add(int32(2147483647), ours, true, other, int32(-2147483648), int32(0), true, int32(0))
	f.Fuzz(func(t *testing.T, expected int32, intended []byte, exists bool, data []byte, version, fence int32, epochExists bool, epochVersion int32) {
		mig := intent{kind: kindSetData, expected: expected, data: intended, chk: checker.MigrationState{}}
		cur := znodeState{exists: exists, data: data, version: version}
		epoch := znodeState{exists: epochExists, version: epochVersion}
		got, err := transactionLanded(mig, cur, fence, epoch)
		if got && err != nil {
			t.Fatalf("landed with error %v", err)
		}
		if !got {
			return
		}
		// An unfenced write (fence -1) has no /controller_epoch condition.
		if fence >= 0 && (!epochExists || epochVersion != fence) {
			t.Fatalf("landed although /controller_epoch is at %d (exists %v), fenced at %d", epochVersion, epochExists, fence)
		}
		if expected < 0 || !exists || version != expected+1 {
			t.Fatalf("landed against the version rule: expected %d, found %d (exists %v)", expected, version, exists)
		}
		a, errA := znode.DecodeMigration(intended)
		b, errB := znode.DecodeMigration(data)
		if errA != nil || errB != nil || a != b {
			t.Fatalf("landed on checkpoint %+v vs %+v (%v, %v)", a, b, errA, errB)
		}
	})
}

// FuzzClaimLanded checks the decision for a leadership claim against
// arbitrary rereads of /controller_epoch and /controller: it never reports
// landed unless /controller_epoch holds the new epoch at exactly the
// expected version plus one and /controller names this KRaft controller
// with its epoch.
func FuzzClaimLanded(f *testing.F) {
	ctl := znode.Controller{Version: 2, BrokerID: 3000, Timestamp: 1, KRaftControllerEpoch: 5}.Encode()
	f.Add(int32(3), int32(8), int32(3000), int32(5), true, znode.EncodeControllerEpoch(8), int32(4), true, ctl)
	f.Add(int32(3), int32(8), int32(3000), int32(5), true, []byte("08"), int32(4), true, ctl)
	f.Add(int32(3), int32(8), int32(3000), int32(5), true, znode.EncodeControllerEpoch(8), int32(5), true, ctl)
	f.Add(int32(2147483647), int32(0), int32(0), int32(0), true, []byte("0"), int32(-2147483648), false, []byte(nil))
	f.Fuzz(func(t *testing.T, expected, newEpoch, controller, kraftEpoch int32, epochExists bool, epochData []byte, epochVersion int32, ctlExists bool, ctlData []byte) {
		c := claim{expected: expected, newEpoch: newEpoch, controller: controller, kraftEpoch: kraftEpoch}
		epoch := znodeState{exists: epochExists, data: epochData, version: epochVersion}
		ctlState := znodeState{exists: ctlExists, data: ctlData}
		if !claimLanded(c, epoch, ctlState) {
			return
		}
		if !epochExists || epochVersion != expected+1 || !ctlExists {
			t.Fatalf("landed with /controller_epoch at %d (exists %v), expected %d+1, /controller exists %v", epochVersion, epochExists, expected, ctlExists)
		}
		if v, err := znode.DecodeControllerEpoch(epochData); err != nil || v != newEpoch {
			t.Fatalf("landed with /controller_epoch %q (%v), claimed %d", epochData, err, newEpoch)
		}
		k, err := znode.DecodeController(ctlData)
		if err != nil || k.BrokerID != controller || k.KRaftControllerEpoch != kraftEpoch {
			t.Fatalf("landed with /controller %q (%v), claimed by %d epoch %d", ctlData, err, controller, kraftEpoch)
		}
	})
}

// FuzzOpEvidence checks the per-op evidence against arbitrary znodes: a
// create is carried only by a znode T created, a SetData only by one T set
// last, and denial needs a znode untouched since before T (or a create's
// znode absent).
func FuzzOpEvidence(f *testing.F) {
	f.Add(byte(kindCreate), int32(-1), true, int32(0), int64(7), int64(7), int64(7))
	f.Add(byte(kindSetData), int32(2), true, int32(3), int64(3), int64(7), int64(7))
	f.Add(byte(kindSetData), int32(2), true, int32(2), int64(3), int64(5), int64(7))
	f.Add(byte(kindDelete), int32(0), true, int32(0), int64(1), int64(1), int64(7))
	f.Fuzz(func(t *testing.T, kind byte, version int32, exists bool, curVersion int32, czxid, mzxid, zxid int64) {
		op := Op{kind: opKind(kind%4 + 1), path: "/a", version: version}
		cur := znodeState{exists: exists, version: curVersion, czxid: czxid, mzxid: mzxid}
		switch e := opEvidence(op, cur, zxid); {
		case e == evidenceHeld && op.kind == kindCreate && (!exists || czxid != zxid):
			t.Fatalf("create carried by czxid %d (exists %v), T %d", czxid, exists, zxid)
		case e == evidenceHeld && op.kind == kindSetData && (!exists || mzxid != zxid):
			t.Fatalf("setData carried by mzxid %d (exists %v), T %d", mzxid, exists, zxid)
		case e == evidenceHeld && op.kind != kindCreate && op.kind != kindSetData:
			t.Fatalf("kind %d carried", op.kind)
		case e == evidenceNotHeld && op.kind == kindCreate && exists && czxid >= zxid:
			t.Fatalf("create denied by czxid %d, T %d", czxid, zxid)
		case e == evidenceNotHeld && op.kind == kindSetData && (!exists || mzxid >= zxid):
			t.Fatalf("setData denied by mzxid %d (exists %v), T %d", mzxid, exists, zxid)
		case e == evidenceNotHeld && op.kind == kindDelete && (!exists || czxid >= zxid):
			t.Fatalf("delete denied by czxid %d (exists %v), T %d", czxid, exists, zxid)
		}
	})
}

// Only a copy sent earlier in the call can make a create ours: a znode
// with our bytes at version 0 found on the first attempt is someone else's.
func TestCreateVerdict(t *testing.T) {
	in := intent{kind: kindCreate, expected: -1, data: ours, chk: checker.MigrationState{}}
	there := znodeState{exists: true, data: ours, version: 0}
	for _, tc := range []struct {
		name      string
		rejection error
		cur       znodeState
		resent    bool
		want      verdict
	}{
		{"ours after a lost ack", zk.ErrNodeExists, there, true, verdictLanded},
		{"same bytes, nothing in doubt", zk.ErrNodeExists, there, false, verdictReread},
		{"someone else's", zk.ErrNodeExists, znodeState{exists: true, data: other, version: 0}, true, verdictReread},
		{"ours, modified since", zk.ErrNodeExists, znodeState{exists: true, data: ours, version: 1}, true, verdictReread},
		{"gone again", zk.ErrNodeExists, absent, true, verdictResend},
		{"parent missing", zk.ErrNoNode, absent, true, verdictNotLanded},
	} {
		if got, _ := createVerdict(in, "/migration", tc.rejection, tc.cur, tc.resent); got != tc.want {
			t.Errorf("%s: verdict %d, want %d", tc.name, got, tc.want)
		}
	}
}

// A release is moot once another controller was elected or /controller is
// gone, and landed only when a copy of it was in doubt.
func TestReleaseVerdict(t *testing.T) {
	epoch := znodeState{exists: true, version: 4}
	ctl := znodeState{exists: true}
	for _, tc := range []struct {
		name       string
		epoch, ctl znodeState
		resent     bool
		want       verdict
	}{
		{"another controller", znodeState{exists: true, version: 5}, ctl, true, verdictMoot},
		{"gone after a lost ack", epoch, absent, true, verdictLanded},
		{"gone, nothing in doubt", epoch, absent, false, verdictMoot},
		{"still there", epoch, ctl, true, verdictResend},
	} {
		if got := releaseVerdict(4, tc.epoch, tc.ctl, tc.resent); got != tc.want {
			t.Errorf("%s: verdict %d, want %d", tc.name, got, tc.want)
		}
	}
}

// A claim found naming this controller and epoch stands only when the
// transaction that created /controller is the last to have written
// /controller_epoch.
func TestStandingClaim(t *testing.T) {
	h := holder{
		epoch:      znodeState{exists: true, version: 3, mzxid: 90},
		controller: znodeState{exists: true, czxid: 90, mzxid: 90},
		current:    znode.Controller{Version: 2, BrokerID: 3000, KRaftControllerEpoch: 5},
	}
	if !standingClaim(h, 3000, 5) {
		t.Fatal("standing claim not recognised")
	}
	moved := h
	moved.epoch.mzxid = 95
	if standingClaim(moved, 3000, 5) {
		t.Fatal("/controller_epoch moved since the claim, yet the claim stands")
	}
	if standingClaim(h, 3001, 5) || standingClaim(h, 3000, 6) {
		t.Fatal("another controller's or epoch's claim counted as ours")
	}
}

// A delete whose znode is gone is ours only when a copy was in doubt; a
// path that only has to exist is fine whoever made it.
func TestConditionalAndEnsureVerdicts(t *testing.T) {
	del := intent{kind: kindDelete, expected: 3}
	if v, _ := conditionalVerdict(del, "/a", zk.ErrNoNode, absent, false); v != verdictMoot {
		t.Fatalf("delete of a gone znode, nothing in doubt: %d", v)
	}
	if v, _ := conditionalVerdict(del, "/a", zk.ErrNoNode, absent, true); v != verdictLanded {
		t.Fatalf("delete after a lost ack: %d", v)
	}
	if v, err := conditionalVerdict(del, "/a", zk.ErrBadVersion, znodeState{exists: true, version: 4}, true); v != verdictNotLanded || !errors.Is(err, ErrConflict) {
		t.Fatalf("delete of a moved znode: %d, %v", v, err)
	}
	if v, _ := ensureVerdict("/a", zk.ErrNodeExists); v != verdictMoot {
		t.Fatalf("existing path: %d", v)
	}
	if v, err := ensureVerdict("/a", zk.ErrNoNode); v != verdictNotLanded || err == nil {
		t.Fatalf("missing parent: %d, %v", v, err)
	}
}

// A refusal reported at an op, after the fence and the /migration write
// passed, proves the transaction did not land; one at the fence or at
// /migration does not.
func TestRefusedAtOp(t *testing.T) {
	res := func(at int) []zk.MultiResponse {
		r := make([]zk.MultiResponse, firstOpIndex+3)
		r[at].Error = zk.ErrNodeExists
		for i := at + 1; i < len(r); i++ {
			r[i].Error = errors.New("unknown error: -2")
		}
		return r
	}
	if k, err := refusedAtOp(res(firstOpIndex+1), 3); k != 1 || !errors.Is(err, zk.ErrNodeExists) {
		t.Fatalf("refusal at op 1: %d, %v", k, err)
	}
	for _, at := range []int{0, migrationIndex} {
		if k, _ := refusedAtOp(res(at), 3); k != -1 {
			t.Fatalf("refusal at request position %d taken for an op's (%d)", at, k)
		}
	}
	if k, _ := refusedAtOp(make([]zk.MultiResponse, 5), 3); k != -1 {
		t.Fatal("no refusal, yet one found")
	}
}

// The epoch a claim writes: Kafka's current+1, or with rollback-safe
// epochs at least the KRaft epoch, never less than current+1 (a KRaft
// epoch below it, and the largest current epoch, where a KRaft epoch
// above current+1 cannot be).
func TestClaimEpoch(t *testing.T) {
	for _, tc := range []struct {
		current, kraftEpoch int32
		safe                bool
		want                int32
	}{
		{1, 50, false, 2},
		{1, 50, true, 50},
		{49, 50, true, 50},
		{50, 50, true, 51},
		{80, 50, true, 81},
		{0, 0, true, 1},
		{math.MaxInt32 - 1, math.MaxInt32, true, math.MaxInt32},
		{math.MaxInt32, 50, true, math.MinInt32},
	} {
		if got := claimEpoch(tc.current, tc.kraftEpoch, tc.safe); got != tc.want {
			t.Errorf("claimEpoch(%d, %d, %v) = %d, want %d", tc.current, tc.kraftEpoch, tc.safe, got, tc.want)
		}
	}
}

// A claim in doubt that jumped /controller_epoch from 1 to 50 is ours only
// with 50 at expected+1: /controller_epoch at 2 (another claim by the same
// controller and KRaft epoch, by Kafka's rule) with a /controller naming
// us is not; and a standing claim below the KRaft epoch is not resumed
// under rollback-safe epochs.
func TestRollbackSafeClaimRules(t *testing.T) {
	c := claim{expected: 0, current: 1, newEpoch: 50, controller: 3000, kraftEpoch: 50}
	ctl := znodeState{exists: true, data: znode.Controller{Version: 2, BrokerID: 3000, Timestamp: 1, KRaftControllerEpoch: 50}.Encode()}
	jumped := znodeState{exists: true, data: znode.EncodeControllerEpoch(50), version: 1}
	if !claimLanded(c, jumped, ctl) {
		t.Fatal("jumped claim not recognised")
	}
	kafkas := znodeState{exists: true, data: znode.EncodeControllerEpoch(2), version: 1}
	if claimLanded(c, kafkas, ctl) {
		t.Fatal("a claim by Kafka's rule counted as our jumped claim")
	}
	h := holder{epoch: kafkas, controller: ctl, epochValue: 2}
	if !resumable(h, 50, false) || resumable(h, 50, true) {
		t.Fatal("a standing claim at epoch 2 must be resumed by Kafka's rule only")
	}
	h.epochValue = 50
	if !resumable(h, 50, true) {
		t.Fatal("a standing rollback-safe claim not resumed")
	}
}
