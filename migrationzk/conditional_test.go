package migrationzk_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"log/slog"
	"testing"

	"github.com/cenkalti/backoff/v4"

	"github.com/kraftmigration/zkwriter/migrationzk"
	"github.com/kraftmigration/zkwriter/migrationzk/zktest"
)

// Fault: the reply to a ConditionalUpdate, then to a ConditionalDelete, is
// dropped after the server applied it; then a rival moves a znode on.
// The calls are the Writer's: they count in its Stats, log to its logger
// under its root, and say what they did.
func TestConditionalWritesCountAndLog(t *testing.T) {
	c := newCluster(t)
	var buf bytes.Buffer
	w := c.writer(migrationzk.WithLogger(slog.New(slog.NewJSONHandler(&buf, nil))))
	ctx := testContext(t)
	c.create("/brokers/topics/a", []byte("1"))
	c.create("/brokers/topics/b", nil)

	c.faults.Arm(zktest.Fault{Action: zktest.DropReply, Op: zktest.OpSetData, Path: c.p("/brokers/topics/a")})
	res, err := w.ConditionalUpdate(ctx, "/brokers/topics/a", []byte("2"), 0, nil)
	if err != nil || res != (migrationzk.UpdateResult{Version: 1, Recovered: true}) {
		t.Fatalf("update whose reply was dropped: %+v, %v", res, err)
	}
	c.faults.Arm(zktest.Fault{Action: zktest.DropReply, Op: zktest.OpMulti, Path: c.p("/brokers/topics/b")})
	del, err := w.ConditionalDelete(ctx, "/brokers/topics/b", 0)
	if err != nil || del != (migrationzk.DeleteResult{Recovered: true}) {
		t.Fatalf("delete whose reply was dropped: %+v, %v", del, err)
	}
	if _, err := c.admin.Set(c.p("/brokers/topics/a"), []byte("rival"), 1); err != nil {
		t.Fatal(err)
	}
	if _, err := w.ConditionalUpdate(ctx, "/brokers/topics/a", []byte("3"), 1, nil); !errors.Is(err, migrationzk.ErrConflict) {
		t.Fatalf("update of a znode a rival moved: %v, want a conflict", err)
	}

	st := w.Stats()
	if st.Recovered != 2 || st.Conflicts != 1 || st.LostAcks != 2 || st.Attempts != 5 || st.Retries != 2 || st.Latency.Count != 3 {
		t.Fatalf("Stats: %+v, want 2 recovered, 1 conflict, 2 lost acknowledgements, 5 attempts, 2 retries, 3 calls timed", st)
	}
	calls := map[string]string{} // the calls' and recoveries' records: message and path to outcome
	dec := json.NewDecoder(&buf)
	for dec.More() {
		var rec map[string]any
		if err := dec.Decode(&rec); err != nil {
			t.Fatalf("log record: %v", err)
		}
		if msg, _ := rec["msg"].(string); rec["outcome"] != nil {
			calls[msg+" "+rec["path"].(string)], _ = rec["outcome"].(string)
		}
	}
	want := map[string]string{
		"conditional update " + c.p("/brokers/topics/a"):                                 "recovered",
		"conditional delete " + c.p("/brokers/topics/b"):                                 "recovered",
		"conditional update failed " + c.p("/brokers/topics/a"):                          "conflict",
		"write landed although its acknowledgement was lost " + c.p("/brokers/topics/a"): "recovered",
		"write landed although its acknowledgement was lost " + c.p("/brokers/topics/b"): "recovered",
	}
	for k, v := range want {
		if calls[k] != v {
			t.Errorf("record %q: outcome %q, want %q (records %v)", k, calls[k], v, calls)
		}
	}
}

// Fault: the reply to a ConditionalUpdate is dropped after the server
// applied it, under a Writer whose back-off gives up at once: the call
// does not resend, and says its outcome is unknown.
func TestConditionalUpdateUsesTheWritersBackOff(t *testing.T) {
	c := newCluster(t)
	w := c.writer(migrationzk.WithBackOff(func() migrationzk.BackOff { return &backoff.StopBackOff{} }))
	c.create("/brokers/topics/a", []byte("1"))
	c.faults.Arm(zktest.Fault{Action: zktest.DropReply, Op: zktest.OpSetData, Path: c.p("/brokers/topics/a")})
	res, err := w.ConditionalUpdate(testContext(t), "/brokers/topics/a", []byte("2"), 0, nil)
	if !errors.Is(err, migrationzk.ErrOutcomeUnknown) || res.Version != -1 {
		t.Fatalf("%+v, %v: want ErrOutcomeUnknown once the back-off gave up", res, err)
	}
	if st := w.Stats(); st.Attempts != 1 || st.Errors != 1 {
		t.Fatalf("Stats: %+v, want 1 attempt and 1 error", st)
	}
}
