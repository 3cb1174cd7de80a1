package torture

import "fmt"

// traceStep starts a step of a traced run: it is told, and the step
// draws its call from the seed and its number.
func (d *driver) traceStep() {
	if d.cfg.trace == nil {
		return
	}
	d.traced++
	d.tracePhase(0)
	d.traceEvent(fmt.Sprintf("step %d", d.traced))
}

// tracePhase has a traced run draw what follows in its step from the
// seed, the step's number and phase: the call, whether a fault is
// injected and which, whether the caller's deadline is short, and the
// rest. Each phase then draws alike in two runs that met alike what it
// depends on, whatever the phases before consumed.
func (d *driver) tracePhase(phase int64) {
	if d.cfg.trace != nil {
		d.rng.Seed((d.cfg.Seed*1_000_003+int64(d.traced))*4 + phase)
	}
}

// statesMet says, for a trace, what the choice of the next call depends
// on: whether partition states exist, more than four, and whether the
// call revisits partitions after a reload.
func (d *driver) statesMet(revisit bool) string {
	switch n := d.wl.stateCount(); {
	case revisit:
		return "revisited"
	case n == 0:
		return "none"
	case n <= 4:
		return "few"
	}
	return "many"
}

// traceEnv tells Config.trace, if set, of what the run met that decides
// what it draws next (the partition states, the faults open): marked
// "~ ", so that a comparison of two runs tells a difference of
// environment from a difference of draws.
func (d *driver) traceEnv(event string) {
	d.traceEvent("~ " + event)
}

// traceEvent tells Config.trace, if set, of event.
func (d *driver) traceEvent(event string) {
	if d.cfg.trace != nil {
		d.cfg.trace(event)
	}
}

// kind names the kind of call wk makes.
func (wk work) kind() string {
	switch {
	case wk.vocab != nil:
		return "dual-write"
	case wk.sync != nil:
		return "sync"
	case wk.delta != nil:
		return "delta"
	case wk.ops == nil:
		return "checkpoint"
	}
	return "batch"
}
