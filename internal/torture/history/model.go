package history

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/anishathalye/porcupine"
)

// Never is the return time of an operation whose outcome is unknown: it may
// take effect at any later moment.
const Never = int64(math.MaxInt64)

// Value is what one znode holds: whether it exists, its version and data.
type Value struct {
	Exists  bool
	Version int32
	Data    string
}

// String formats v for the checker's reports.
func (v Value) String() string {
	if !v.Exists {
		return "absent"
	}
	return fmt.Sprintf("v%d %q", v.Version, shorten(v.Data))
}

// Slots is the state of one group of znodes checked together: /migration
// with /controller_epoch (whose version fences every write to it), or one
// payload znode alone in slot 0.
type Slots [2]Value

// Slot numbers in the /migration group.
const (
	SlotMigration = 0
	SlotEpoch     = 1
)

// CondKind says what a cond requires of its slot.
type CondKind uint8

const (
	CondVersion     CondKind = iota + 1 // exists at Version
	CondVersionData                     // exists at Version holding Data
	CondExists
	CondAbsent
)

// Cond is a precondition of a write on one slot.
type Cond struct {
	Slot    int
	Kind    CondKind
	Version int32
	Data    string
}

// holds reports whether a slot holding v meets c.
func (c Cond) holds(v Value) bool {
	switch c.Kind {
	case CondVersion:
		return v.Exists && v.Version == c.Version
	case CondVersionData:
		return v.Exists && v.Version == c.Version && v.Data == c.Data
	case CondExists:
		return v.Exists
	case CondAbsent:
		return !v.Exists
	}
	return false
}

// impossibleAfter reports whether, once a slot was seen holding v, the
// condition can never hold again: versions only grow while nothing deletes
// the znode (capMaybes asks only of groups without deletes).
func (c Cond) impossibleAfter(v Value) bool {
	switch c.Kind {
	case CondVersion, CondVersionData:
		return v.Exists && v.Version > c.Version
	case CondAbsent:
		return v.Exists
	}
	return false
}

// String formats c for the checker's reports.
func (c Cond) String() string {
	switch c.Kind {
	case CondVersion:
		return fmt.Sprintf("s%d@v%d", c.Slot, c.Version)
	case CondVersionData:
		return fmt.Sprintf("s%d@v%d=%q", c.Slot, c.Version, shorten(c.Data))
	case CondExists:
		return fmt.Sprintf("s%d exists", c.Slot)
	case CondAbsent:
		return fmt.Sprintf("s%d absent", c.Slot)
	}
	return "?"
}

// Effect is what a write does to one slot: create it at version 0, delete
// it, or set its data and bump its version. Version, when not -1, is the
// version the caller was told the znode has afterwards (a delete reports
// none).
type Effect struct {
	Slot    int
	Create  bool
	Delete  bool
	Data    string
	Version int32
}

// Obs is one slot as observed by a read.
type Obs struct {
	Slot int
	Val  Value
	// VersionOnly ignores Data (a conflict report whose data is not
	// compared).
	VersionOnly bool
}

// StepKind says what an operation's outcome tells of its effects.
type StepKind uint8

const (
	// StepWrite: the write happened; its conditions held and the versions
	// it reported are the ones it produced.
	StepWrite StepKind = iota + 1
	// StepMaybe: the write may or may not have happened.
	StepMaybe
	// StepRefused: ZooKeeper refused the write: some condition did not
	// hold, and nothing changed.
	StepRefused
	// StepRead: the slots held the observed values.
	StepRead
	// StepReadOrCreate: the slot held the observed value, or was absent
	// and the write created it (GetOrCreate).
	StepReadOrCreate
)

// Step is the input of one operation of the model.
type Step struct {
	Kind    StepKind
	Conds   []Cond
	Effects []Effect
	Obs     []Obs
	Desc    string
}

// holds reports whether every condition of s holds in st.
func (s Step) holds(st Slots) bool {
	for _, c := range s.Conds {
		if !c.holds(st[c.Slot]) {
			return false
		}
	}
	return true
}

// apply returns the state after the effects and whether every reported
// version matches.
func (s Step) apply(st Slots) (Slots, bool) {
	ok := true
	for _, e := range s.Effects {
		v := st[e.Slot]
		if e.Delete {
			st[e.Slot] = Value{}
			continue
		}
		if e.Create {
			v = Value{Exists: true, Version: 0, Data: e.Data}
		} else {
			v = Value{Exists: true, Version: v.Version + 1, Data: e.Data}
		}
		if e.Version >= 0 && e.Version != v.Version {
			ok = false
		}
		st[e.Slot] = v
	}
	return st, ok
}

// observes reports whether st shows what s observed.
func (s Step) observes(st Slots) bool {
	for _, o := range s.Obs {
		v := st[o.Slot]
		if o.VersionOnly {
			if v.Exists != o.Val.Exists || v.Version != o.Val.Version {
				return false
			}
		} else if v != o.Val {
			return false
		}
	}
	return true
}

// next lists the states the model can be in after s from st.
func next(st Slots, s Step) []interface{} {
	switch s.Kind {
	case StepWrite:
		if s.holds(st) {
			if n, ok := s.apply(st); ok {
				return []interface{}{n}
			}
		}
		return nil
	case StepMaybe:
		if s.holds(st) {
			n, _ := s.apply(st)
			return []interface{}{st, n}
		}
		return []interface{}{st}
	case StepRefused:
		if s.holds(st) {
			return nil
		}
		return []interface{}{st}
	case StepRead:
		if s.observes(st) {
			return []interface{}{st}
		}
		return nil
	case StepReadOrCreate:
		var out []interface{}
		if s.observes(st) {
			out = append(out, st)
		}
		if s.holds(st) {
			if n, ok := s.apply(st); ok && (Step{Obs: s.Obs}).observes(n) {
				out = append(out, n)
			}
		}
		return out
	}
	return nil
}

// String formats s for the checker's reports.
func (s Step) String() string {
	var b strings.Builder
	b.WriteString(s.Desc)
	if len(s.Conds) > 0 {
		b.WriteString(" if")
		for _, c := range s.Conds {
			b.WriteString(" " + c.String())
		}
	}
	for _, e := range s.Effects {
		if e.Delete {
			fmt.Fprintf(&b, " s%d:=deleted", e.Slot)
			continue
		}
		fmt.Fprintf(&b, " s%d:=%q", e.Slot, shorten(e.Data))
		if e.Version >= 0 {
			fmt.Fprintf(&b, "->v%d", e.Version)
		}
	}
	for _, o := range s.Obs {
		fmt.Fprintf(&b, " saw s%d %v", o.Slot, o.Val)
	}
	return b.String()
}

// Op is one operation of the history of a group.
type Op struct {
	Client       int
	Call, Return int64
	Step         Step
}

// modelFrom returns the porcupine model of a group whose state starts at
// init. Operations that may or may not have happened make it
// nondeterministic.
func modelFrom(init Slots) porcupine.Model {
	nm := porcupine.NondeterministicModel{
		Init:  func() []interface{} { return []interface{}{init} },
		Step:  func(st, in, _ interface{}) []interface{} { return next(st.(Slots), in.(Step)) },
		Equal: func(a, b interface{}) bool { return a.(Slots) == b.(Slots) },
		DescribeOperation: func(in, _ interface{}) string {
			return in.(Step).String()
		},
		DescribeState: func(st interface{}) string {
			s := st.(Slots)
			return s[0].String() + " | " + s[1].String()
		},
	}
	return nm.ToModel()
}

// capMaybes bounds the return time of operations with unknown outcome. An
// operation whose conditions can never hold again after some other
// operation saw a slot (versions only grow, nothing is deleted) took
// effect, if at all, before that operation returned. A group where
// anything deletes is left as it is: a znode created again starts over.
func capMaybes(ops []Op) {
	if deletes(ops) {
		return
	}
	sightings := slotSightings(ops)
	for i := range ops {
		o := &ops[i]
		if o.Step.Kind != StepMaybe {
			continue
		}
		for _, c := range o.Step.Conds {
			for _, sg := range sightings[c.Slot] {
				if sg.at >= o.Return {
					break
				}
				if c.impossibleAfter(sg.val) {
					// Seen before the call: it never takes effect.
					o.Return = max(sg.at, o.Call)
					break
				}
			}
		}
	}
}

// deletes reports whether an operation of ops may delete a znode.
func deletes(ops []Op) bool {
	for _, o := range ops {
		for _, e := range o.Step.Effects {
			if e.Delete {
				return true
			}
		}
	}
	return false
}

// sighting is a slot seen holding val by an operation that returned at at.
type sighting struct {
	at  int64
	val Value
}

// slotSightings lists, for each slot and in the order of their return,
// the observations of it by operations whose outcome is known: reads, and
// writes that reported the version they produced.
func slotSightings(ops []Op) [2][]sighting {
	var sightings [2][]sighting
	for _, o := range ops {
		if o.Return == Never {
			continue
		}
		switch o.Step.Kind {
		case StepRead, StepReadOrCreate:
			for _, ob := range o.Step.Obs {
				sightings[ob.Slot] = append(sightings[ob.Slot], sighting{o.Return, ob.Val})
			}
		case StepWrite:
			for _, e := range o.Step.Effects {
				if e.Version >= 0 {
					sightings[e.Slot] = append(sightings[e.Slot], sighting{o.Return, Value{Exists: true, Version: e.Version}})
				}
			}
		}
	}
	for s := range sightings {
		sort.Slice(sightings[s], func(i, j int) bool { return sightings[s][i].at < sightings[s][j].at })
	}
	return sightings
}

// chunk is a stretch of a group's history that can be checked alone: no
// operation spans its borders, and its initial state was observed.
type chunk struct {
	init Slots
	ops  []Op
}

// split cuts a group's history, sorted by call time, where no operation is
// in progress and the last read of every slot of the group came after
// every write to it, so that the state at the cut is known.
func split(init Slots, ops []Op, nslots int) []chunk {
	var chunks []chunk
	cur := chunk{init: init}
	var maxReturn int64 = -1
	reads := newReadsAfterWrites()
	for _, o := range ops {
		if len(cur.ops) > 0 && o.Call > maxReturn && maxReturn != Never {
			if st, known := reads.state(cur.ops, nslots); known {
				chunks = append(chunks, cur)
				cur = chunk{init: st}
				reads = newReadsAfterWrites()
			}
		}
		cur.ops = append(cur.ops, o)
		if o.Return > maxReturn {
			maxReturn = o.Return
		}
		reads.add(o, len(cur.ops)-1)
	}
	if len(cur.ops) > 0 {
		chunks = append(chunks, cur)
	}
	return chunks
}

// readsAfterWrites follows, while split walks a chunk, the reads that tell
// each slot's state: the latest read of a slot that came after every write
// to it.
type readsAfterWrites struct {
	// last[s]: index in the chunk's ops of the latest read of s that
	// follows every write to s; -1 when a write came after it.
	last [2]int
	// lastWrite[s]: the latest return of a write to s; -1 when none.
	lastWrite [2]int64
}

func newReadsAfterWrites() readsAfterWrites {
	return readsAfterWrites{last: [2]int{-1, -1}, lastWrite: [2]int64{-1, -1}}
}

// state returns the state of the first nslots slots as the reads among ops
// saw it, and whether a read tells every one of them.
func (r *readsAfterWrites) state(ops []Op, nslots int) (Slots, bool) {
	var st Slots
	for s := 0; s < nslots; s++ {
		if r.last[s] < 0 {
			return st, false
		}
		for _, x := range ops[r.last[s]].Step.Obs {
			if x.Slot == s {
				st[s] = x.Val
			}
		}
	}
	return st, true
}

// add takes o, at index i of the chunk's ops, into account: a read that
// follows every write to a slot tells its state; a write, or a
// GetOrCreate, leaves it unknown until the next such read.
func (r *readsAfterWrites) add(o Op, i int) {
	if o.Step.Kind == StepRead {
		for _, ob := range o.Step.Obs {
			if !ob.VersionOnly && o.Call > r.lastWrite[ob.Slot] {
				r.last[ob.Slot] = i
			}
		}
		return
	}
	touched := map[int]bool{}
	for _, e := range o.Step.Effects {
		touched[e.Slot] = true
	}
	if o.Step.Kind == StepReadOrCreate {
		for _, ob := range o.Step.Obs {
			touched[ob.Slot] = true
		}
	}
	for s := range touched {
		r.last[s] = -1
		if o.Return > r.lastWrite[s] {
			r.lastWrite[s] = o.Return
		}
	}
}

// checkGroup checks that a group's history is linearizable. It returns a
// description of the first stretch that is not, or "" when all are.
func checkGroup(name string, init Slots, ops []Op, nslots int, timeout time.Duration) string {
	ops = append([]Op(nil), ops...)
	capMaybes(ops)
	sort.SliceStable(ops, func(i, j int) bool { return ops[i].Call < ops[j].Call })
	for _, c := range split(init, ops, nslots) {
		hist := make([]porcupine.Operation, len(c.ops))
		for i, o := range c.ops {
			hist[i] = porcupine.Operation{ClientId: o.Client, Input: o.Step, Call: o.Call, Return: o.Return}
		}
		switch porcupine.CheckOperationsTimeout(modelFrom(c.init), hist, timeout) {
		case porcupine.Ok:
			continue
		case porcupine.Unknown:
			return fmt.Sprintf("%s: linearizability check timed out on %d operations from %v", name, len(c.ops), c.init)
		default:
			return describeNonLinearizable(name, c)
		}
	}
	return ""
}

// describeNonLinearizable describes chunk c of group name, which is not
// linearizable: its initial state and its first forty operations.
func describeNonLinearizable(name string, c chunk) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: not linearizable; %d operations from state %v | %v:", name, len(c.ops), c.init[0], c.init[1])
	for i, o := range c.ops {
		if i >= 40 {
			fmt.Fprintf(&b, "\n  ... %d more", len(c.ops)-i)
			break
		}
		ret := "∞"
		if o.Return != Never {
			ret = fmt.Sprint(o.Return)
		}
		fmt.Fprintf(&b, "\n  client %d [%d, %s] %v", o.Client, o.Call, ret, o.Step)
	}
	return b.String()
}

// shorten cuts s to 60 bytes for the checker's reports.
func shorten(s string) string {
	if len(s) > 60 {
		return s[:60] + "..."
	}
	return s
}
