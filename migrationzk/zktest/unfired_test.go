package zktest_test

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/go-zookeeper/zk"

	"github.com/kraftmigration/zkwriter/migrationzk/zktest"
)

// Fault: connection cut after commit, on a multi shaped like a Writer's
// fenced checkpoint under WithRoot("/kafka"), matched by a Fault on the
// setData of "/migration" without the root.
func TestSetDataFaultFiresInMultiUnderRoot(t *testing.T) {
	srv := zktest.Start(t)
	d := zktest.NewFaultDialer(t)
	c := srv.Connect(t, d.Option())
	root := srv.Path("/kafka")
	for _, p := range []string{root, root + "/controller_epoch", root + "/migration", root + "/xmigration"} {
		mustCreate(t, c, p, nil)
	}
	armed := d.Arm(zktest.Fault{Action: zktest.DropReply, Op: zktest.OpSetData, Path: "/migration"})

	// Neither a check of /migration nor a setData of a sibling whose name
	// ends the same is a setData of /migration.
	for _, ops := range [][]any{
		{&zk.CheckVersionRequest{Path: root + "/controller_epoch", Version: 0}, &zk.CheckVersionRequest{Path: root + "/migration", Version: 0}},
		{&zk.CheckVersionRequest{Path: root + "/controller_epoch", Version: 0}, &zk.SetDataRequest{Path: root + "/xmigration", Data: []byte("x"), Version: 0}},
	} {
		if _, err := c.Multi(ops...); err != nil {
			t.Fatalf("multi %v: %v", ops, err)
		}
	}
	if armed.HasFired() {
		t.Fatal("fault fired on a multi without a setData of /migration")
	}
	_, err := c.Multi(
		&zk.CheckVersionRequest{Path: root + "/controller_epoch", Version: 0},
		&zk.SetDataRequest{Path: root + "/migration", Data: []byte("checkpoint"), Version: 0},
	)
	if !errors.Is(err, zk.ErrConnectionClosed) {
		t.Fatalf("multi with the setData: err = %v, want zk.ErrConnectionClosed", err)
	}
	if !armed.HasFired() {
		t.Fatal("fault did not fire on the multi holding the setData")
	}
	waitSession(t, c)
	if data, st, err := c.Get(root + "/migration"); err != nil || st.Version != 1 || string(data) != "checkpoint" {
		t.Fatalf("after the dropped reply: %q at version %v, %v; want the write landed", data, st, err)
	}
}

// recordingTB stands for a test whose failures and cleanups are observed:
// Errorf records, Cleanup collects; everything else goes to the real test.
type recordingTB struct {
	testing.TB
	skipped bool

	mu       sync.Mutex
	errors   []string
	cleanups []func()
}

func (r *recordingTB) Errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}

func (r *recordingTB) Cleanup(f func()) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.cleanups = append(r.cleanups, f)
}

func (r *recordingTB) Skipped() bool { return r.skipped }

// end runs the cleanups, last first, as a test's end does, and returns
// what they reported.
func (r *recordingTB) end() []string {
	r.mu.Lock()
	cleanups := r.cleanups
	r.cleanups = nil
	r.mu.Unlock()
	for i := len(cleanups) - 1; i >= 0; i-- {
		cleanups[i]()
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.errors
}

// Fault: a dropped reply that fires, and two faults that never fire: one
// disarmed, one matching no request. Only the last is reported when the
// test ends.
func TestUnfiredFaultReported(t *testing.T) {
	srv := zktest.Start(t)
	rec := &recordingTB{TB: t}
	d := zktest.NewFaultDialer(rec)
	c := srv.Connect(t, d.Option())
	p := srv.Path("/node")
	mustCreate(t, c, p, nil)

	fires := d.Arm(zktest.Fault{Action: zktest.DropReply, Op: zktest.OpSetData, Path: p})
	nowhere := zktest.Fault{Action: zktest.DropRequest, Op: zktest.OpSetData, Path: "/nowhere"}
	d.Arm(nowhere)
	withdrawn := d.Arm(zktest.Fault{Action: zktest.CutRequest, Op: zktest.OpDelete, Path: p})
	if !withdrawn.Disarm() {
		t.Fatal("Disarm of an armed fault reported false")
	}
	if _, err := c.Set(p, []byte("x"), 0); !errors.Is(err, zk.ErrConnectionClosed) {
		t.Fatalf("Set: err = %v, want zk.ErrConnectionClosed", err)
	}
	<-fires.Fired()
	if fires.Disarm() {
		t.Fatal("Disarm of a fired fault reported true")
	}
	if got := d.Unfired(); len(got) != 1 || got[0].String() != nowhere.String() {
		t.Fatalf("Unfired = %v, want [%v]", got, nowhere)
	}

	errs := rec.end()
	if len(errs) != 1 {
		t.Fatalf("reported %d errors, want 1: %q", len(errs), errs)
	}
	for _, want := range []string{"1 armed fault(s) never fired", nowhere.String() + ", armed at unfired_test.go:"} {
		if !strings.Contains(errs[0], want) {
			t.Errorf("report %q lacks %q", errs[0], want)
		}
	}
	for _, unwanted := range []string{"drop-reply", "cut-request"} {
		if strings.Contains(errs[0], unwanted) {
			t.Errorf("report %q names a fault that fired or was disarmed (%s)", errs[0], unwanted)
		}
	}
}

// Fault: none fires; a skipped test is not failed for it, and a dialer
// made for a program (nil t) reports nothing by itself.
func TestUnfiredFaultNotReportedWhenSkipped(t *testing.T) {
	rec := &recordingTB{TB: t, skipped: true}
	zktest.NewFaultDialer(rec).Arm(zktest.Fault{Action: zktest.DropReply, Op: zktest.OpAny})
	if errs := rec.end(); len(errs) != 0 {
		t.Fatalf("skipped test reported %q", errs)
	}
	d := zktest.NewFaultDialer(nil)
	d.Arm(zktest.Fault{Action: zktest.DropReply, Op: zktest.OpAny})
	if got := d.Unfired(); len(got) != 1 {
		t.Fatalf("Unfired = %v", got)
	}
}
