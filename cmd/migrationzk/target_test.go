package main

import (
	"reflect"
	"strings"
	"testing"
)

// TestTarget checks which servers a command acts on: --zk, else
// $ZK_SERVERS, else the default for a command that reads; a command that
// writes never acts on the default, and an empty --zk is never taken for
// no flag. A server without a port is at 2181.
// Fault: none (pure: the flags and the environment only).
func TestTarget(t *testing.T) {
	for _, tc := range []struct {
		name    string
		args    []string
		env     string
		servers []string
		chroot  string
		err     string
	}{
		{name: "read-default", args: []string{"status"}, servers: []string{defaultServers}},
		{name: "read-env", args: []string{"status"}, env: "zk1,zk2:2182/kafka", servers: []string{"zk1:2181", "zk2:2182"}, chroot: "/kafka"},
		{name: "write-env", args: []string{"rollback-fix"}, env: "zk1:2181", servers: []string{"zk1:2181"}},
		{name: "write-flag", args: []string{"repair-null-migration", "--zk", "127.0.0.1/kafka"}, servers: []string{"127.0.0.1:2181"}, chroot: "/kafka"},
		{name: "ipv6", args: []string{"status", "--zk", "[::1]:37429,[::1]/kafka"}, servers: []string{"[::1]:37429", "[::1]:2181"}, chroot: "/kafka"},
		{name: "write-default", args: []string{"rollback-fix"}, err: "rollback-fix writes to ZooKeeper: name the servers with --zk or $ZK_SERVERS"},
		{name: "empty-flag-over-env", args: []string{"--zk", "", "status"}, env: "zk1:2181", err: "--zk is empty (an unset shell variable?)"},
		{name: "blank-flag", args: []string{"--zk", " ", "status"}, err: "--zk is empty"},
		{name: "bad-env", args: []string{"status"}, env: "::1:2181", err: `$ZK_SERVERS "::1:2181": server "::1:2181": an IPv6 address needs brackets`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := &app{getenv: func(k string) string {
				if k == serversEnv {
					return tc.env
				}
				return ""
			}}
			a.g = defaultGlobals()
			cmd, rest, _, ok := a.parseTop(tc.args)
			if !ok {
				t.Fatalf("parse %v", tc.args)
			}
			a.cmd, a.writes = cmd.name, cmd.writes
			if _, _, _, ok := a.parseCommand(cmd, rest); !ok {
				t.Fatalf("parse %v", tc.args)
			}
			err := a.checkGlobals()
			switch {
			case tc.err != "":
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err %v, want %q", err, tc.err)
				}
			case err != nil:
				t.Fatal(err)
			case !reflect.DeepEqual(a.g.servers, tc.servers) || a.g.chroot != tc.chroot:
				t.Fatalf("servers %v chroot %q, want %v %q", a.g.servers, a.g.chroot, tc.servers, tc.chroot)
			}
		})
	}
}
