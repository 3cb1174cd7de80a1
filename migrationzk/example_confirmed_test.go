package migrationzk_test

import (
	"context"
	"fmt"
	"time"

	"github.com/kraftmigration/zkwriter/migrationzk"
)

// ConfirmedModified is the mtime of the last checkpoint the Writer
// confirmed: the time since is the checkpoint's age, which grows while
// checkpoint writes are stuck (zkmetrics exports it as
// zkwriter_checkpoint_age_seconds).
func ExampleWriter_ConfirmedModified() {
	ctx := context.Background()
	conn := connectExample(ctx)
	defer conn.Close()
	w := newWriter(conn, migrationzk.WithRoot("/kafka"))
	s := leader(ctx, w)
	s.KRaftMetadataOffset = 42
	if _, err := w.Update(ctx, s); err != nil {
		fmt.Println("checkpoint not confirmed:", err)
	}
	if at := w.ConfirmedModified(); !at.IsZero() {
		fmt.Printf("offset %d confirmed %v ago\n", w.ConfirmedOffset(), time.Since(at).Round(time.Millisecond))
	}
}
