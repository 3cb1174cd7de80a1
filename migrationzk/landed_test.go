package migrationzk

import (
	"bytes"
	"errors"
	"testing"

	"github.com/kraftmigration/zkwriter/checker"
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
			got, err := landed(tc.in, tc.cur)
			if got != tc.want || (err != nil) != tc.wantErr {
				t.Fatalf("landed = %v, %v; want %v (error %v)", got, err, tc.want, tc.wantErr)
			}
		})
	}
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
	if ok, err := claimLanded(c, epoch, ctl); !ok || err != nil {
		t.Fatalf("claim not recognised: %v", err)
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
		if ok, _ := claimLanded(c, e, k); ok {
			t.Errorf("%s: counted as landed", name)
		}
	}
}

func TestEffectHeld(t *testing.T) {
	present := znodeState{exists: true, data: []byte("x"), version: 3}
	if !effectHeld(kindCreate, -1, []byte("x"), present) || effectHeld(kindCreate, -1, []byte("y"), present) {
		t.Fatal("create")
	}
	if !effectHeld(kindSetData, 2, []byte("x"), present) || effectHeld(kindSetData, 1, []byte("x"), present) || !effectHeld(kindSetData, -1, []byte("x"), present) {
		t.Fatal("setData")
	}
	if effectHeld(kindDelete, -1, nil, present) || !effectHeld(kindDelete, -1, nil, znodeState{version: -1}) {
		t.Fatal("delete")
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
		got, err := landed(in, cur)
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
	for err, want := range map[error]class{
		nil:                        classOK,
		errors.New("read: EOF"):    classUnknown,
		errAbandoned:               classUnknown,
		ErrConnClosed:              classUnknown,
		errors.New("unknown -112"): classUnknown,
	} {
		if got := classify(err); got != want {
			t.Errorf("classify(%v) = %v, want %v", err, got, want)
		}
	}
}
