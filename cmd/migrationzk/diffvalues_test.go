package main

import (
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/kraftmigration/zkwriter/migrationzk/dualwrite"
	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

// valuesImages returns two images that differ in a config (a password
// among its keys), a partition's leader and ISR, and an ACL entry.
func valuesImages() (from, to dualwrite.Image) {
	image := func(retention, password string, leader int32, isr []int32, acl znode.ACLEntry) dualwrite.Image {
		img := dualwrite.NewImage()
		img.Topics["orders"] = dualwrite.Topic{Name: "orders", ID: znode.Uuid{MostSignificantBits: 1, LeastSignificantBits: 2},
			Partitions: map[int32]dualwrite.Partition{0: {Replicas: []int32{1, 2}, State: dualwrite.PartitionState{Leader: leader, ISR: isr}}}}
		img.Configs[dualwrite.ConfigResource{Type: dualwrite.TopicConfig, Name: "orders"}] = map[string]string{"retention.ms": retention}
		img.Configs[dualwrite.ConfigResource{Type: dualwrite.BrokerConfig, Name: "1"}] = map[string]string{"ssl.key.password": password}
		img.ACLs[dualwrite.ResourcePattern{Type: znode.ResourceTopic, Name: "orders", PatternType: znode.PatternLiteral}] = []znode.ACLEntry{acl}
		return img
	}
	read := znode.ACLEntry{Principal: "User:alice", PermissionType: znode.PermissionAllow, Operation: znode.OperationRead, Host: "*"}
	write := read
	write.Operation = znode.OperationWrite
	return image("1000", "first-secret", 1, []int32{1, 2}, read), image("2000", "second-secret", 2, []int32{2}, write)
}

// TestDiffShowsValues checks that diff prints, in text and in JSON, the
// values each change alters, old and new, and never a password.
// Fault: none (files only).
func TestDiffShowsValues(t *testing.T) {
	dir := t.TempDir()
	from, to := valuesImages()
	fromFile, toFile := filepath.Join(dir, "from.json"), filepath.Join(dir, "to.json")
	for path, img := range map[string]dualwrite.Image{fromFile: from, toFile: to} {
		if err := writeImageFile(path, img); err != nil {
			t.Fatal(err)
		}
	}
	r := runBinary(t, nil, "diff", fromFile, toFile)
	wantCode(t, r, exitProblem)
	text := r.stdout + r.stderr
	wantOutput(t, r, "write-configs topics/orders\n    retention.ms: 1000 -> 2000\n",
		"update-partitions orders partitions [0]\n    partition 0 leader: 1 -> 2\n    partition 0 isr: [1,2] -> [2]\n",
		"write-acls LITERAL Topic orders\n    acl: (none) -> User:alice Allow Write from host *\n    acl: User:alice Allow Read from host * -> (none)\n")

	r = runBinary(t, nil, "--output", "json", "diff", fromFile, toFile)
	wantCode(t, r, exitProblem)
	var out diffReport
	r.decode(t, &out)
	fields := map[string]string{}
	for _, c := range out.Changes {
		for _, f := range c.Fields {
			fields[string(c.Kind)+" "+f.String()] = ""
		}
	}
	for _, want := range []string{"write-configs retention.ms: 1000 -> 2000", "update-partitions partition 0 leader: 1 -> 2",
		"update-partitions partition 0 isr: [1,2] -> [2]", "write-acls acl: (none) -> User:alice Allow Write from host *"} {
		if _, ok := fields[want]; !ok {
			t.Errorf("JSON lacks %q: %v\n%s", want, fields, r)
		}
	}
	for _, secret := range []string{"first-secret", "second-secret"} {
		if strings.Contains(text+r.stdout+r.stderr, secret) {
			t.Fatalf("diff printed a password:\n%s", r)
		}
	}
}

// TestDiffReplacedTopic checks diff of two exports that differ in a
// topic's id and one config value: the replace-topic change, then the
// config's keys as each side holds them, in text and JSON: the changed
// value old -> new, the unchanged ones marked as rewritten with the
// recreated topic, none shown as added from nothing.
// Fault: none (files only).
func TestDiffReplacedTopic(t *testing.T) {
	dir := t.TempDir()
	image := func(id int64, retention string) string {
		img := dualwrite.NewImage()
		img.Topics["orders"] = dualwrite.Topic{Name: "orders", ID: znode.Uuid{MostSignificantBits: id, LeastSignificantBits: 2},
			Partitions: map[int32]dualwrite.Partition{0: {Replicas: []int32{1, 2}, State: dualwrite.PartitionState{Leader: 1, ISR: []int32{1, 2}}}}}
		img.Configs[dualwrite.ConfigResource{Type: dualwrite.TopicConfig, Name: "orders"}] = map[string]string{"retention.ms": retention, "cleanup.policy": "delete"}
		path := filepath.Join(dir, fmt.Sprintf("%d-%s.json", id, retention))
		if err := writeImageFile(path, img); err != nil {
			t.Fatal(err)
		}
		return path
	}
	from, to := image(1, "3600000"), image(7, "1")
	r := runBinary(t, nil, "diff", from, to)
	wantCode(t, r, exitProblem)
	wantOutput(t, r, "write-configs topics/orders\n"+
		"    cleanup.policy: delete (unchanged, rewritten with the recreated topic)\n"+
		"    retention.ms: 3600000 -> 1\n")
	if strings.Contains(r.stdout, "(none) ->") {
		t.Fatalf("a config key shows as added from nothing:\n%s", r)
	}

	r = runBinary(t, nil, "--output", "json", "diff", from, to)
	wantCode(t, r, exitProblem)
	var out diffReport
	r.decode(t, &out)
	var fields []dualwrite.FieldChange
	for _, c := range out.Changes {
		if c.Kind == dualwrite.ChangeWriteConfigs {
			fields = c.Fields
		}
	}
	want := []dualwrite.FieldChange{
		{Field: "cleanup.policy", Old: ptr("delete"), New: ptr("delete"), Rewritten: true},
		{Field: "retention.ms", Old: ptr("3600000"), New: ptr("1")},
	}
	if !reflect.DeepEqual(fields, want) {
		t.Fatalf("json fields %+v, want %+v\n%s", fields, want, r)
	}
}

func ptr(s string) *string { return &s }
