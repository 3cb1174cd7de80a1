package migrationzk

import (
	"errors"
	"sync/atomic"
	"time"
)

// Stats counts what a Writer did. Counters only grow.
type Stats struct {
	// Writes by outcome: calls that wrote, or tried to.
	OK        uint64 // acknowledged
	Recovered uint64 // acknowledgement lost, landed per the reread
	Conflicts uint64 // another writer got there first
	Fenced    uint64 // another controller took over
	Errors    uint64 // any other failure: outcome unknown, bad input, ...

	// Attempts counts write requests sent; Retries those after the first
	// of a call.
	Attempts uint64
	Retries  uint64
	// LostAcks counts write requests whose acknowledgement was lost but
	// which a reread proved had landed. A call can recover more than one
	// (Apply sends several transactions).
	LostAcks uint64

	// Latency of write calls, from call to return.
	Latency Histogram
}

// Histogram is a cumulative latency histogram with fixed bounds.
type Histogram struct {
	// Bounds are the upper bounds of the buckets, in increasing order.
	Bounds []time.Duration
	// Counts[i] is the number of observations <= Bounds[i]; the last
	// element counts all observations.
	Counts []uint64
	Count  uint64
	Sum    time.Duration
}

// latencyBounds are the bucket bounds of Stats.Latency.
func latencyBounds() [latencyBuckets]time.Duration {
	return [latencyBuckets]time.Duration{
		250 * time.Microsecond, 500 * time.Microsecond,
		time.Millisecond, 2 * time.Millisecond, 5 * time.Millisecond,
		10 * time.Millisecond, 25 * time.Millisecond, 50 * time.Millisecond,
		100 * time.Millisecond, 250 * time.Millisecond, 500 * time.Millisecond,
		time.Second, 2500 * time.Millisecond, 5 * time.Second, 10 * time.Second,
	}
}

const latencyBuckets = 15

type counters struct {
	byOutcome [5]atomic.Uint64
	attempts  atomic.Uint64
	retries   atomic.Uint64
	lostAcks  atomic.Uint64

	buckets [latencyBuckets + 1]atomic.Uint64 // the last one is +Inf
	sum     atomic.Int64
}

func (c *counters) observe(o outcome, d time.Duration) {
	c.byOutcome[o].Add(1)
	bounds := latencyBounds()
	i := 0
	for i < len(bounds) && d > bounds[i] {
		i++
	}
	c.buckets[i].Add(1)
	c.sum.Add(int64(d))
}

func (c *counters) snapshot() Stats {
	s := Stats{
		OK:        c.byOutcome[outcomeOK].Load(),
		Recovered: c.byOutcome[outcomeRecovered].Load(),
		Conflicts: c.byOutcome[outcomeConflict].Load(),
		Fenced:    c.byOutcome[outcomeFenced].Load(),
		Errors:    c.byOutcome[outcomeError].Load(),
		Attempts:  c.attempts.Load(),
		Retries:   c.retries.Load(),
		LostAcks:  c.lostAcks.Load(),
	}
	bounds := latencyBounds()
	s.Latency.Bounds = bounds[:]
	s.Latency.Counts = make([]uint64, len(bounds)+1)
	var cum uint64
	for i := range c.buckets {
		cum += c.buckets[i].Load()
		s.Latency.Counts[i] = cum
	}
	s.Latency.Count = cum
	s.Latency.Sum = time.Duration(c.sum.Load())
	return s
}

// outcome of a write call, as counted.
type outcome int

const (
	outcomeOK outcome = iota
	outcomeRecovered
	outcomeConflict
	outcomeFenced
	outcomeError
)

func (o outcome) String() string {
	switch o {
	case outcomeOK:
		return "ok"
	case outcomeRecovered:
		return "recovered"
	case outcomeConflict:
		return "conflict"
	case outcomeFenced:
		return "fenced"
	}
	return "error"
}

// outcomeOf counts a call that ended with verdict v and err.
func outcomeOf(v verdict, err error) outcome {
	switch {
	case errors.Is(err, ErrFenced):
		return outcomeFenced
	case errors.Is(err, ErrConflict):
		return outcomeConflict
	case err != nil:
		return outcomeError
	case v == verdictLanded:
		return outcomeRecovered
	}
	return outcomeOK
}
