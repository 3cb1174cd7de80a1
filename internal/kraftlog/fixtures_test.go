package kraftlog_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"math/big"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/kraftmigration/zkwriter/internal/kraftlog"
	"github.com/kraftmigration/zkwriter/internal/testkit/kraftfixtures"
)

// decodedRecord is a record of a file, decoded, with Kafka's JSON of it.
type decodedRecord struct {
	offset  int64
	control bool
	// typeName is the record type's enum name, or the control type's.
	typeName string
	version  int16
	json     []byte
	msg      any
	key      []byte
}

// decodeFile reads every batch and record of data as kraftlog does.
func decodeFile(data []byte) ([]kraftlog.Batch, [][]decodedRecord, kraftlog.Tail, error) {
	s := kraftlog.NewScanner(data)
	var batches []kraftlog.Batch
	var recs [][]decodedRecord
	for {
		b, err := s.Next()
		if errors.Is(err, io.EOF) {
			return batches, recs, s.Tail(), nil
		}
		if err != nil {
			return batches, recs, s.Tail(), err
		}
		var these []decodedRecord
		rs := b.Records()
		for {
			r, ok, err := rs.Next()
			if err != nil {
				return batches, recs, s.Tail(), err
			}
			if !ok {
				break
			}
			d, err := decodeRecord(b.Control(), r)
			if err != nil {
				return batches, recs, s.Tail(), err
			}
			these = append(these, d)
		}
		batches = append(batches, b)
		recs = append(recs, these)
	}
}

func decodeRecord(control bool, r kraftlog.Record) (decodedRecord, error) {
	d := decodedRecord{offset: r.Offset, control: control, key: r.Key}
	if control {
		m, err := kraftlog.DecodeControl(r.Key, r.Value, nil)
		if err != nil {
			return d, err
		}
		d.typeName, d.msg, d.json = m.ControlType().String(), m, kraftlog.AppendKafkaJSON(nil, m, 0)
		return d, nil
	}
	m, v, err := kraftlog.DecodeValue(r.Value, nil)
	if err != nil {
		return d, err
	}
	d.typeName, d.version, d.msg, d.json = m.Type().EnumName(), v, m, kraftlog.AppendKafkaJSON(nil, m, v)
	return d, nil
}

// reencode writes batches back with kraftlog's writer, every record
// encoded from what was decoded.
func reencode(t *testing.T, batches []kraftlog.Batch, recs [][]decodedRecord) []byte {
	t.Helper()
	var out []byte
	for i, b := range batches {
		if b.BaseTimestamp != b.MaxTimestamp {
			t.Fatalf("batch at %d: base timestamp %d, max %d: the writer writes one", b.BaseOffset, b.BaseTimestamp, b.MaxTimestamp)
		}
		nb := kraftlog.NewBatch{BaseOffset: b.BaseOffset, Epoch: b.PartitionLeaderEpoch, Timestamp: b.MaxTimestamp, Control: b.Control()}
		for _, d := range recs[i] {
			if d.control {
				nb.Records = append(nb.Records, kraftlog.ControlRecord(d.msg.(kraftlog.ControlMessage)))
				continue
			}
			r, err := kraftlog.MetadataRecord(d.msg.(kraftlog.Message), d.version)
			if err != nil {
				t.Fatalf("offset %d: encode: %v", d.offset, err)
			}
			nb.Records = append(nb.Records, r)
		}
		out = kraftlog.AppendBatch(out, nb)
	}
	return out
}

// kafkaLine is a line of a record file's JSON.
type kafkaLine struct {
	Type    string          `json:"type"`
	Version int16           `json:"version"`
	Data    json.RawMessage `json:"data"`
}

// TestRecordFixtures decodes every record file Kafka 3.9 wrote, compares
// every record field for field with Kafka's JSON of it, and writes the
// file back byte for byte.
func TestRecordFixtures(t *testing.T) {
	dir := filepath.Join(kraftfixtures.Dir(t), "records")
	logs, err := filepath.Glob(filepath.Join(dir, "*.log"))
	if err != nil || len(logs) == 0 {
		t.Fatalf("no record files in %s (%v)", dir, err)
	}
	checked := 0
	for _, path := range logs {
		name := filepath.Base(path)
		t.Run(strings.TrimSuffix(name, ".log"), func(t *testing.T) {
			data := mustRead(t, path)
			batches, recs, tail, err := decodeFile(data)
			if strings.Contains(name, "rejected") {
				if err == nil {
					t.Fatalf("%s: decoded without an error; Kafka refuses it", name)
				}
				t.Logf("refused as Kafka refuses it: %v", err)
				checked++
				return
			}
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if tail.Kind != kraftlog.TailClean {
				t.Fatalf("%s: tail %+v", name, tail)
			}
			lines := readJSONLines[kafkaLine](t, strings.TrimSuffix(path, ".log")+".json")
			var all []decodedRecord
			for _, r := range recs {
				all = append(all, r...)
			}
			if len(all) != len(lines) {
				t.Fatalf("%s: %d records, Kafka's JSON has %d", name, len(all), len(lines))
			}
			for i, d := range all {
				if d.typeName != lines[i].Type || d.version != lines[i].Version {
					t.Errorf("record %d: %s v%d, Kafka says %s v%d", i, d.typeName, d.version, lines[i].Type, lines[i].Version)
				}
				sameJSON(t, name, d.json, lines[i].Data)
			}
			if got := reencode(t, batches, recs); !bytes.Equal(got, data) {
				t.Errorf("%s: written back, %d bytes differ from Kafka's %d bytes:\n got %x\nwant %x", name, len(got), len(data), got, data)
			}
			checked++
		})
	}
	t.Logf("%d record files decoded, compared with Kafka's JSON and written back byte for byte", checked)
}

// sameJSON fails when got and want do not hold the same JSON values;
// numbers are compared as numbers, so that 1.0E9 and 1000000000 agree.
func sameJSON(t *testing.T, what string, got, want []byte) {
	t.Helper()
	if bytes.Equal(got, want) {
		return
	}
	g, err := parseJSON(got)
	if err != nil {
		t.Fatalf("%s: our JSON does not parse: %v\n%s", what, err, got)
	}
	w, err := parseJSON(want)
	if err != nil {
		t.Fatalf("%s: Kafka's JSON does not parse: %v", what, err)
	}
	if !reflect.DeepEqual(g, w) {
		t.Errorf("%s: JSON differs:\n got %s\nwant %s", what, got, want)
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

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// readJSONLines reads a JSON-lines file.
func readJSONLines[T any](t *testing.T, path string) []T {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []T
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
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
