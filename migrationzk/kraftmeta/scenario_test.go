package kraftmeta_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"math/big"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/kraftmigration/zkwriter/internal/testkit/kraftfixtures"
	"github.com/kraftmigration/zkwriter/migrationzk/kraftmeta"
)

// imageLine is a line of a scenario's images.jsonl.
type imageLine struct {
	Replay  string          `json:"replay"`
	File    string          `json:"file"`
	Offset  int64           `json:"offset"`
	Epoch   int32           `json:"epoch"`
	Image   json.RawMessage `json:"image"`
	Summary *imageSummary   `json:"imageSummary"`
}

// scenarios returns the scenario directories of the fixtures.
func scenarios(t *testing.T) []string {
	t.Helper()
	dirs, err := filepath.Glob(filepath.Join(kraftfixtures.Dir(t), "scenarios", "*"))
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no scenarios (%v)", err)
	}
	return dirs
}

// readLines reads a JSON-lines file.
func readLines[T any](t *testing.T, path string) []T {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []T
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 256<<20)
	for sc.Scan() {
		var v T
		if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		out = append(out, v)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func replay(t *testing.T, path string, opts ...kraftmeta.Option) *kraftmeta.Result {
	t.Helper()
	r, err := kraftmeta.Replay(context.Background(), path, opts...)
	if err != nil {
		t.Fatalf("Replay(%s): %v", path, err)
	}
	return r
}

// sameImage fails when r's neutral image differs from Kafka's.
func sameImage(t *testing.T, what string, r *kraftmeta.Result, want json.RawMessage) {
	t.Helper()
	got := neutralImage(r)
	g, err := parseJSON(got)
	if err != nil {
		t.Fatalf("%s: our image does not parse: %v\n%s", what, err, got)
	}
	w, err := parseJSON(want)
	if err != nil {
		t.Fatalf("%s: Kafka's image does not parse: %v", what, err)
	}
	if reflect.DeepEqual(g, w) {
		return
	}
	gm, wm := g.(map[string]any), w.(map[string]any)
	for k := range wm {
		if !reflect.DeepEqual(gm[k], wm[k]) {
			gj, _ := json.Marshal(gm[k])
			wj, _ := json.Marshal(wm[k])
			t.Errorf("%s: %q differs:\n got %s\nwant %s", what, k, gj, wj)
		}
	}
}

// parseJSON parses b with numbers as exact rationals.
func parseJSON(b []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	return normalizeNumbers(v), nil
}

func normalizeNumbers(v any) any {
	switch x := v.(type) {
	case json.Number:
		r, ok := new(big.Rat).SetString(x.String())
		if !ok {
			return x.String()
		}
		return r.RatString()
	case []any:
		for i := range x {
			x[i] = normalizeNumbers(x[i])
		}
	case map[string]any:
		for k := range x {
			x[k] = normalizeNumbers(x[k])
		}
	}
	return v
}

// TestScenarioImages replays every scenario to every offset its
// images.jsonl lists and compares the image with Kafka's: the log from
// offset 0 for a "log" line, the snapshot alone for a "snapshot" line,
// and the latest snapshot and the log after it for every line at or
// after a snapshot: replaying a log gives the image of replaying Kafka's
// snapshot of it.
func TestScenarioImages(t *testing.T) {
	checked := 0
	for _, dir := range scenarios(t) {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			lines := readLines[imageLine](t, filepath.Join(dir, "images.jsonl"))
			part := filepath.Join(dir, kraftmeta.MetadataPartitionDir)
			for _, l := range lines {
				var rs []*kraftmeta.Result
				switch l.Replay {
				case "log":
					rs = append(rs, replay(t, dir, kraftmeta.AtOffset(l.Offset), kraftmeta.WithoutSnapshots()))
					if r := replay(t, dir, kraftmeta.AtOffset(l.Offset)); r.Snapshot != nil {
						rs = append(rs, r)
					}
				case "snapshot":
					rs = append(rs, replay(t, filepath.Join(part, l.File)))
				case "snapshot+log":
					rs = append(rs, replay(t, dir, kraftmeta.AtOffset(l.Offset)))
				default:
					t.Fatalf("images.jsonl: unknown replay %q", l.Replay)
				}
				for _, r := range rs {
					what := l.Replay + " at " + itoa(l.Offset)
					if r.Snapshot != nil {
						what += " from " + filepath.Base(r.Snapshot.Path)
					}
					if r.Offset != l.Offset || r.Epoch != l.Epoch {
						t.Errorf("%s: reached offset %d epoch %d, want %d epoch %d", what, r.Offset, r.Epoch, l.Offset, l.Epoch)
					}
					if l.Summary != nil {
						sameSummary(t, what, r, l.Summary)
					} else {
						sameImage(t, what, r, l.Image)
					}
					checked++
					if t.Failed() {
						return
					}
				}
			}
		})
	}
	t.Logf("%d replays compared with Kafka's images", checked)
}

// WithoutSnapshotsIfLogStartsAtZero returns the options of a replay of
// the log alone when dir's log starts at offset 0.
func WithoutSnapshotsIfLogStartsAtZero(dir string) []kraftmeta.Option {
	if _, err := os.Stat(filepath.Join(dir, kraftmeta.MetadataPartitionDir, "00000000000000000000.log")); err == nil {
		return []kraftmeta.Option{kraftmeta.WithoutSnapshots()}
	}
	return nil
}
