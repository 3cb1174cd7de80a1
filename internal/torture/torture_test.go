package torture_test

import (
	"encoding/json"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/kraftmigration/zkwriter/internal/torture"
)

// Environment variables that size and seed TestTorture.
const (
	envSeed   = "TORTURE_SEED"
	envOps    = "TORTURE_OPS"
	envFaults = "TORTURE_FAULTS"
	envRate   = "TORTURE_FAULT_RATE" // in percent of calls
	// envStop ends the workload at the first anomaly (1).
	envStop = "TORTURE_STOP_AT_FIRST"
	// envReport names a file to write the report to, as JSON.
	envReport = "TORTURE_REPORT"
)

func envInt(t *testing.T, name string, def int64) int64 {
	t.Helper()
	s := os.Getenv(name)
	if s == "" {
		return def
	}
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		t.Fatalf("%s=%q: %v", name, s, err)
	}
	return v
}

// Fault: every kind, chosen at random from a seeded generator: replies
// dropped after the server committed, requests dropped, connections cut
// mid-frame, ensemble members killed (SIGKILL) and restarted, the member the
// writer uses killed, sessions expired, rival controllers claiming
// leadership at random moments, conflicting foreign writes, callers'
// deadlines ending calls mid-flight; another party writing our exact bytes
// after our write committed (ABA), a rival's claim ending our tenure while
// an acknowledgement is lost, znodes deleted and created again with the same
// bytes while a batch is in doubt, claims raced by another claim with the
// same KRaft epoch, a ZooKeeper-mode broker winning /controller between a
// claim and its resend, /controller_epoch moved while a claim's
// acknowledgement is lost, and a claim with rollback-safe epochs in doubt
// while the same controller and KRaft epoch claims by Kafka's rule;
// controllers whose claims must lose (the holder's id or another, a lower
// or equal KRaft epoch) arriving before a call, while a batch or a claim is
// in doubt, or between a claim and its first write; a restarted controller
// resuming its standing claim; foreign writers imitating a transaction in
// doubt (its creates and then its /migration bytes, its partition states at
// the next version, its znodes deleted and created again), and the first
// GetOrCreate's create of /migration in doubt while another party creates
// it with other bytes and then sets the create's own; the leader cut
// from the followers, and the writer's member cut into a minority of one
// while a rival claims through the majority and the writer's controller
// claims again on the same session, then healing. Some
// writers (a seeded choice) claim with rollback-safe epochs. The workload is
// a migration (claim, GetOrCreate, dual-write batches creating and deleting
// topics and updating partition states, each ending in a checkpoint). The
// recorded history must be linearizable, the versions returned must be the
// ones ZooKeeper held right after, conflicts must be neither false nor
// missed, no write lost, no writer stuck, no fence adopted that ZooKeeper
// does not hold for the writer, no write accepted after a tenure ended, and
// a fenced writer must be retired and silent, its dual-write Client
// remembering nothing; a transaction the Client planned from what it
// remembers may be refused only when a write by another party (or a call
// of its own in doubt) explains it; a claim with rollback-safe
// epochs must leave /controller_epoch at least at the claimant's KRaft
// epoch. Invariants hold of every history: one tenure per /controller_epoch
// version (shared only by a resume while the claim stands), rollback-safe
// epochs (no partition state stamped above /controller_epoch), no fenced
// write accepted once ZooKeeper was seen holding a later claim, nothing
// invented (no znode that neither the workload nor a foreign writer wrote),
// and no panic inside the library.
//
// The short form runs by default; TORTURE_OPS=100000 (make torture) runs the
// long form. TORTURE_SEED replays a run's choices.
func TestTorture(t *testing.T) {
	seed := envInt(t, envSeed, time.Now().UnixNano())
	ops := int(envInt(t, envOps, 2000))
	minFaults := int(envInt(t, envFaults, 200))
	t.Logf("torture: seed %d, %d operations, at least %d faults; replay with: %s=%d %s=%d go test -race -run 'TestTorture$' ./internal/torture",
		seed, ops, minFaults, envSeed, seed, envOps, ops)
	cfg := shortForm(seed)
	cfg.Ops, cfg.MinFaults, cfg.FaultRate = ops, minFaults, float64(envInt(t, envRate, 12))/100
	cfg.StopAtFirstAnomaly = os.Getenv(envStop) == "1"
	if testing.Verbose() {
		cfg.Progress = func(s string) { t.Log(s) }
	}
	r := torture.Run(t, cfg)
	t.Logf("torture: %v", r)
	writeReport(t, r)
	for _, a := range r.Anomalies {
		t.Errorf("anomaly: %s", a)
	}
	if len(r.Anomalies) > 0 {
		t.Fatalf("seed %d: %d anomalies; replay with %s=%d", seed, len(r.Anomalies), envSeed, seed)
	}
	if r.Ops < ops {
		t.Errorf("%d operations, want at least %d", r.Ops, ops)
	}
	if r.TotalFaults() < minFaults {
		t.Errorf("%d faults, want at least %d", r.TotalFaults(), minFaults)
	}
	for _, kind := range everyRun {
		if r.Faults[kind] == 0 {
			t.Errorf("no %s fault injected", kind)
		}
	}
	checkDisruptions(t, r)
	if r.Remembered == 0 {
		t.Errorf("no delta was planned from what the dual-write Client remembered")
	}
	if r.LostAcks == 0 || r.Conflicts == 0 || r.Fenced == 0 {
		t.Errorf("the faults did not bite: %d lost acks recovered, %d conflicts, %d fenced", r.LostAcks, r.Conflicts, r.Fenced)
	}
}

// shortForm is the configuration of the short form with seed.
func shortForm(seed int64) torture.Config {
	return torture.Config{Seed: seed, Ops: 2000, MinFaults: 200, FaultRate: 0.12, Cover: everyRun}
}

// everyRun are the fault kinds every run holds, however short: the
// run covers them (torture.Config.Cover).
var everyRun = []string{torture.FaultDropReply, torture.FaultDropRequest, torture.FaultCutRequest,
	torture.FaultExpireSession, torture.FaultRival,
	torture.FaultForeignWrite, torture.FaultABAWrite, torture.FaultTenureEnds, torture.FaultRecreate,
	torture.FaultClaimRace, torture.FaultBrokerWins, torture.FaultClaimTenureEnds, torture.FaultClaimTwin,
	torture.FaultDeadlineInDoubt, torture.FaultLoser, torture.FaultResume, torture.FaultImitate,
	torture.FaultEpochBoundary, torture.FaultForeignDelta, torture.FaultReloadInDoubt,
	torture.FaultNotificationInDoubt, torture.FaultImitateCreate}

// writeReport writes r as JSON to the file $TORTURE_REPORT names, if any.
func writeReport(t *testing.T, r *torture.Report) {
	name := os.Getenv(envReport)
	if name == "" {
		return
	}
	data, err := json.MarshalIndent(r, "", "  ")
	if err == nil {
		err = os.WriteFile(name, data, 0o644)
	}
	if err != nil {
		t.Errorf("write the report: %v", err)
	}
}

// disruptionKinds are the faults that take a member away or cut the
// ensemble, and the healing of a cut. They are KillGap apart and take
// turns, so a short run holds only a few of them.
var disruptionKinds = []string{torture.FaultKillMember, torture.FaultKillClientMember,
	torture.FaultIsolateLeader, torture.FaultClientMinority}

// checkDisruptions requires every disruption kind, and a healing, of a
// run long enough to take turns many times, and at least one disruption
// of a short run, whose few turns the time between disruptions decides.
func checkDisruptions(t *testing.T, r *torture.Report) {
	t.Helper()
	total := 0
	for _, kind := range disruptionKinds {
		total += r.Faults[kind]
		if r.Ops >= longRunOps && r.Faults[kind] == 0 {
			t.Errorf("no %s fault injected in %d operations", kind, r.Ops)
		}
	}
	if total == 0 {
		t.Errorf("no member was killed or cut from the others")
	}
	if r.Ops >= longRunOps && r.Faults[torture.FaultHeal] == 0 {
		t.Errorf("no partition healed in %d operations", r.Ops)
	}
}

// longRunOps is the length from which a run must hold every disruption.
const longRunOps = 10000
