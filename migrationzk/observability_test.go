package migrationzk_test

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"testing"

	"github.com/kraftmigration/zkwriter/migrationzk"
	"github.com/kraftmigration/zkwriter/migrationzk/zktest"
)

// TestLogAttributes checks the structured records of a write whose
// acknowledgement was lost: the resend is logged with path,
// expected_version and attempt; the recovery with path, expected_version,
// attempt and outcome=recovered; and the call's own record with path,
// expected_version, version and outcome, under these stable names.
// Fault: the reply to the fenced /migration transaction is dropped after
// the server applied it.
func TestLogAttributes(t *testing.T) {
	c := newCluster(t)
	var buf bytes.Buffer
	logger := slog.New(slog.NewJSONHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
	w := c.writer(migrationzk.WithLogger(logger))
	s := c.start(w)
	buf.Reset()

	c.faults.Arm(zktest.Fault{Action: zktest.DropReply, Op: zktest.OpMulti, Path: c.p("/migration")})
	s.KRaftMetadataOffset++
	next, err := w.Update(testContext(t), s)
	if err != nil || !next.Recovered {
		t.Fatalf("Update: recovered %v, %v", next.Recovered, err)
	}

	var resend, recovered, call map[string]any
	dec := json.NewDecoder(&buf)
	for dec.More() {
		var rec map[string]any
		if err := dec.Decode(&rec); err != nil {
			t.Fatalf("log record: %v", err)
		}
		switch {
		case rec["outcome"] == "recovered" && rec["attempt"] != nil:
			recovered = rec
		case rec["outcome"] == "recovered":
			call = rec
		case rec["level"] == "DEBUG" && resend == nil:
			resend = rec
		}
	}
	if resend == nil || recovered == nil || call == nil {
		t.Fatalf("records: resend %v, recovered %v, call %v", resend, recovered, call)
	}
	want := map[string]any{"path": c.p("/migration"), "expected_version": float64(s.MigrationZkVersion), "attempt": float64(1)}
	for k, v := range want {
		if resend[k] != v {
			t.Errorf("resend record: %s = %v, want %v (%v)", k, resend[k], v, resend)
		}
	}
	want["attempt"], want["outcome"] = float64(2), "recovered"
	for k, v := range want {
		if recovered[k] != v {
			t.Errorf("recovery record: %s = %v, want %v (%v)", k, recovered[k], v, recovered)
		}
	}
	delete(want, "attempt")
	want["version"] = float64(next.MigrationZkVersion)
	for k, v := range want {
		if call[k] != v {
			t.Errorf("call record: %s = %v, want %v (%v)", k, call[k], v, call)
		}
	}
}
