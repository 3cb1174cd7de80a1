package torture

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
	write := func(client int, call, ret int64, kind stepKind) op {
		return op{Client: client, Call: call, Return: ret, Step: step{Kind: kind, Effects: []effect{{Data: "x"}}}}
	}
	for _, tc := range []struct {
		name  string
		group string
		o     op
		want  bool
	}{
		{"another party's write after", path, write(0, 150, 160, stepWrite), true},
		{"another party's write in doubt", path, write(0, 50, never, stepMaybe), true},
		{"another party's write before", path, write(0, 50, 90, stepWrite), false},
		{"another party's refused write", path, op{Client: 0, Call: 150, Return: 160, Step: step{Kind: stepRefused}}, false},
		{"another party's write after the refusal", path, write(0, 210, 220, stepWrite), false},
		{"the same controller's raw batch after", path, write(1, 150, 160, stepWrite), true},
		{"a delete of the topic", root + "/brokers/topics/t", write(0, 150, 160, stepWrite), true},
		{"a write to a sibling", root + "/brokers/topics/t/partitions/1/state", write(0, 150, 160, stepWrite), false},
		{"its own acknowledged write", path, write(1, 100, 120, stepWrite), false},
		{"its own write in doubt since it learned it", path, write(1, 100, never, stepMaybe), false},
		{"its own write in doubt before it learned it again", path, write(1, 10, never, stepMaybe), true},
		{"its own write acknowledged before it learned it again", path, write(1, 10, 20, stepWrite), false},
	} {
		g := &generation{n: 0, dwCalls: []span{{100, 120}, {10, 20}}}
		h := newHistory()
		group := tc.group
		if group == path {
			group = root + path
		}
		h.add(group, tc.o)
		r := refusal{g: g, path: path, since: 100, at: 200}
		if got := h.explainsRefusal(r, root+path); got != tc.want {
			t.Errorf("%s: explained %v, want %v", tc.name, got, tc.want)
		}
	}
}
