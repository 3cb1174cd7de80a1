package history

import "testing"

// Fault: none (synthetic histories). A refusal of a transaction planned
// from what the Client remembered is explained by another party's write
// that may have landed since the Client learned the znode (at it, above
// or below it, or in doubt), and by a call of its own in doubt that
// returned before the Client learned it again; not by the Client's own
// acknowledged write, by its own write in doubt since it learned it, by
// another party's write acknowledged before, or by a write to a sibling.
func TestExplainsRefusal(t *testing.T) {
	const path = "/brokers/topics/t/partitions/0/state"
	write := func(client int, call, ret int64, kind StepKind) Op {
		return Op{Client: client, Call: call, Return: ret, Step: Step{Kind: kind, Effects: []Effect{{Data: "x"}}}}
	}
	for _, tc := range []struct {
		name  string
		group string
		o     Op
		want  bool
	}{
		{"another party's write after", path, write(0, 150, 160, StepWrite), true},
		{"another party's write in doubt", path, write(0, 50, Never, StepMaybe), true},
		{"another party's write before", path, write(0, 50, 90, StepWrite), false},
		{"another party's refused write", path, Op{Client: 0, Call: 150, Return: 160, Step: Step{Kind: StepRefused}}, false},
		{"another party's write after the refusal", path, write(0, 210, 220, StepWrite), false},
		{"the same controller's raw batch after", path, write(1, 150, 160, StepWrite), true},
		{"a delete of the topic", root + "/brokers/topics/t", write(0, 150, 160, StepWrite), true},
		{"a write to a sibling", root + "/brokers/topics/t/partitions/1/state", write(0, 150, 160, StepWrite), false},
		{"its own acknowledged write", path, write(1, 100, 120, StepWrite), false},
		{"its own write in doubt since it learned it", path, write(1, 100, Never, StepMaybe), false},
		{"its own write in doubt before it learned it again", path, write(1, 10, Never, StepMaybe), true},
		{"its own write acknowledged before it learned it again", path, write(1, 10, 20, StepWrite), false},
	} {
		// Client 1's own calls: [100, 120] and [10, 20].
		own := func(o Op) (int64, bool) {
			for _, c := range []Span{{100, 120}, {10, 20}} {
				if o.Client == 1 && o.Call == c.Call {
					return c.Return, true
				}
			}
			return 0, false
		}
		h := New(root)
		group := tc.group
		if group == path {
			group = root + path
		}
		h.Add(group, tc.o)
		if got := h.ExplainsRefusal(root+path, 100, 200, own); got != tc.want {
			t.Errorf("%s: explained %v, want %v", tc.name, got, tc.want)
		}
	}
}
