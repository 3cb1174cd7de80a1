package zkmetrics_test

import (
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/kraftmigration/zkwriter/internal/testkit/must"
	"github.com/kraftmigration/zkwriter/migrationzk"
	"github.com/kraftmigration/zkwriter/migrationzk/zkmetrics"
	"github.com/kraftmigration/zkwriter/migrationzk/zktest"
)

// TestCheckpointAge checks zkwriter_checkpoint_age_seconds: absent before
// the Writer confirms a checkpoint, then the time since the confirmed
// checkpoint's mtime, growing while no checkpoint is written and back
// near zero after the next.
// Fault: no checkpoint written for a while, as when writes are stuck.
func TestCheckpointAge(t *testing.T) {
	srv := zktest.Start(t)
	w := must.Get(migrationzk.New(srv.Connect(t), migrationzk.WithRoot(srv.Root)))
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(must.Get(zkmetrics.NewCollector(w, nil)))
	const name = "zkwriter_checkpoint_age_seconds"
	if n := testutil.CollectAndCount(reg, name); n != 0 || !w.ConfirmedModified().IsZero() {
		t.Fatalf("%d age series before a checkpoint, confirmed at %v", n, w.ConfirmedModified())
	}

	ctx := testContext(t, time.Minute)
	s := migrationzk.InitialState()
	s.KRaftControllerID, s.KRaftControllerEpoch, s.KRaftMetadataEpoch, s.KRaftMetadataOffset = 3000, 5, 5, 100
	s, _, err := w.GetOrCreate(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	s.KRaftMetadataOffset = 101
	if s, err = w.Update(ctx, s); err != nil {
		t.Fatal(err)
	}
	if !w.ConfirmedModified().Equal(s.LastUpdated) {
		t.Fatalf("confirmed at %v, the State says %v", w.ConfirmedModified(), s.LastUpdated)
	}
	fresh := gauge(t, reg, name)
	time.Sleep(1100 * time.Millisecond)
	stale := gauge(t, reg, name)
	if fresh > 1 || stale < 1.1 || stale < fresh {
		t.Fatalf("age %v right after the checkpoint, %v 1.1s later", fresh, stale)
	}
	s.KRaftMetadataOffset = 102
	if _, err = w.Update(ctx, s); err != nil {
		t.Fatal(err)
	}
	if again := gauge(t, reg, name); again >= stale {
		t.Fatalf("age %v after the next checkpoint, %v before it", again, stale)
	}
}
