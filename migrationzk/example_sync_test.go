package migrationzk_test

import (
	"context"
	"fmt"
	"log"
	"time"

	"github.com/kraftmigration/zkwriter/migrationzk"
	"github.com/kraftmigration/zkwriter/migrationzk/zkconn"
)

// One sync before several reads: each sees what was committed before the
// sync, and the reads cost no further sync.
func ExampleWriter_Sync() {
	ctx := context.Background()
	conn, err := zkconn.Open(ctx, []string{"127.0.0.1:2181"}, 10*time.Second)
	if err != nil {
		log.Fatal(err)
	}
	defer conn.Close()
	w := newWriter(conn, migrationzk.WithRoot("/kafka"))
	paths := []string{"/brokers/topics/orders", "/brokers/topics/orders/partitions/0/state"}
	if err := w.Sync(ctx, paths...); err != nil {
		log.Fatal(err)
	}
	zs, err := w.ReadAfterSync(ctx, paths...)
	if err != nil {
		log.Fatal(err)
	}
	ls, err := w.ChildrenAfterSync(ctx, "/brokers/topics/orders/partitions")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(zs[0].Exists, len(ls[0].Names))
}
