package zkmetrics_test

import (
	"context"
	"log"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/kraftmigration/zkwriter/migrationzk"
	"github.com/kraftmigration/zkwriter/migrationzk/zkconn"
	"github.com/kraftmigration/zkwriter/migrationzk/zkmetrics"
)

// A controller registers a Collector for its Writer and reports the offset
// of the last record it committed; zk_write_behind_lag then shows how far
// ZooKeeper is behind, and keeps growing while checkpoints are stuck.
func ExampleNewCollector() {
	ctx := context.Background()
	conn, err := zkconn.Connect(ctx, []string{"127.0.0.1:2181"}, 10*time.Second)
	if err != nil {
		log.Fatal(err)
	}
	defer conn.Close()
	w := migrationzk.New(conn, migrationzk.WithRoot("/kafka"))

	// The offset of the last record committed to the KRaft metadata log,
	// updated by the controller as it commits.
	var committed atomic.Int64
	prometheus.MustRegister(zkmetrics.NewCollector(w, committed.Load,
		zkmetrics.WithConstLabels(prometheus.Labels{"cluster": "orders"})))
	http.Handle("/metrics", promhttp.Handler())
	go func() { log.Fatal(http.ListenAndServe("127.0.0.1:9400", nil)) }()

	s, err := w.GetOrCreate(ctx, migrationzk.InitialState())
	if err != nil {
		log.Fatal(err)
	}
	committed.Store(1234)
	s.KRaftMetadataOffset = 1234
	if _, err := w.Update(ctx, s); err != nil {
		log.Print(err) // the lag grows until a checkpoint lands
	}
}
