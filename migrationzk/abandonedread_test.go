package migrationzk_test

import (
	"context"
	"errors"
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
