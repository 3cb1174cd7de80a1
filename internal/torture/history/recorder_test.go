package history

import (
	"errors"
	"testing"
)

// Fault: none (no server). A call wrapped is stamped with the history's
// clock: made at the moment it starts, or at the start of its first
// attempt when one is given, and returned when it ends; a call that
// panics returns a *PanicError holding its record, after the Recorder's
// panicked is told.
func TestRecorderStamps(t *testing.T) {
	h := New(root)
	var told *PanicError
	r := NewRecorder(h, func(p *PanicError) { told = p })
	before := h.Now()
	rc, err := r.Wrap(3, 0, "update", func() error { return errors.New("refused") })
	if err == nil || rc.Client != 3 || rc.Desc != "update" || rc.Call < before || rc.Return < rc.Call {
		t.Fatalf("record %+v, error %v", rc, err)
	}
	again, _ := r.Wrap(3, rc.Call, "update again", func() error { return nil })
	if again.Call != rc.Call || again.Return < rc.Return {
		t.Fatalf("a call made again records %+v, want it made at %d", again, rc.Call)
	}
	if in := again.InDoubt(); in.Return != Never || in.Call != again.Call {
		t.Fatalf("in doubt: %+v", in)
	}
	rc, err = r.Wrap(4, 0, "panics", func() error { panic("boom") })
	var p *PanicError
	if !errors.As(err, &p) || p.Value != "boom" || told != p || p.Call != rc || len(p.Stack) == 0 {
		t.Fatalf("a panicking call: error %v, told %v, record %+v", err, told, rc)
	}
}
