package history

import (
	"strings"
	"testing"
	"time"
)

// Helpers building synthetic operations on the /migration group.

func write(client int, call, ret int64, from, to int32, data string) Op {
	return Op{Client: client, Call: call, Return: ret, Step: Step{Kind: StepWrite,
		Conds:   []Cond{{Slot: SlotMigration, Kind: CondVersion, Version: from}, {Slot: SlotEpoch, Kind: CondVersion, Version: 0}},
		Effects: []Effect{{Slot: SlotMigration, Data: data, Version: to}}, Desc: "write " + data}}
}

func maybe(client int, call, ret int64, from int32, data string) Op {
	o := write(client, call, ret, from, -1, data)
	o.Step.Kind = StepMaybe
	return o
}

func read(call, ret int64, version int32, data string) Op {
	return Op{Call: call, Return: ret, Step: Step{Kind: StepRead,
		Obs: []Obs{{Slot: SlotMigration, Val: Value{Exists: true, Version: version, Data: data}}}, Desc: "read"}}
}

func readEpoch(call, ret int64, version int32, data string) Op {
	return Op{Call: call, Return: ret, Step: Step{Kind: StepRead,
		Obs: []Obs{{Slot: SlotEpoch, Val: Value{Exists: true, Version: version, Data: data}}}, Desc: "read epoch"}}
}

func claimOp(call, ret int64, to int32, data string) Op {
	return Op{Client: 9, Call: call, Return: ret, Step: Step{Kind: StepWrite,
		Conds:   []Cond{{Slot: SlotEpoch, Kind: CondVersion, Version: to - 1}},
		Effects: []Effect{{Slot: SlotEpoch, Data: data, Version: to}}, Desc: "claim"}}
}

var start = Slots{{Exists: true, Version: 0, Data: "a"}, {Exists: true, Version: 0, Data: "1"}}

func check(ops ...Op) string {
	return checkGroup("/migration", start, ops, 2, 10*time.Second)
}

// Fault: none (synthetic histories). The model accepts what ZooKeeper may
// do and refuses what it cannot: a lost write, two writes from one version
// (a missed conflict), a refusal with nothing in the way, a write through a
// moved fence, a version other than the one produced.
func TestModel(t *testing.T) {
	cases := []struct {
		name string
		ops  []Op
		ok   bool
	}{
		{"sequential writes and reads", []Op{write(1, 0, 10, 0, 1, "b"), read(11, 12, 1, "b"), write(1, 13, 20, 1, 2, "c"), read(21, 22, 2, "c")}, true},
		{"lost write", []Op{write(1, 0, 10, 0, 1, "b"), read(11, 12, 0, "a")}, false},
		{"other data at the version", []Op{write(1, 0, 10, 0, 1, "b"), read(11, 12, 1, "x")}, false},
		{"wrong version reported", []Op{write(1, 0, 10, 0, 2, "b")}, false},
		{"two writes from one version", []Op{write(1, 0, 10, 0, 1, "b"), write(2, 11, 20, 0, 1, "c")}, false},
		{"concurrent writes, one order works", []Op{write(1, 0, 10, 1, 2, "c"), write(2, 0, 10, 0, 1, "b"), read(11, 12, 2, "c")}, true},
		{"unknown outcome, landed", []Op{maybe(1, 0, Never, 0, "b"), read(11, 12, 1, "b")}, true},
		{"unknown outcome, not landed", []Op{maybe(1, 0, Never, 0, "b"), read(11, 12, 0, "a")}, true},
		{"unknown outcome landing late", []Op{maybe(1, 0, Never, 0, "b"), read(11, 12, 0, "a"), read(21, 22, 1, "b")}, true},
		{"unknown outcome cannot land twice", []Op{maybe(1, 0, Never, 0, "b"), write(1, 11, 20, 0, 1, "b"), read(21, 22, 2, "b")}, false},
		{"retry recovers an unknown write", []Op{maybe(1, 0, Never, 0, "b"), write(1, 11, 20, 0, 1, "b"), read(21, 22, 1, "b")}, true},
		{"refused with nothing in the way", []Op{{Call: 0, Return: 10, Step: Step{Kind: StepRefused,
			Conds: []Cond{{Slot: SlotMigration, Kind: CondVersion, Version: 0}}}}}, false},
		{"refused after a move", []Op{write(1, 0, 10, 0, 1, "b"), {Call: 11, Return: 20, Step: Step{Kind: StepRefused,
			Conds: []Cond{{Slot: SlotMigration, Kind: CondVersion, Version: 0}}}}}, true},
		{"write through a moved fence", []Op{claimOp(0, 10, 1, "2"), write(1, 11, 20, 0, 1, "b")}, false},
		{"write racing a claim", []Op{claimOp(0, 10, 1, "2"), write(1, 0, 10, 0, 1, "b"), read(11, 12, 1, "b"), readEpoch(13, 14, 1, "2")}, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			msg := check(tc.ops...)
			if (msg == "") != tc.ok {
				t.Fatalf("check = %q, want ok %v", msg, tc.ok)
			}
		})
	}
}

// Fault: none (synthetic histories). An operation of unknown outcome stops
// being able to take effect once its version is seen passed, and a history
// is cut where nothing is in flight and every slot was read after its
// last write; the cut does not change the verdict.
func TestCapAndSplit(t *testing.T) {
	ops := []Op{maybe(1, 0, Never, 0, "b"), write(1, 11, 20, 0, 1, "b"), read(21, 22, 1, "b")}
	capMaybes(ops)
	if ops[0].Return != 20 {
		t.Fatalf("unknown write capped at %d, want 20 (when version 1 was seen)", ops[0].Return)
	}

	var long []Op
	v := int32(0)
	for i := int64(0); i < 50; i++ {
		base := i * 100
		long = append(long, write(1, base, base+10, v, v+1, "d"), read(base+11, base+12, v+1, "d"), readEpoch(base+13, base+14, 0, "1"))
		v++
	}
	chunks := split(start, long, 2)
	if len(chunks) < 40 {
		t.Fatalf("%d chunks from 50 quiescent rounds", len(chunks))
	}
	if msg := check(long...); msg != "" {
		t.Fatal(msg)
	}
	// A lost write in the middle is still found, in its chunk.
	bad := append([]Op(nil), long...)
	bad[3*25+1] = read(25*100+11, 25*100+12, 25, "d")
	if msg := check(bad...); !strings.Contains(msg, "not linearizable") {
		t.Fatalf("lost write in a long history not found: %q", msg)
	}
}

// Fault: none (synthetic histories). The checks beyond linearizability: a
// conflict with no foreign write is false, a success although a foreign
// write landed in between is a missed conflict, and two acknowledged writes
// of one version are found.
func TestHistoryChecks(t *testing.T) {
	h := New(root)
	h.SetInit(MigrationGroup, start)
	h.AddConflict(ConflictReport{Path: "/migration", Since: 0, At: Span{10, 20}, What: "unexplained"})
	if got := h.Check(time.Second); len(got) != 1 || !strings.Contains(got[0].Text, "false conflict") || got[0].Check != CheckFalseConflict {
		t.Fatalf("anomalies %q, want one false conflict", got)
	}
	h.AddForeign("/migration", ForeignWrite{Span: Span{5, 12}, Landed: true, Version: 1})
	h.conflicts[0].Since = 0
	if got := h.Check(time.Second); len(got) != 0 {
		t.Fatalf("anomalies %q for a conflict a foreign write explains", got)
	}
	h.AddSuccess(Success{Path: "/migration", Version: 1, Learned: 2, At: Span{30, 40}, Client: 1, What: "update"})
	got := h.Check(time.Second)
	var missed, dup bool
	for _, a := range got {
		missed = missed || strings.Contains(a.Text, "missed conflict on")
		dup = dup || strings.Contains(a.Text, "two writes produced")
	}
	if !missed || !dup {
		t.Fatalf("anomalies %q, want a missed conflict and a duplicate version", got)
	}
}

// Fault: none (synthetic histories). A write a client was told landed
// although its call started after another party's write raised
// /controller_epoch above the client's claim is found; one before it is
// not.
func TestHistoryWritesAfterTenure(t *testing.T) {
	h := New(root)
	epoch := root + "/controller_epoch"
	h.AddSuccess(Success{Path: epoch, Version: 3, At: Span{0, 10}, Client: 1, What: "claim"})
	h.AddClaim(ClaimRecord{Client: 1, Who: Identity{ID: 3000, Epoch: 5}, Version: 3, Value: 5, At: Span{0, 10}})
	h.AddSuccess(Success{Path: root + "/migration", Version: 1, At: Span{20, 30}, Client: 1, What: "before"})
	h.AddForeign(epoch, ForeignWrite{Span: Span{40, 50}, Landed: true, Version: 4})
	if got := h.fencedWritesWithoutTenure(); len(got) != 0 {
		t.Fatalf("%v for a write before the tenure ended", got)
	}
	h.AddSuccess(Success{Path: root + "/migration", Version: 2, At: Span{60, 70}, Client: 1, What: "after"})
	if got := h.fencedWritesWithoutTenure(); len(got) != 1 || got[0].Check != CheckAfterTenure || !strings.Contains(got[0].Text, "after") {
		t.Fatalf("%v, want the write after the tenure ended", got)
	}
}

// Fault: none (synthetic histories). A delete, and a znode created again
// after it, linearize; a write reported against the deleted znode does not.
func TestModelDeletes(t *testing.T) {
	created := Op{Client: 1, Call: 0, Return: 10, Step: Step{Kind: StepWrite, Conds: []Cond{{Kind: CondAbsent}}, Effects: []Effect{{Create: true, Data: "x", Version: 0}}}}
	deleted := Op{Client: 2, Call: 20, Return: 30, Step: Step{Kind: StepWrite, Conds: []Cond{{Kind: CondExists}}, Effects: []Effect{{Delete: true, Version: -1}}}}
	again := Op{Client: 2, Call: 40, Return: 50, Step: Step{Kind: StepWrite, Conds: []Cond{{Kind: CondAbsent}}, Effects: []Effect{{Create: true, Data: "x", Version: 0}}}}
	if msg := checkGroup("/p", Slots{}, []Op{created, deleted, again}, 1, time.Second); msg != "" {
		t.Fatal(msg)
	}
	stale := Op{Client: 1, Call: 60, Return: 70, Step: Step{Kind: StepWrite, Conds: []Cond{{Kind: CondVersion, Version: 0}}, Effects: []Effect{{Data: "y", Version: 2}}}}
	if msg := checkGroup("/p", Slots{}, []Op{created, deleted, again, stale}, 1, time.Second); !strings.Contains(msg, "not linearizable") {
		t.Fatalf("a version that a recreated znode cannot have accepted: %q", msg)
	}
}

// Fault: none (synthetic histories). A conflict on /migration found
// holding the call's own content is explained by a foreign write to one
// of the call's payloads in its window (it took away the proof that the
// transaction was the call's), not by one outside it, nor by one to a
// znode the call did not write.
func TestFalseConflictByPayload(t *testing.T) {
	for _, tc := range []struct {
		name      string
		also      []string
		foreign   string
		at        Span
		wantFalse bool
	}{
		{"payload written in the window", []string{"/p"}, "/p", Span{5, 12}, false},
		{"payload written before the window", []string{"/p"}, "/p", Span{1, 2}, true},
		{"another znode written", []string{"/p"}, "/q", Span{5, 12}, true},
		{"content not the call's", nil, "/p", Span{5, 12}, true},
	} {
		h := New(root)
		h.SetInit(MigrationGroup, start)
		h.AddConflict(ConflictReport{Path: "/migration", Since: 4, At: Span{10, 20}, What: tc.name, Also: tc.also})
		h.AddForeign(tc.foreign, ForeignWrite{Span: tc.at, Landed: true, Version: 1})
		got := h.falseConflicts()
		if (len(got) == 1) != tc.wantFalse {
			t.Errorf("%s: %v, want a false conflict: %v", tc.name, got, tc.wantFalse)
		}
	}
}

// root is the cluster's root in the histories of these tests.
const root = "/kafka"
