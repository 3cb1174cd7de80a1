package history

import (
	"slices"
	"strings"
	"testing"

	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

// findings returns the checks of found, in order.
func checksOf(found []Finding) []string {
	var checks []string
	for _, f := range found {
		checks = append(checks, f.Check)
	}
	return checks
}

// Fault: none (synthetic histories). Two identities told they hold one
// /controller_epoch version, or a claimant told it holds a version a write
// naming no controller produced, are reported; the same identity resuming
// while its claim stands is not, and resuming after a later claim was
// seen is.
func TestInvariantOneTenurePerEpoch(t *testing.T) {
	a := Identity{ID: 3000, Epoch: 5}
	claim := ClaimRecord{Client: 1, Who: a, Version: 3, Value: 5, At: Span{0, 10}}
	h := New(root)
	h.AddClaim(claim)
	h.AddClaim(ClaimRecord{Client: 2, Who: a, Version: 3, Value: 5, At: Span{20, 30}})
	if got := h.oneTenurePerEpoch(); len(got) != 0 {
		t.Fatalf("%v for a resume while the claim stands", got)
	}
	h.AddForeign(root+"/controller_epoch", ForeignWrite{Span: Span{40, 50}, Landed: true, Version: 4})
	h.AddClaim(ClaimRecord{Client: 3, Who: a, Version: 3, Value: 5, At: Span{60, 70}})
	if got := h.oneTenurePerEpoch(); !slices.Equal(checksOf(got), []string{CheckTenure}) || !strings.Contains(got[0].Text, "resumed") {
		t.Fatalf("%v, want the resume after the claim ended", got)
	}
	for _, rival := range []Identity{{ID: 3001, Epoch: 5}, {ID: 3000, Epoch: 6}, {Anonymous: true}} {
		h := New(root)
		h.AddClaim(claim)
		h.AddClaim(ClaimRecord{Client: 2, Who: rival, Version: 3, Value: 5, At: Span{20, 30}})
		if got := h.oneTenurePerEpoch(); !slices.Equal(checksOf(got), []string{CheckTenure}) {
			t.Errorf("%v and %v at one version: %v, want a tenure finding", a, rival, got)
		}
	}
}

// Fault: none (synthetic histories). A claim with rollback-safe epochs is
// checked at the boundaries: /controller_epoch left one below the KRaft
// epoch is reported, equal or one above is not; a partition state written
// under the claim with a controller_epoch above /controller_epoch is
// reported, one at it is not; a claim by Kafka's rule is not held to it.
func TestInvariantRollbackSafeEpochs(t *testing.T) {
	const epoch = 7
	for _, tc := range []struct {
		value int32
		safe  bool
		want  int
	}{{epoch - 1, true, 1}, {epoch, true, 0}, {epoch + 1, true, 0}, {epoch - 1, false, 0}} {
		h := New(root)
		h.AddClaim(ClaimRecord{Client: 1, Who: Identity{ID: 3000, Epoch: epoch}, RollbackSafe: tc.safe, Version: 3, Value: tc.value})
		if got := h.rollbackSafeEpochs(); len(got) != tc.want || (tc.want > 0 && got[0].Check != CheckRollbackSafe) {
			t.Errorf("/controller_epoch %d after a claim at KRaft epoch %d (rollback-safe %v): %v, want %d findings", tc.value, epoch, tc.safe, got, tc.want)
		}
	}
	h := New(root)
	h.AddClaim(ClaimRecord{Client: 1, Who: Identity{ID: 3000, Epoch: epoch}, RollbackSafe: true, Version: 3, Value: epoch})
	state := func(controllerEpoch int32) Success {
		st := znode.PartitionState{ControllerEpoch: controllerEpoch, Leader: 1, ISR: []int32{1}}
		return Success{Path: root + znode.PartitionStatePath("t", 0), Version: 0, Client: 1, What: "create state", Data: string(st.Encode())}
	}
	h.AddSuccess(state(epoch))
	if got := h.rollbackSafeEpochs(); len(got) != 0 {
		t.Fatalf("%v for a partition state at /controller_epoch", got)
	}
	h.AddSuccess(state(epoch + 1))
	if got := h.rollbackSafeEpochs(); !slices.Equal(checksOf(got), []string{CheckRollbackSafe}) {
		t.Fatalf("%v, want the partition state above /controller_epoch", got)
	}
}

// Fault: none (synthetic histories). A write accepted from a call made
// after a read saw /controller_epoch at a later version than the caller's
// claim is reported, though no write to /controller_epoch was recorded.
func TestInvariantNoFencedWriteWithoutTenure(t *testing.T) {
	h := New(root)
	h.AddClaim(ClaimRecord{Client: 1, Who: Identity{ID: 3000, Epoch: 5}, Version: 3, Value: 5, At: Span{0, 10}})
	h.AddSuccess(Success{Path: root + "/migration", Version: 1, At: Span{20, 30}, Client: 1, What: "before"})
	h.Add(MigrationGroup, Op{Client: 0, Call: 40, Return: 50, Step: Step{Kind: StepRead,
		Obs: []Obs{{Slot: SlotEpoch, Val: Value{Exists: true, Version: 4, Data: "6"}}}}})
	if got := h.fencedWritesWithoutTenure(); len(got) != 0 {
		t.Fatalf("%v for a write before the later claim was seen", got)
	}
	h.AddSuccess(Success{Path: root + "/brokers/topics/t", Version: 0, At: Span{60, 70}, Client: 1, What: "after"})
	if got := h.fencedWritesWithoutTenure(); !slices.Equal(checksOf(got), []string{CheckAfterTenure}) {
		t.Fatalf("%v, want the write after the later claim was seen", got)
	}
}
