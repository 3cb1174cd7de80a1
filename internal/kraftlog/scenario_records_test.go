package kraftlog_test

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/kraftmigration/zkwriter/internal/kraftlog"
	"github.com/kraftmigration/zkwriter/internal/testkit/kraftfixtures"
)

// scenarioLine is a line of a scenario's records.jsonl.
type scenarioLine struct {
	File            string          `json:"file"`
	Offset          int64           `json:"offset"`
	Epoch           int32           `json:"epoch"`
	BatchBaseOffset int64           `json:"batchBaseOffset"`
	BatchLastOffset int64           `json:"batchLastOffset"`
	Timestamp       int64           `json:"timestamp"`
	Control         bool            `json:"control"`
	Type            string          `json:"type"`
	ControlType     string          `json:"controlType"`
	Version         int16           `json:"version"`
	Data            json.RawMessage `json:"data"`
	Unknown         []struct {
		Path    string `json:"path"`
		Tag     uint32 `json:"tag"`
		DataHex string `json:"dataHex"`
	} `json:"unknownTaggedFields"`
}

// TestScenarioRecords decodes every record of every file of every
// scenario and compares it with the line Kafka wrote of it: offset,
// epoch, batch, timestamp, type and version, the record field for field,
// unknown tagged fields; and writes each file back byte for byte.
func TestScenarioRecords(t *testing.T) {
	dirs, err := filepath.Glob(filepath.Join(kraftfixtures.Dir(t), "scenarios", "*"))
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no scenarios: %v", err)
	}
	total := 0
	for _, dir := range dirs {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			byFile := map[string][]scenarioLine{}
			var order []string
			for _, name := range []string{"records.jsonl", "snapshot-records.jsonl.gz"} {
				for _, l := range readScenarioLines(t, filepath.Join(dir, name)) {
					if byFile[l.File] == nil {
						order = append(order, l.File)
					}
					byFile[l.File] = append(byFile[l.File], l)
				}
			}
			for _, file := range order {
				total += checkScenarioFile(t, filepath.Join(dir, "__cluster_metadata-0", file), byFile[file])
			}
		})
	}
	t.Logf("%d records of the scenarios decoded as Kafka's JSON says", total)
}

// checkScenarioFile compares one file's records with Kafka's lines.
func checkScenarioFile(t *testing.T, path string, lines []scenarioLine) int {
	t.Helper()
	data := mustRead(t, path)
	batches, recs, tail, err := decodeFile(data)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	i := 0
	for bi, b := range batches {
		for _, d := range recs[bi] {
			if i >= len(lines) {
				t.Fatalf("%s: more records than Kafka's %d lines", path, len(lines))
			}
			l := lines[i]
			i++
			name := l.Type
			if l.Control {
				name = l.ControlType
			}
			if d.offset != l.Offset || b.PartitionLeaderEpoch != l.Epoch || b.BaseOffset != l.BatchBaseOffset || b.LastOffset() != l.BatchLastOffset ||
				b.MaxTimestamp != l.Timestamp || d.control != l.Control || d.typeName != name || d.version != l.Version {
				t.Fatalf("%s: record %+v of batch %+v; Kafka says %+v", path, d, b.BatchHeader, l)
			}
			sameJSON(t, path, d.json, l.Data)
			checkUnknownTags(t, path, d, l)
		}
	}
	if i != len(lines) {
		t.Fatalf("%s: %d records, Kafka's lines %d", path, i, len(lines))
	}
	if got := reencode(t, batches, recs); string(got) != string(data[:tail.Pos]) {
		t.Errorf("%s: written back, not byte for byte Kafka's %d bytes of whole batches", path, tail.Pos)
	}
	return i
}

// checkUnknownTags compares the unknown tagged fields of a record, at
// every path Kafka names ("$", "$.entity[0]"), with Kafka's, and checks
// that the record holds no others.
func checkUnknownTags(t *testing.T, path string, d decodedRecord, l scenarioLine) {
	t.Helper()
	want := map[string][]kraftlog.RawTaggedField{}
	for _, u := range l.Unknown {
		data, err := hex.DecodeString(u.DataHex)
		if err != nil {
			t.Fatal(err)
		}
		want[u.Path] = append(want[u.Path], kraftlog.RawTaggedField{Tag: u.Tag, Data: data})
	}
	got := map[string][]kraftlog.RawTaggedField{}
	collectUnknown(reflect.ValueOf(d.msg).Elem(), "$", got)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s offset %d: unknown tagged fields %v, Kafka says %v", path, d.offset, got, want)
	}
}

// collectUnknown gathers the non-empty Unknown fields of v and of the
// structs it holds, by Kafka's path of them.
func collectUnknown(v reflect.Value, path string, out map[string][]kraftlog.RawTaggedField) {
	for i := 0; i < v.NumField(); i++ {
		f, sf := v.Field(i), v.Type().Field(i)
		if sf.Name == "Unknown" {
			if u := f.Interface().([]kraftlog.RawTaggedField); len(u) > 0 {
				out[path] = u
			}
			continue
		}
		name := strings.Split(sf.Tag.Get("kafka"), ",")[0]
		switch {
		case f.Kind() == reflect.Struct && f.Type() != reflect.TypeOf(kraftlog.Uuid{}):
			collectUnknown(f, path+"."+name, out)
		case f.Kind() == reflect.Slice && f.Type().Elem().Kind() == reflect.Struct && f.Type().Elem() != reflect.TypeOf(kraftlog.Uuid{}):
			for j := 0; j < f.Len(); j++ {
				collectUnknown(f.Index(j), fmt.Sprintf("%s.%s[%d]", path, name, j), out)
			}
		}
	}
}

// readScenarioLines reads a records.jsonl, gzipped when its name says;
// none when it is absent.
func readScenarioLines(t *testing.T, path string) []scenarioLine {
	t.Helper()
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var r io.Reader = f
	if filepath.Ext(path) == ".gz" {
		gz, err := gzip.NewReader(f)
		if err != nil {
			t.Fatal(err)
		}
		r = gz
	}
	var out []scenarioLine
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var l scenarioLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		out = append(out, l)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestSnapshotWriter writes every snapshot of the fixtures, and every
// bootstrap.checkpoint, again from its records with AppendSnapshot, and
// compares the bytes with Kafka's.
func TestSnapshotWriter(t *testing.T) {
	dir := kraftfixtures.Dir(t)
	paths, _ := filepath.Glob(filepath.Join(dir, "scenarios", "*", "__cluster_metadata-0", "*.checkpoint"))
	boots, _ := filepath.Glob(filepath.Join(dir, "scenarios", "*", "bootstrap.checkpoint"))
	for _, path := range append(paths, boots...) {
		data := mustRead(t, path)
		batches, recs, tail, err := decodeFile(data)
		if err != nil || tail.Kind != kraftlog.TailClean || len(batches) < 2 {
			t.Fatalf("%s: %v, tail %+v, %d batches", path, err, tail, len(batches))
		}
		var groups [][]kraftlog.NewRecord
		for _, rs := range recs[1 : len(recs)-1] {
			var g []kraftlog.NewRecord
			for _, d := range rs {
				r, err := kraftlog.MetadataRecord(d.msg.(kraftlog.Message), d.version)
				if err != nil {
					t.Fatal(err)
				}
				g = append(g, r)
			}
			groups = append(groups, g)
		}
		header := recs[0][0].msg.(*kraftlog.SnapshotHeaderRecord)
		got := kraftlog.AppendSnapshot(nil, batches[0].PartitionLeaderEpoch, batches[0].MaxTimestamp, header.LastContainedLogTimestamp, groups)
		if !bytes.Equal(got, data) {
			t.Errorf("%s: AppendSnapshot does not write Kafka's %d bytes", path, len(data))
		}
	}
}
