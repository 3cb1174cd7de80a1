package torture

import (
	"fmt"
	"runtime/debug"
)

// recorder stamps the calls it wraps with the history's clock: what is
// recorded of a call carries the moment it was made and the moment it
// returned, without each recording function being handed them. A call
// that panics returns a *panicError, after panicked is told.
type recorder struct {
	h        *history
	panicked func(rc record, p *panicError)
}

// panicError is a panic inside a call, with the stack it was raised on.
type panicError struct {
	value any
	stack []byte
}

func (p *panicError) Error() string { return fmt.Sprintf("panic: %v", p.value) }

// record is one call as recorded: the client that made it (0 for the
// admin session and foreign writers), what it was, when it was made (for a
// call made again after an unknown outcome, its first attempt's start) and
// when it returned.
type record struct {
	client int
	desc   string
	span
}

// wrap makes call f of client, described by desc, as if made at from (0
// for now), and returns its record and f's error, or a *panicError if f
// panicked.
func (r recorder) wrap(client int, from int64, desc string, f func() error) (rc record, err error) {
	rc = record{client: client, desc: desc}
	rc.Call = from
	if from <= 0 {
		rc.Call = r.h.now()
	}
	defer func() {
		rc.Return = r.h.now()
		if v := recover(); v != nil {
			p := &panicError{value: v, stack: debug.Stack()}
			err = p
			if r.panicked != nil {
				r.panicked(rc, p)
			}
		}
	}()
	return rc, f()
}

// part is the record of a part of rc (an op of its batch, a copy of its
// transaction): the same client and times, described by desc.
func (rc record) part(desc string) record {
	rc.desc = desc
	return rc
}

// inDoubt is rc with no return: its effect may land at any later moment.
func (rc record) inDoubt() record {
	rc.Return = never
	return rc
}

// op is the operation of the model rc made, taking step st (whose
// description is rc's unless st has its own).
func (rc record) op(st step) op {
	if st.Desc == "" {
		st.Desc = rc.desc
	}
	return op{Client: rc.client, Call: rc.Call, Return: rc.Return, Step: st}
}

// success is the record of rc's write of path, reported landed at
// version, conditioned on a version learned at learned (-1 when unknown).
func (rc record) success(path string, version int32, learned int64) success {
	return success{Path: path, Version: version, Learned: learned, At: rc.span, Client: rc.client, What: rc.desc}
}
