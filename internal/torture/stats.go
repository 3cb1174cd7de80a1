package torture

import (
	"sync/atomic"
	"time"
)

// stats are the figures of the run that its Report gives, kept as the
// calls are made.
type stats struct {
	calls   atomic.Int64 // library calls made
	unknown atomic.Int64 // calls that ended with ErrOutcomeUnknown
	// remembered counts the transactions the dual-write Client planned
	// partly from what it remembers.
	remembered atomic.Int64
	jumps      atomic.Int64 // rollback-safe claims that raised /controller_epoch by more than one
	conflicts  atomic.Int64 // ErrConflict from a call, and ops refused
	reconnects atomic.Int64 // clients replaced after ErrStaleSession
	fenced     int          // writers fenced by a rival
	syncs      syncTally
	// notes tallies the change notifications the calls reported.
	notes notificationTally
	// finalWrite is how long the first write after the faults took.
	finalWrite time.Duration
}

// syncTally counts the Sync calls: made, ended in an error, and the
// changes of those that succeeded.
type syncTally struct{ calls, stopped, changes int }

// notificationTally is what the calls said of change notifications.
type notificationTally struct {
	landed map[string]int // by content: reported written by successful calls
	maybe  map[string]int // by content: of calls that did not say
	paths  []string       // reported written
}

func newStats() *stats {
	return &stats{notes: notificationTally{landed: map[string]int{}, maybe: map[string]int{}}}
}
