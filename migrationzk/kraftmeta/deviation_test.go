package kraftmeta_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"testing"
)

// oneCommitLine is the final image Kafka 3.9's loader publishes when a
// scenario's whole log arrives as one commit.
type oneCommitLine struct {
	Offset   int64           `json:"offset"`
	Image    json.RawMessage `json:"image"`
	Sections []string        `json:"sectionsDifferingFromPerBatchReplay"`
}

// TestOneCommitDeviations checks that the replay differs from Kafka 3.9's
// one-commit replay exactly where the fixtures say Kafka's loader errs
// (README section 7.1): an aborted transaction's records applied when a
// record follows the abort in the same commit, configs that survive
// their topic's RemoveTopicRecord, a SCRAM credential lost when another
// user's removal empties its mechanism. It matches the per-batch replay
// instead (TestScenarioImages).
func TestOneCommitDeviations(t *testing.T) {
	for _, dir := range scenarios(t) {
		path := filepath.Join(dir, "kafka-3.9-one-commit-replay.jsonl")
		if _, err := os.Stat(path); err != nil {
			continue
		}
		t.Run(filepath.Base(dir), func(t *testing.T) {
			kafka := readLines[oneCommitLine](t, path)
			if len(kafka) != 1 {
				t.Fatalf("%d lines in %s, want 1", len(kafka), path)
			}
			ours, err := parseJSON(neutralImage(replay(t, dir, WithoutSnapshotsIfLogStartsAtZero(dir)...)))
			if err != nil {
				t.Fatal(err)
			}
			theirs, err := parseJSON(kafka[0].Image)
			if err != nil {
				t.Fatal(err)
			}
			var differ []string
			for k, v := range theirs.(map[string]any) {
				if !reflect.DeepEqual(ours.(map[string]any)[k], v) {
					differ = append(differ, k)
				}
			}
			sort.Strings(differ)
			want := slices.Clone(kafka[0].Sections)
			sort.Strings(want)
			if !slices.Equal(differ, want) {
				t.Errorf("differs from Kafka's one-commit replay in %v; the fixtures say %v", differ, want)
			}
			t.Logf("differs from Kafka's one-commit replay in %v, as the fixtures say", differ)
		})
	}
}
