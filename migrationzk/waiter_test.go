package migrationzk

import (
	"context"
	"errors"
	"runtime"
	"testing"
	"time"
)

// Fault: a request that does not return (blocked on a channel). A call
// whose context ends stops waiting while its request still runs; the
// calls after it are not held up by that request, run one after another
// on one goroutine the waiter keeps, and get their own error; the
// waiter's goroutines end once idle.
func TestWaiter(t *testing.T) {
	before := runtime.NumGoroutine()
	w := newWaiter(2 * time.Second) // far longer than a call takes here
	release := make(chan struct{})
	ctx, cancel := context.WithCancel(context.Background())
	started := make(chan struct{})
	returned := make(chan bool)
	go func() {
		ok, _ := call(ctx, w, func() error { close(started); <-release; return nil })
		returned <- ok
	}()
	<-started
	cancel()
	if <-returned {
		t.Fatal("a call whose context ended reported its request as returned")
	}
	mine := errors.New("mine")
	for i := 0; i < 20; i++ {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		ok, err := call(ctx, w, func() error { return mine })
		cancel()
		if !ok || err != mine {
			t.Fatalf("call %d after a request that does not return: returned %v, %v", i, ok, err)
		}
		// The blocked request's goroutine, and one for all the others.
		if n := runtime.NumGoroutine() - before; n > 2 {
			t.Fatalf("call %d: %d goroutines more than before the calls, want 2", i, n)
		}
	}
	close(release)
	for deadline := time.Now().Add(30 * time.Second); runtime.NumGoroutine() > before; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d goroutines, %d before the calls", runtime.NumGoroutine(), before)
		}
	}
}

// Fault: none. A context that cannot end runs the request on the
// caller's goroutine; one already ended sends nothing.
func TestCallWithoutWaiting(t *testing.T) {
	w := newWaiter(time.Hour)
	ran := false
	if ok, err := call(context.Background(), w, func() error { ran = true; return nil }); !ok || err != nil || !ran {
		t.Fatalf("background context: returned %v, %v, ran %v", ok, err, ran)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if ok, _ := call(ctx, w, func() error { t.Error("sent after the context ended"); return nil }); ok {
		t.Fatal("an ended context reported a request as returned")
	}
}
