package dualwrite_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/kraftmigration/zkwriter/migrationzk"
	"github.com/kraftmigration/zkwriter/migrationzk/dualwrite"
)

// unplannedPlans are Plans that Diff did not make: decoded from a Plan's
// JSON, or built by hand.
func unplannedPlans(t *testing.T) map[string]dualwrite.Plan {
	data, err := json.Marshal(dualwrite.Diff(fullImage(), changedImage()))
	if err != nil {
		t.Fatal(err)
	}
	var decoded dualwrite.Plan
	if err := json.Unmarshal(data, &decoded); err != nil {
		t.Fatal(err)
	}
	planned := dualwrite.Diff(fullImage(), changedImage()).Changes[0]
	return map[string]dualwrite.Plan{
		"decoded from its JSON":      decoded,
		"zero change":                {Changes: []dualwrite.Change{{}}},
		"unknown kind":               {Changes: []dualwrite.Change{{Kind: "rename-topic", Subject: "orders"}}},
		"no subject":                 {Changes: []dualwrite.Change{{Kind: dualwrite.ChangeCreateTopic}}},
		"no partitions":              {Changes: []dualwrite.Change{{Kind: dualwrite.ChangeDeletePartitions, Subject: "orders"}}},
		"replace without ids":        {Changes: []dualwrite.Change{{Kind: dualwrite.ChangeReplaceTopic, Subject: "orders"}}},
		"a planned change, then not": {Changes: []dualwrite.Change{planned, {Kind: dualwrite.ChangeDeleteTopic, Subject: "orders"}}},
	}
}

// Fault: none (pure). AddTo of a Plan whose changes Diff did not make
// adds none of them and returns an error wrapping ErrNotPlanned, which
// the Batch keeps: its Apply fails too. Nothing panics, a nil Batch and
// a Batch not made by a Client included.
func TestPlanAddToUnplanned(t *testing.T) {
	for name, p := range unplannedPlans(t) {
		t.Run(name, func(t *testing.T) {
			b := &dualwrite.Batch{}
			err := p.AddTo(b)
			if !errors.Is(err, dualwrite.ErrNotPlanned) || !errors.Is(err, migrationzk.ErrInvalidArgument) {
				t.Fatalf("AddTo: %v, want ErrNotPlanned", err)
			}
			if _, _, err := b.Apply(context.Background(), migrationzk.State{}); !errors.Is(err, dualwrite.ErrNotPlanned) {
				t.Fatalf("Apply after AddTo failed: %v, want ErrNotPlanned", err)
			}
			_ = p.String()
		})
	}
	if err := dualwrite.Diff(fullImage(), changedImage()).AddTo(nil); !errors.Is(err, migrationzk.ErrInvalidArgument) {
		t.Fatalf("AddTo(nil): %v", err)
	}
	if _, _, err := (&dualwrite.Batch{}).Apply(context.Background(), migrationzk.State{}); !errors.Is(err, migrationzk.ErrInvalidArgument) {
		t.Fatalf("Apply of a Batch not made by a Client: %v", err)
	}
}

// Fault: none. A Batch that AddTo refused a Plan writes nothing, not even
// the checkpoint, though other changes were added to it before.
func TestPlanAddToUnplannedWritesNothing(t *testing.T) {
	c := newCluster(t)
	before := c.tree()
	for name, p := range unplannedPlans(t) {
		b := c.c.Batch().WriteProducerID(9000)
		if err := p.AddTo(b); err == nil {
			t.Fatalf("%s: AddTo succeeded", name)
		}
		c.faults.ResetCounts()
		if _, _, err := b.Apply(testContext(t), at(c.s, 500)); !errors.Is(err, dualwrite.ErrNotPlanned) {
			t.Fatalf("%s: Apply: %v", name, err)
		}
		if n := c.writeRequests(); n != 0 {
			t.Fatalf("%s: %d write requests", name, n)
		}
	}
	c.sameTree("after the refused batches", before, c.tree())
}

// FuzzPlanJSON decodes a Plan from arbitrary JSON and adds it to a Batch:
// it works (no changes) or fails with ErrNotPlanned, and never panics.
func FuzzPlanJSON(f *testing.F) {
	data, err := json.Marshal(dualwrite.Diff(fullImage(), changedImage()))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data)
	f.Add([]byte(`{"changes":[{}]}`))
	f.Add([]byte(`{"changes":[]}`))
	f.Add([]byte(`{"changes":[{"kind":"replace-topic","subject":"a","from_id":"x","partitions":[-1]}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var p dualwrite.Plan
		if json.Unmarshal(data, &p) != nil {
			return
		}
		b := &dualwrite.Batch{}
		err := p.AddTo(b)
		if len(p.Changes) > 0 != errors.Is(err, dualwrite.ErrNotPlanned) {
			t.Fatalf("AddTo of %d changes: %v", len(p.Changes), err)
		}
		_, _ = p.String(), p.Counts()
		if _, _, err := b.Apply(context.Background(), migrationzk.State{}); err == nil {
			t.Fatal("Apply of a Batch without a Client succeeded")
		}
	})
}
