package torture

import (
	"fmt"
	"sort"
	"strings"
	"time"
)

// Report holds a run's figures.
type Report struct {
	Seed int64
	// Ops counts library calls; Recorded the operations in the history.
	Ops      int
	Recorded int
	// Faults counts injected faults by kind.
	Faults map[string]int
	// LostAcks is the writers' Stats().LostAcks: acknowledgements lost and
	// recovered by a reread.
	LostAcks uint64
	// Conflicts counts conflicts detected: ErrConflict from a call, and
	// ops refused as *OpError.
	Conflicts int
	// Fenced counts writers fenced by a rival; Generations the writers.
	Fenced      int
	Generations int
	// RollbackSafe counts the writers that claim with rollback-safe
	// epochs; Jumps their claims that raised /controller_epoch by more
	// than one.
	RollbackSafe int
	Jumps        int
	// Unknown counts calls that ended with ErrOutcomeUnknown.
	Unknown int
	// Remembered counts the transactions the dual-write Client planned
	// partly from what it remembered.
	Remembered int
	// Reconnects counts clients replaced after ErrStaleSession.
	Reconnects int
	// FinalWrite is how long the first write after the faults stopped took.
	FinalWrite time.Duration
	// Notifications counts the change notifications calls reported
	// written.
	Notifications int
	// Syncs counts Sync calls; SyncsStopped those that ended in an error
	// (a fault's doing), SyncChanges the changes of those that succeeded.
	Syncs, SyncsStopped, SyncChanges int
	// Anomalies lists everything found wrong; it must be empty.
	Anomalies []Anomaly
	Duration  time.Duration
}

// TotalFaults returns the number of faults injected.
func (r *Report) TotalFaults() int {
	n := 0
	for _, c := range r.Faults {
		n += c
	}
	return n
}

// String formats the figures.
func (r *Report) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "seed %d: %d operations (%d recorded), %d faults", r.Seed, r.Ops, r.Recorded, r.TotalFaults())
	kinds := make([]string, 0, len(r.Faults))
	for k := range r.Faults {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	b.WriteString(" (")
	for i, k := range kinds {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s %d", k, r.Faults[k])
	}
	fmt.Fprintf(&b, "), %d syncs (%d stopped, %d changes applied)", r.Syncs, r.SyncsStopped, r.SyncChanges)
	fmt.Fprintf(&b, ", %d notifications, %d lost acks recovered, %d conflicts detected, %d writers (%d fenced, %d rollback-safe making %d jumps), %d outcomes unknown, %d clients replaced after a stale session, first write after the faults %v, %d anomalies, %v",
		r.Notifications, r.LostAcks, r.Conflicts, r.Generations, r.Fenced, r.RollbackSafe, r.Jumps, r.Unknown, r.Reconnects, r.FinalWrite.Round(time.Millisecond), len(r.Anomalies), r.Duration.Round(time.Second))
	return b.String()
}
