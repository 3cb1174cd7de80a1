package epochscan

import (
	"context"
	"time"
)

// stepsPerSecond is how many steps a rate-bounded scan takes a second:
// its steps are sized to a quarter of a second's requests, so that the
// requests go out evenly rather than in bursts of a whole chunk.
const stepsPerSecond = 4

// pacer keeps a scan's requests at or below rate a second, counted from
// the scan's start: before n more requests it waits until
// (sent + n) / rate seconds have passed since the start, so that the
// requests sent over the scan divided by its duration never exceed rate.
// A pacer of rate 0 only counts.
type pacer struct {
	rate  float64
	start time.Time
	sent  int
}

func newPacer(rate float64) *pacer { return &pacer{rate: rate, start: time.Now()} }

// size returns how many items a step takes: max at an unbounded rate,
// else a quarter of a second's requests, at least one.
func (p *pacer) size(max int) int {
	if p.rate <= 0 {
		return max
	}
	return min(max, int(max1(p.rate/stepsPerSecond)))
}

func max1(f float64) float64 {
	if f < 1 {
		return 1
	}
	return f
}

// wait waits until n more requests may be sent, and counts them sent.
func (p *pacer) wait(ctx context.Context, n int) error {
	p.sent += n
	if p.rate <= 0 {
		return ctx.Err()
	}
	due := p.start.Add(time.Duration(float64(p.sent) / p.rate * float64(time.Second)))
	d := time.Until(due)
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
