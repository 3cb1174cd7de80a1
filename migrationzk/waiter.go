package migrationzk

import (
	"sync"
	"time"
)

// waiter runs the requests of calls whose context can end on goroutines
// of its own, for call. A goroutine that ran one waits a while (idle) for
// the next before it ends, so that a Writer in use hands each request to
// a goroutine that exists, its stack grown, and waits for it: a few times
// cheaper than starting a goroutine per request.
type waiter struct {
	jobs chan job
	idle time.Duration // how long a goroutine waits for another request
	mu   sync.Mutex
	// free counts the goroutines waiting for a request that none was
	// promised yet.
	free int
}

// waiterIdle is how long a Writer's waiter keeps a goroutine waiting for
// another request.
const waiterIdle = time.Second

// job is a request to run and where its error goes.
type job struct {
	fn   func() error
	done chan<- error
}

func newWaiter(idle time.Duration) *waiter { return &waiter{jobs: make(chan job), idle: idle} }

// start runs fn on a goroutine of w: one waiting for a request, or a new
// one when none is. The channel receives fn's error.
func (w *waiter) start(fn func() error) <-chan error {
	done := make(chan error, 1) // fn's goroutine never waits for a caller that stopped waiting
	j := job{fn: fn, done: done}
	w.mu.Lock()
	promised := w.free > 0
	if promised {
		w.free--
	}
	w.mu.Unlock()
	if promised {
		w.jobs <- j // a free goroutine takes it: it ends only once none is promised
	} else {
		go w.serve(j)
	}
	return done
}

// serve runs j, then each request handed to it, until none comes for
// w.idle.
func (w *waiter) serve(j job) {
	idle := time.NewTimer(w.idle)
	defer idle.Stop()
	for {
		err := j.fn()
		w.mu.Lock()
		w.free++ // before the caller hears back, so that its next call finds this goroutine
		w.mu.Unlock()
		j.done <- err
		idle.Reset(w.idle)
		select {
		case j = <-w.jobs:
			continue
		case <-idle.C:
		}
		if !w.retire() {
			j = <-w.jobs // promised to a caller before the time ran out
		} else {
			return
		}
	}
}

// retire takes a goroutine whose time ran out off the free ones, unless
// every free goroutine is promised a request: then one is coming to it.
func (w *waiter) retire() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.free == 0 {
		return false
	}
	w.free--
	return true
}
