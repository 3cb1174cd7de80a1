package torture

import (
	"os"
	"slices"
	"testing"

	"github.com/go-zookeeper/zk"

	"github.com/kraftmigration/zkwriter/internal/torture/history"
	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

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
		c := d.r.h.Claims()[0]
		end := d.r.h.TenureEnd(c.Client, c.Version)
		twin := c
		twin.Client, twin.Who.ID = 99, c.Who.ID+1
		d.r.h.AddClaim(twin)
		low := c
		low.Client, low.RollbackSafe, low.Value = 98, true, c.Who.Epoch-1
		d.r.h.AddClaim(low)
		if end == history.Never {
			t.Errorf("the first claim's tenure never ended in a run with rivals")
		}
		d.r.h.AddSuccess(history.Success{Path: root + "/migration", Version: 1 << 20, At: history.Span{Call: end + 1, Return: end + 2}, Client: c.Client, What: "injected write"})
		if _, err := d.r.admin.conn.Create(root+"/invented", nil, 0, zk.WorldACL(zk.PermAll)); err != nil {
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
