package main

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kraftmigration/zkwriter/migrationzk/zktest"
	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

// statusJSON runs status on c with args and decodes its json output.
func statusJSON(t *testing.T, c *cluster, code int, args ...string) statusReport {
	t.Helper()
	r := c.run(append([]string{"--output", "json", "status"}, args...)...)
	wantCode(t, r, code)
	var out statusReport
	r.decode(t, &out)
	return out
}

// advance rewrites /migration of c every period with a rising offset, as a
// KRaft controller in dual-write does, until the returned stop is called.
func advance(t *testing.T, c *cluster, from int64, period time.Duration) (stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		tick := time.NewTicker(period)
		defer tick.Stop()
		for off := from; ; off++ {
			if _, err := c.admin.Set(c.root+znode.MigrationPath, checkpoint(off, 3000, 7), -1); err != nil {
				t.Errorf("advance /migration: %v", err)
				return
			}
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
		}
	}()
	return func() { cancel(); wg.Wait() }
}

// TestStatusStall gives status's stall verdict on a real ZooKeeper.
// Faults: a /migration that stops moving under a KRaft controller (the
// stall), one that keeps moving, one at offset -1 (the initial load), a
// ZooKeeper-mode controller beside an old checkpoint, no /migration, and
// --stall-after below the writes' period (the age says stalled, the
// second read says it moves).
func TestStatusStall(t *testing.T) {
	srv := zktest.Start(t)
	admin := srv.Connect(t)

	t.Run("stalled", func(t *testing.T) {
		c := newCluster(t, srv, admin, "stalled")
		c.seedKafka(43)
		c.kraftController(3000, 7)
		c.migration(checkpoint(1234, 3000, 7))
		time.Sleep(1200 * time.Millisecond)
		out := statusJSON(t, c, exitProblem, "--stall-after", "1s", "--stall-window", "300ms")
		s := out.Stall
		if s.Kind != stallStalled || s.Moved == nil || *s.Moved || s.Offset == nil || *s.Offset != 1234 ||
			s.AgeSeconds == nil || *s.AgeSeconds < 1.2 || s.StallAfterSeconds != 1 || s.WindowSeconds != 0.3 {
			t.Fatalf("stall: %+v", s)
		}
		if !strings.HasPrefix(s.Text, "stalled, or finalized: KRaft controller 3000 with epoch 7 holds /controller") ||
			len(out.Problems) != 1 || out.Problems[0] != s.Text {
			t.Fatalf("text %q, problems %q", s.Text, out.Problems)
		}
		r := c.run("status", "--stall-after", "1s", "--stall-window", "0")
		wantCode(t, r, exitProblem)
		wantOutput(t, r, "Problem: stalled, or finalized: ", "migrationzk lag")
		if strings.Contains(r.stdout, "did not move") {
			t.Fatalf("no second read was made, yet:\n%s", r)
		}
	})

	t.Run("moving", func(t *testing.T) {
		c := newCluster(t, srv, admin, "moving")
		c.seedKafka(43)
		c.kraftController(3000, 7)
		c.migration(checkpoint(1, 3000, 7))
		defer advance(t, c, 2, 100*time.Millisecond)()
		out := statusJSON(t, c, exitOK, "--stall-after", "5s", "--stall-window", "500ms")
		s := out.Stall
		if s.Kind != stallCurrent || s.Moved == nil || !*s.Moved || *s.SecondOffset <= *s.Offset || *s.AgeSeconds > 5 {
			t.Fatalf("stall: %+v", s)
		}
		// Older than --stall-after by this host's clock, yet moving: the
		// second read wins, as it would against a skewed clock.
		out = statusJSON(t, c, exitOK, "--stall-after", "1ns", "--stall-window", "500ms")
		if s := out.Stall; s.Kind != stallCurrent || !*s.Moved || !strings.Contains(s.Text, "clocks of ZooKeeper and this host differ") {
			t.Fatalf("stall: %+v", s)
		}
	})

	t.Run("loading", func(t *testing.T) {
		c := newCluster(t, srv, admin, "loading")
		c.seedKafka(43)
		c.kraftController(3000, 7)
		c.migration(checkpoint(-1, 3000, 7))
		time.Sleep(1200 * time.Millisecond)
		start := time.Now()
		out := statusJSON(t, c, exitOK, "--stall-after", "1s")
		if s := out.Stall; s.Kind != stallLoading || s.Moved != nil || !strings.HasPrefix(s.Text, "loading: ") {
			t.Fatalf("stall: %+v", s)
		}
		if d := time.Since(start); d >= defaultStallWindow {
			t.Fatalf("the initial load took a second read: %v", d)
		}
	})

	t.Run("zookeeper-mode", func(t *testing.T) {
		c := newCluster(t, srv, admin, "zkmode")
		c.seedKafka(44)
		c.zkController(1)
		c.migration(checkpoint(1234, 3000, 50))
		time.Sleep(1200 * time.Millisecond)
		out := statusJSON(t, c, exitOK, "--stall-after", "1s")
		if s := out.Stall; s.Kind != stallNoKRaft || s.Moved != nil || *s.AgeSeconds < 1.2 {
			t.Fatalf("stall: %+v", s)
		}
	})

	t.Run("no-migration", func(t *testing.T) {
		c := newCluster(t, srv, admin, "nomigration")
		c.seedKafka(43)
		c.kraftController(3000, 7)
		out := statusJSON(t, c, exitOK, "--stall-after", "1ns")
		if s := out.Stall; s.Kind != stallNoCheckpoint || s.AgeSeconds != nil {
			t.Fatalf("stall: %+v", s)
		}
	})

	t.Run("bad-flags", func(t *testing.T) {
		c := newCluster(t, srv, admin, "badflags")
		c.seedKafka(43)
		for _, args := range [][]string{{"--stall-after", "0s"}, {"--stall-window", "-1s"}} {
			r := c.run(append([]string{"status"}, args...)...)
			wantCode(t, r, exitError)
		}
	})
}

// TestJudgeStall covers the verdict's rules without a server.
func TestJudgeStall(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	kraft := controllerView{State: stateOK, Kind: kindKRaft, BrokerID: 3000, KRaftControllerEpoch: 7}
	zkMode := controllerView{State: stateOK, Kind: kindZooKeeper, BrokerID: 1, KRaftControllerEpoch: -1}
	at := func(offset int64, age time.Duration) migrationView {
		return migrationView{Path: "/migration", State: stateOK, mtime: now.Add(-age),
			Checkpoint: &checkpointView{KRaftMetadataOffset: offset, KRaftControllerID: 3000, KRaftMetadataEpoch: 7, KRaftControllerEpoch: 7}}
	}
	for _, tc := range []struct {
		name          string
		ctl           controllerView
		first, second migrationView
		want          string
	}{
		{"old", kraft, at(5, time.Minute), migrationView{}, stallStalled},
		{"old-unmoved", kraft, at(5, time.Minute), at(5, time.Minute), stallStalled},
		{"old-moved", kraft, at(5, time.Minute), at(6, time.Minute), stallCurrent},
		{"fresh", kraft, at(5, time.Second), migrationView{}, stallCurrent},
		{"at-threshold", kraft, at(5, 30*time.Second), migrationView{}, stallCurrent},
		{"future", kraft, at(5, -time.Minute), migrationView{}, stallCurrent},
		{"loading", kraft, at(-1, time.Hour), migrationView{}, stallLoading},
		{"zookeeper-mode", zkMode, at(5, time.Hour), migrationView{}, stallNoKRaft},
		{"no-controller", controllerView{State: stateAbsent}, at(5, time.Hour), migrationView{}, stallNoKRaft},
		{"null", kraft, migrationView{Path: "/migration", State: stateNull, mtime: now.Add(-time.Hour)}, migrationView{}, stallNoCheckpoint},
	} {
		v := judgeStall(tc.ctl, checkpointReads{first: tc.first, second: tc.second, at: now}, 30*time.Second, 2*time.Second)
		if v.Kind != tc.want {
			t.Errorf("%s: %s, want %s (%s)", tc.name, v.Kind, tc.want, v.Text)
		}
		if v.AgeSeconds != nil && *v.AgeSeconds < 0 {
			t.Errorf("%s: negative age %v", tc.name, *v.AgeSeconds)
		}
	}
}
