package main

import (
	"reflect"
	"strings"
	"testing"

	"github.com/kraftmigration/zkwriter/migrationzk/dualwrite"
)

// imageOf reads an image export held in doc.
func imageOf(t *testing.T, doc string) dualwrite.Image {
	t.Helper()
	img, err := dualwrite.ReadImageJSON(strings.NewReader(doc))
	if err != nil {
		t.Fatal(err)
	}
	return img
}

// TestUnplannedPartitions checks that diff reports as differences no
// change makes a state only the first image holds, and a partition
// outside the assignment only the second holds, since Diff makes up
// neither; and nothing for a partition neither holds a state for.
// Fault: none (pure).
func TestUnplannedPartitions(t *testing.T) {
	withState := imageOf(t, `{"schema_version":2,"topics":[{"name":"t","partitions":[{"id":0,"replicas":[1],"state":{"leader":1,"leader_epoch":0,"isr":[1],"leader_recovery_state":0}}]}]}`)
	stateless := imageOf(t, `{"schema_version":2,"topics":[{"name":"t","partitions":[{"id":0,"replicas":[1],"state":null}],"unassigned_partitions":[{"id":3,"state":null}]}]}`)
	got := unplanned(withState, stateless)
	want := []unplannedDiff{
		{Kind: "partition-state", Subject: "t partition 0", From: "a state", To: "none"},
		{Kind: "unassigned-partition", Subject: "t partition 3", From: "none", To: "outside the assignment"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("unplanned %+v, want %+v", got, want)
	}
	if got := unplanned(stateless, stateless); len(got) != 0 {
		t.Fatalf("one image against itself: %+v", got)
	}
	if got := unplanned(stateless, withState); len(got) != 0 {
		t.Fatalf("a state only the second holds is a planned change: %+v", got)
	}
}

// TestUnplannedUndecodable checks what diff says of a znode that does not
// decode in one image: "absent" where the other image lacks it, not
// "decodable"; and that a partition state which does not decode in the
// second image is reported once, as undecodable, not also as a state
// gone.
// Fault: none (pure); a config and a partition state that do not decode.
func TestUnplannedUndecodable(t *testing.T) {
	from := imageOf(t, `{"schema_version":2,"topics":[{"name":"t","partitions":[{"id":0,"replicas":[1],"state":{"leader":1,"leader_epoch":0,"isr":[1],"leader_recovery_state":0}}]}],`+
		`"configs":[{"type":"topics","name":"t","config":{"retention.ms":"1"}}]}`)
	to := imageOf(t, `{"schema_version":2,"topics":[{"name":"t","partitions":[{"id":0,"replicas":[1],"state":null}]}],`+
		`"configs":[{"type":"topics","name":"t","config":{"retention.ms":"1"}}],`+
		`"undecodable":[{"path":"/brokers/topics/t/partitions/0/state","error":"garbage state"},{"path":"/config/topics/u","error":"garbage config"}]}`)
	got := unplanned(from, to)
	want := []unplannedDiff{
		{Kind: "undecodable", Subject: "/brokers/topics/t/partitions/0/state", From: "", To: "garbage state"},
		{Kind: "undecodable", Subject: "/config/topics/u", From: "none", To: "garbage config"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("unplanned %+v, want %+v", got, want)
	}
	if got := describeSide(got[1].From); got != "absent" {
		t.Fatalf("a znode the first image lacks is described as %q", got)
	}
	if got := unplanned(to, from); !reflect.DeepEqual(got, []unplannedDiff{
		{Kind: "undecodable", Subject: "/brokers/topics/t/partitions/0/state", From: "garbage state", To: ""},
		{Kind: "undecodable", Subject: "/config/topics/u", From: "garbage config", To: "none"},
	}) {
		t.Fatalf("the other way: %+v", got)
	}
}
