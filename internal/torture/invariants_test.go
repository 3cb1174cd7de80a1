package torture

import (
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/go-zookeeper/zk"

	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

// findings returns the checks of found, in order.
func checksOf(found []finding) []string {
	var checks []string
	for _, f := range found {
		checks = append(checks, f.check)
	}
	return checks
}

// Fault: none (synthetic histories). Two identities told they hold one
// /controller_epoch version, or a claimant told it holds a version a write
// naming no controller produced, are reported; the same identity resuming
// while its claim stands is not, and resuming after a later claim was
// seen is.
func TestInvariantOneTenurePerEpoch(t *testing.T) {
	a := identity{ID: 3000, Epoch: 5}
	claim := claimRecord{Client: 1, Who: a, Version: 3, Value: 5, At: span{0, 10}}
	h := newHistory()
	h.addClaim(claim)
	h.addClaim(claimRecord{Client: 2, Who: a, Version: 3, Value: 5, At: span{20, 30}})
	if got := h.oneTenurePerEpoch(); len(got) != 0 {
		t.Fatalf("%v for a resume while the claim stands", got)
	}
	h.addForeign(epochPath, foreignWrite{span: span{40, 50}, Landed: true, Version: 4})
	h.addClaim(claimRecord{Client: 3, Who: a, Version: 3, Value: 5, At: span{60, 70}})
	if got := h.oneTenurePerEpoch(); !slices.Equal(checksOf(got), []string{CheckTenure}) || !strings.Contains(got[0].text, "resumed") {
		t.Fatalf("%v, want the resume after the claim ended", got)
	}
	for _, rival := range []identity{{ID: 3001, Epoch: 5}, {ID: 3000, Epoch: 6}, {Anonymous: true}} {
		h := newHistory()
		h.addClaim(claim)
		h.addClaim(claimRecord{Client: 2, Who: rival, Version: 3, Value: 5, At: span{20, 30}})
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
		h := newHistory()
		h.addClaim(claimRecord{Client: 1, Who: identity{ID: 3000, Epoch: epoch}, RollbackSafe: tc.safe, Version: 3, Value: tc.value})
		if got := h.rollbackSafeEpochs(); len(got) != tc.want || (tc.want > 0 && got[0].check != CheckRollbackSafe) {
			t.Errorf("/controller_epoch %d after a claim at KRaft epoch %d (rollback-safe %v): %v, want %d findings", tc.value, epoch, tc.safe, got, tc.want)
		}
	}
	h := newHistory()
	h.addClaim(claimRecord{Client: 1, Who: identity{ID: 3000, Epoch: epoch}, RollbackSafe: true, Version: 3, Value: epoch})
	state := func(controllerEpoch int32) success {
		st := znode.PartitionState{ControllerEpoch: controllerEpoch, Leader: 1, ISR: []int32{1}}
		return success{Path: root + znode.PartitionStatePath("t", 0), Version: 0, Client: 1, What: "create state", Data: string(st.Encode())}
	}
	h.addSuccess(state(epoch))
	if got := h.rollbackSafeEpochs(); len(got) != 0 {
		t.Fatalf("%v for a partition state at /controller_epoch", got)
	}
	h.addSuccess(state(epoch + 1))
	if got := h.rollbackSafeEpochs(); !slices.Equal(checksOf(got), []string{CheckRollbackSafe}) {
		t.Fatalf("%v, want the partition state above /controller_epoch", got)
	}
}

// Fault: none (synthetic histories). A write accepted from a call made
// after a read saw /controller_epoch at a later version than the caller's
// claim is reported, though no write to /controller_epoch was recorded.
func TestInvariantNoFencedWriteWithoutTenure(t *testing.T) {
	h := newHistory()
	h.addClaim(claimRecord{Client: 1, Who: identity{ID: 3000, Epoch: 5}, Version: 3, Value: 5, At: span{0, 10}})
	h.addSuccess(success{Path: root + "/migration", Version: 1, At: span{20, 30}, Client: 1, What: "before"})
	h.add(migrationGroup, op{Client: 0, Call: 40, Return: 50, Step: step{Kind: stepRead,
		Obs: []obs{{Slot: slotEpoch, Val: value{Exists: true, Version: 4, Data: "6"}}}}})
	if got := h.fencedWritesWithoutTenure(); len(got) != 0 {
		t.Fatalf("%v for a write before the later claim was seen", got)
	}
	h.addSuccess(success{Path: root + "/brokers/topics/t", Version: 0, At: span{60, 70}, Client: 1, What: "after"})
	if got := h.fencedWritesWithoutTenure(); !slices.Equal(checksOf(got), []string{CheckAfterTenure}) {
		t.Fatalf("%v, want the write after the later claim was seen", got)
	}
}

// Fault: none. A znode that no one asked for is reported; the setup, what
// the workload asked for and its parents, change notifications and what
// foreign writers wrote are not.
func TestInvariantNothingInvented(t *testing.T) {
	asked := map[string]bool{znode.PartitionStatePath("t", 0): true, znode.TopicConfigEntity("c").Path(): true}
	foreign := map[string]bool{root + "/brokers/topics/f": true}
	tree := []string{root, root + "/migration", root + "/controller", root + "/controller_epoch", root + "/brokers", root + "/brokers/topics",
		root + "/brokers/topics/t", root + "/brokers/topics/t/partitions", root + "/brokers/topics/t/partitions/0", root + znode.PartitionStatePath("t", 0),
		root + "/config", root + "/config/topics", root + "/config/topics/c", root + "/config/changes", root + znode.ConfigChangePrefix + "0000000001",
		root + "/brokers/topics/f"}
	if got := inventedZnodes(tree, asked, foreign); len(got) != 0 {
		t.Fatalf("%v invented in a tree of what was asked for", got)
	}
	extra := []string{root + "/brokers/topics/after-fence", root + "/config/topics/d", root + znode.ConfigChangePrefix + "1/x"}
	if got := inventedZnodes(append(tree, extra...), asked, foreign); !slices.Equal(got, []string{extra[0], extra[2], extra[1]}) {
		t.Fatalf("invented %v, want %v", got, extra)
	}
}

// Fault: every kind, a short run. Into the history a real run recorded,
// each invariant's violation is injected before the final checks, and
// each is reported by its check: a second identity told it holds a claimed
// /controller_epoch version, a rollback-safe claim left below its KRaft
// epoch, a write accepted after the tenure ended, and a znode no one
// asked for.
func TestInvariantsOnARecordedHistory(t *testing.T) {
	if testing.Short() && os.Getenv("ZKWRITER_REQUIRE_ZK") == "" {
		t.Skip("a torture run")
	}
	tamper := func(d *driver) {
		d.h.mu.Lock()
		c := d.h.claims[0]
		end := d.h.tenureEnd(c.Client, c.Version)
		d.h.mu.Unlock()
		twin := c
		twin.Client, twin.Who.ID = 99, c.Who.ID+1
		d.h.addClaim(twin)
		low := c
		low.Client, low.RollbackSafe, low.Value = 98, true, c.Who.Epoch-1
		d.h.addClaim(low)
		if end == never {
			t.Errorf("the first claim's tenure never ended in a run with rivals")
		}
		d.h.addSuccess(success{Path: root + "/migration", Version: 1 << 20, At: span{end + 1, end + 2}, Client: c.Client, What: "injected write"})
		if _, err := d.admin.Create(root+"/invented", nil, 0, zk.WorldACL(zk.PermAll)); err != nil {
			t.Errorf("create the invented znode: %v", err)
		}
	}
	r := Run(t, Config{Seed: 1, Ops: 300, MinFaults: 30, tamper: tamper})
	seen := map[string]bool{}
	for _, a := range r.Anomalies {
		seen[a.Check] = true
	}
	for _, check := range []string{CheckTenure, CheckRollbackSafe, CheckAfterTenure, CheckInvented} {
		if !seen[check] {
			t.Errorf("the injected %s violation was not reported; anomalies: %v", check, r.Anomalies)
		}
	}
}

// Fault: every kind, as TestTorture draws them, in a run too short to
// hold the rarest. Past its Ops the run covers the kinds it lacks, and
// holds each of them.
func TestRunCovers(t *testing.T) {
	rare := []string{FaultEpochBoundary, FaultResume, FaultClaimTwin, FaultClaimRace, FaultClaimTenureEnds}
	r := Run(t, Config{Seed: 1, Ops: 150, MinFaults: 10, Cover: rare})
	for _, kind := range rare {
		if r.Faults[kind] == 0 {
			t.Errorf("no %s fault in %d operations (%v)", kind, r.Ops, r.Faults)
		}
	}
	if len(r.Anomalies) > 0 {
		t.Errorf("anomalies: %v", r.Anomalies)
	}
}
