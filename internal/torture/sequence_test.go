package torture_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kraftmigration/zkwriter/internal/torture"
)

// envSequence runs TestSequence: "check" compares each seed's draws with
// testdata/sequence, "write" records them there.
const envSequence = "TORTURE_SEQUENCE"

// Fault: every kind, as TestTorture draws them. For seeds 1, 2 and 3 the
// short form draws the same kinds of calls and faults as the run recorded
// in testdata/sequence, wherever it met the same: a change to the suite's
// structure leaves its choices as they were.
//
// A run's timing decides much of what it meets (whether a reply came
// before a rival's claim, whether a member is back), and two runs of one
// seed part within a few hundred draws. So a traced run draws each step
// from the seed and the step's number, and records, besides what it
// draws, what it met that decides what it draws next (marked "~ "). Each
// step is compared up to the first thing met otherwise; a draw that
// differs after the same environment fails the test.
func TestSequence(t *testing.T) {
	mode := os.Getenv(envSequence)
	if mode == "" {
		t.Skipf("three short forms: %s=check compares their draws with testdata/sequence, %s=write records them", envSequence, envSequence)
	}
	for seed := int64(1); seed <= 3; seed++ {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) {
			var events []string
			r := torture.Run(t, torture.Traced(shortForm(seed), func(e string) { events = append(events, e) }))
			if len(r.Anomalies) > 0 {
				t.Errorf("anomalies: %v", r.Anomalies)
			}
			file := filepath.Join("testdata", "sequence", fmt.Sprintf("seed%d.txt", seed))
			if mode == "write" {
				writeEvents(t, file, events)
				return
			}
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			same, parted, draws := compareSteps(bySteps(strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")), bySteps(events))
			for _, d := range draws {
				t.Errorf("seed %d: %s", seed, d)
			}
			t.Logf("seed %d: %d steps drew alike throughout, %d up to what their run met otherwise", seed, same, parted)
			if same < 1000 {
				t.Errorf("seed %d: only %d steps met the same throughout: the comparison says little", seed, same)
			}
		})
	}
}

// writeEvents records events in file, one to a line.
func writeEvents(t *testing.T, file string, events []string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, []byte(strings.Join(events, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}

// bySteps splits events at each "step N" into the events of each step,
// by its number.
func bySteps(events []string) map[string][]string {
	steps := map[string][]string{}
	cur := ""
	for _, e := range events {
		if strings.HasPrefix(e, "step ") {
			cur = e
		}
		steps[cur] = append(steps[cur], e)
	}
	return steps
}

// compareSteps compares the steps both runs made: same counts those whose
// events are all alike, parted those where one run met something the other
// did not (marked "~ ") before any draw differed, and draws describes each
// step where a draw differs after the same events.
func compareSteps(want, got map[string][]string) (same, parted int, draws []string) {
	for step, w := range want {
		g, ok := got[step]
		if !ok {
			continue // one run ended earlier: its faults acted otherwise
		}
		i := firstDifference(w, g)
		switch {
		case i < 0:
			same++
		case i >= len(w) || i >= len(g) || strings.HasPrefix(w[i], "~ ") || strings.HasPrefix(g[i], "~ "):
			parted++
		default:
			draws = append(draws, fmt.Sprintf("%s: after the same %d events, recorded %q, drawn %q", step, i, w[i], g[i]))
		}
	}
	return same, parted, draws
}

// firstDifference returns the index of the first event where got departs
// from want, -1 for none.
func firstDifference(want, got []string) int {
	for i := range max(len(want), len(got)) {
		if i >= len(want) || i >= len(got) || want[i] != got[i] {
			return i
		}
	}
	return -1
}
