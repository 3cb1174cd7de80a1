package history

import (
	"fmt"
	"runtime/debug"
)

// Recorder stamps the calls it wraps with the history's clock: what is
// recorded of a call carries the moment it was made and the moment it
// returned, without each recording function being handed them. A call
// that panics returns a *PanicError, after panicked is told.
type Recorder struct {
	h        *History
	panicked func(*PanicError)
}

// NewRecorder returns a Recorder on h's clock that tells panicked, if
// set, of a call that panicked.
func NewRecorder(h *History, panicked func(*PanicError)) Recorder {
	return Recorder{h: h, panicked: panicked}
}

// PanicError is a panic inside a call, with the stack it was raised on.
type PanicError struct {
	// Call is the call that panicked, as recorded.
	Call  Record
	Value any
	Stack []byte
}

func (p *PanicError) Error() string { return fmt.Sprintf("panic: %v", p.Value) }

// Record is one call as recorded: the client that made it (0 for the
// admin session and foreign writers), what it was, when it was made (for a
// call made again after an unknown outcome, its first attempt's start) and
// when it returned.
type Record struct {
	Client int
	Desc   string
	Span
}

// Wrap makes call f of client, described by desc, as if made at from (0
// for now), and returns its record and f's error, or a *PanicError if f
// panicked.
func (r Recorder) Wrap(client int, from int64, desc string, f func() error) (rc Record, err error) {
	rc = Record{Client: client, Desc: desc}
	rc.Call = from
	if from <= 0 {
		rc.Call = r.h.Now()
	}
	defer func() {
		rc.Return = r.h.Now()
		if v := recover(); v != nil {
			p := &PanicError{Call: rc, Value: v, Stack: debug.Stack()}
			err = p
			if r.panicked != nil {
				r.panicked(p)
			}
		}
	}()
	return rc, f()
}

// Part is the record of a Part of rc (an op of its batch, a copy of its
// transaction): the same client and times, described by desc.
func (rc Record) Part(desc string) Record {
	rc.Desc = desc
	return rc
}

// InDoubt is rc with no return: its effect may land at any later moment.
func (rc Record) InDoubt() Record {
	rc.Return = Never
	return rc
}

// Op is the operation of the model rc made, taking step st (whose
// description is rc's unless st has its own).
func (rc Record) Op(st Step) Op {
	if st.Desc == "" {
		st.Desc = rc.Desc
	}
	return Op{Client: rc.Client, Call: rc.Call, Return: rc.Return, Step: st}
}

// Success is the record of rc's write of path, reported landed at
// version, conditioned on a version learned at learned (-1 when unknown).
func (rc Record) Success(path string, version int32, learned int64) Success {
	return Success{Path: path, Version: version, Learned: learned, At: rc.Span, Client: rc.Client, What: rc.Desc}
}
