package migrationzk_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/kraftmigration/zkwriter/migrationzk/zktest"
)

// Fault: the request of a read dropped, and the caller's context ended at
// that moment. Read and Children return the context's error, never what
// the abandoned request may still set once go-zookeeper fails it (which,
// under the race detector, would be a data race), and the Writer reads
// normally after.
func TestReadAbandonedByContext(t *testing.T) {
	c := newCluster(t)
	w := c.writer()
	for _, tc := range []struct {
		name string
		op   zktest.Op
		read func(ctx context.Context) error
	}{
		{"Children", zktest.OpChildren, func(ctx context.Context) error { _, err := w.Children(ctx, "/brokers/topics"); return err }},
		{"Read", zktest.OpGetData, func(ctx context.Context) error { _, err := w.Read(ctx, "/controller_epoch"); return err }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			c.faults.Arm(zktest.Fault{Action: zktest.DropRequest, Op: tc.op, Then: cancel})
			if err := tc.read(ctx); !errors.Is(err, context.Canceled) {
				t.Fatalf("%s with its request dropped and its context cancelled: %v", tc.name, err)
			}
			again, stop := context.WithTimeout(context.Background(), 20*time.Second)
			defer stop()
			if err := tc.read(again); err != nil {
				t.Fatalf("%s after: %v", tc.name, err)
			}
		})
	}
}

// Fault: the request of one read of many dropped, and the caller's
// context ended at that moment. Read returns the context's error at once
// and sends no read it had not sent by then: at most the reads already in
// flight, never the rest of the list.
func TestReadOfManyAbandonedByContext(t *testing.T) {
	c := newCluster(t)
	w := c.writer()
	paths := make([]string, 1000)
	for i := range paths {
		paths[i] = fmt.Sprintf("/brokers/topics/t%d", i)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c.faults.ResetCounts()
	c.faults.Arm(zktest.Fault{Action: zktest.DropRequest, Op: zktest.OpGetData, Then: cancel})
	if _, err := w.ReadAfterSync(ctx, paths...); !errors.Is(err, context.Canceled) {
		t.Fatalf("ReadAfterSync with a request dropped and its context cancelled: %v", err)
	}
	time.Sleep(200 * time.Millisecond) // for any read sent late to be counted
	if n := c.faults.Count(zktest.OpGetData); n > 2*64 {
		t.Fatalf("%d of %d reads sent after the context ended with the first", n, len(paths))
	}
}
