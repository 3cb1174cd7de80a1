package zktest

import (
	"testing"

	"github.com/kraftmigration/zkwriter/internal/wire"
)

// Fault: none; which requests a Fault matches, by opcode and path.
func TestFaultMatches(t *testing.T) {
	plain := func(op int32, path string) wire.Request {
		return wire.Request{Opcode: op, Ops: []wire.PathOp{{Opcode: op, Path: path}}}
	}
	multi := func(ops ...wire.PathOp) wire.Request { return wire.Request{Opcode: wire.OpMulti, Ops: ops} }
	// A Writer's fenced checkpoint under WithRoot("/kafka").
	fenced := multi(wire.PathOp{Opcode: wire.OpCheck, Path: "/kafka/controller_epoch"}, wire.PathOp{Opcode: wire.OpSetData, Path: "/kafka/migration"})
	ping := wire.Request{Xid: wire.XidPing, Opcode: wire.OpPing}
	for _, tc := range []struct {
		name  string
		fault Fault
		req   wire.Request
		want  bool
	}{
		{"setData plain", Fault{Op: OpSetData, Path: "/migration"}, plain(wire.OpSetData, "/migration"), true},
		{"setData under a root", Fault{Op: OpSetData, Path: "/migration"}, plain(wire.OpSetData, "/kafka/migration"), true},
		{"setData in a multi under a root", Fault{Op: OpSetData, Path: "/migration"}, fenced, true},
		{"setData, whole path as sent", Fault{Op: OpSetData, Path: "/kafka/migration"}, fenced, true},
		{"setData, another root", Fault{Op: OpSetData, Path: "/other/migration"}, fenced, false},
		{"setData, not at a segment boundary", Fault{Op: OpSetData, Path: "/migration"}, plain(wire.OpSetData, "/kafka/xmigration"), false},
		{"setData, a longer path", Fault{Op: OpSetData, Path: "/migration"}, plain(wire.OpSetData, "/migration/child"), false},
		{"setData, no path", Fault{Op: OpSetData}, fenced, true},
		{"setData, other op on the path", Fault{Op: OpSetData, Path: "/controller_epoch"}, fenced, false},
		{"check in a multi", Fault{Op: OpCheck, Path: "/controller_epoch"}, fenced, true},
		{"create, multi without one", Fault{Op: OpCreate}, fenced, false},
		{"delete in a multi", Fault{Op: OpDelete, Path: "/controller"}, multi(wire.PathOp{Opcode: wire.OpDelete, Path: "/kafka/controller"}), true},
		{"getData, plain only", Fault{Op: OpGetData, Path: "/migration"}, plain(wire.OpGetData, "/kafka/migration"), true},
		{"getData, not a setData", Fault{Op: OpGetData, Path: "/migration"}, plain(wire.OpSetData, "/migration"), false},
		{"multi, any op on the path", Fault{Op: OpMulti, Path: "/controller_epoch"}, fenced, true},
		{"multi, no path", Fault{Op: OpMulti}, fenced, true},
		{"multi, not a plain request", Fault{Op: OpMulti, Path: "/migration"}, plain(wire.OpSetData, "/migration"), false},
		{"any, plain", Fault{Op: OpAny, Path: "/migration"}, plain(wire.OpExists, "/kafka/migration"), true},
		{"any, multi", Fault{Op: OpAny, Path: "/migration"}, fenced, true},
		{"any, other path", Fault{Op: OpAny, Path: "/controller"}, fenced, false},
		{"any, not a ping", Fault{Op: OpAny}, ping, false},
		{"ping, by its opcode", Fault{Op: OpPing}, ping, true},
		{"root matches only itself", Fault{Op: OpAny, Path: "/"}, plain(wire.OpExists, "/kafka"), false},
		{"root", Fault{Op: OpAny, Path: "/"}, plain(wire.OpExists, "/"), true},
	} {
		if got := tc.fault.matches(tc.req); got != tc.want {
			t.Errorf("%s: %v matches %+v = %v, want %v", tc.name, tc.fault, tc.req, got, tc.want)
		}
	}
}
