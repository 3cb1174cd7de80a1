package torture_test

import (
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
// leadership at random moments, conflicting foreign writes, and callers'
// deadlines ending calls mid-flight. The workload is a migration (claim,
// GetOrCreate, dual-write batches of topic and partition state znodes each
// ending in a checkpoint). The recorded history must be linearizable, the
// versions returned must be the ones ZooKeeper held right after, conflicts
// must be neither false nor missed, no write lost, no writer stuck, and a
// fenced writer must be retired and silent.
//
// The short form runs by default; TORTURE_OPS=100000 (make torture) runs the
// long form. TORTURE_SEED replays a run's choices.
func TestTorture(t *testing.T) {
	seed := envInt(t, envSeed, time.Now().UnixNano())
	ops := int(envInt(t, envOps, 2000))
	minFaults := int(envInt(t, envFaults, 200))
	t.Logf("torture: seed %d, %d operations, at least %d faults; replay with: %s=%d %s=%d go test -race -run 'TestTorture$' ./internal/torture",
		seed, ops, minFaults, envSeed, seed, envOps, ops)
	cfg := torture.Config{Seed: seed, Ops: ops, MinFaults: minFaults, FaultRate: float64(envInt(t, envRate, 12)) / 100}
	if testing.Verbose() {
		cfg.Progress = func(s string) { t.Log(s) }
	}
	r := torture.Run(t, cfg)
	t.Logf("torture: %v", r)
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
	for _, kind := range []string{torture.FaultDropReply, torture.FaultDropRequest, torture.FaultCutRequest,
		torture.FaultKillMember, torture.FaultKillClientMember, torture.FaultExpireSession, torture.FaultRival,
		torture.FaultForeignWrite} {
		if r.Faults[kind] == 0 {
			t.Errorf("no %s fault injected", kind)
		}
	}
	if r.LostAcks == 0 || r.Conflicts == 0 || r.Fenced == 0 {
		t.Errorf("the faults did not bite: %d lost acks recovered, %d conflicts, %d fenced", r.LostAcks, r.Conflicts, r.Fenced)
	}
}
