package zkmetrics_test

import (
	"context"
	"errors"
	"log"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/kraftmigration/zkwriter/migrationzk"
	"github.com/kraftmigration/zkwriter/migrationzk/zkconn"
	"github.com/kraftmigration/zkwriter/migrationzk/zkmetrics"
)

// newWriter makes the Writer of an example.
func newWriter(conn *zk.Conn) *migrationzk.Writer {
	w, err := migrationzk.New(conn, migrationzk.WithRoot("/kafka"))
	if err != nil {
		log.Fatal(err)
	}
	return w
}

// A controller registers a Collector for its Writer and reports the offset
// of the last record it committed; zk_write_behind_lag then shows how far
// ZooKeeper is behind, and keeps growing while checkpoints are stuck.
func ExampleNewCollector() {
	ctx := context.Background()
	conn, err := zkconn.Open(ctx, []string{"127.0.0.1:2181"}, 10*time.Second)
	if err != nil {
		log.Fatal(err)
	}
	defer conn.Close()
	w, err := migrationzk.New(conn, migrationzk.WithRoot("/kafka"))
	if err != nil {
		log.Fatal(err)
	}

	// The offset of the last record committed to the KRaft metadata log,
	// updated by the controller as it commits.
	var committed atomic.Int64
	c, err := zkmetrics.NewCollector(w, committed.Load,
		zkmetrics.WithConstLabels(prometheus.Labels{"cluster": "orders"}))
	if err != nil {
		log.Fatal(err) // a nil Writer or option
	}
	prometheus.MustRegister(c)
	http.Handle("/metrics", promhttp.Handler())
	go func() { log.Fatal(http.ListenAndServe("127.0.0.1:9400", nil)) }()

	s := migrationzk.InitialState()
	s.KRaftControllerID, s.KRaftControllerEpoch = 3000, 7
	s, err = w.ClaimLeadership(ctx, s)
	if err == nil {
		s, _, err = w.GetOrCreate(ctx, s)
	}
	if err != nil {
		log.Fatal(err)
	}
	committed.Store(1234)
	s.KRaftMetadataOffset = 1234
	if _, err := w.Update(ctx, s); err != nil {
		log.Print(err) // the lag grows until a checkpoint lands
	}
}

// A controller makes a new Writer for each ZooKeeper session and each
// leadership tenure and hands it to the Collector, whose counters carry on
// from the replaced Writer's counts instead of starting again from zero.
func ExampleCollector_SetWriter() {
	ctx := context.Background()
	connect := func() (*zk.Conn, *migrationzk.Writer) {
		conn, err := zkconn.Open(ctx, []string{"127.0.0.1:2181"}, 10*time.Second)
		if err != nil {
			log.Fatal(err)
		}
		return conn, newWriter(conn)
	}
	conn, w := connect()
	c, err := zkmetrics.NewCollector(w, nil)
	if err != nil {
		log.Fatal(err)
	}
	prometheus.MustRegister(c)

	// A leadership tenure with KRaft epoch 7.
	s := migrationzk.InitialState()
	s.KRaftControllerID, s.KRaftControllerEpoch = 3000, 7
	s, err = w.ClaimLeadership(ctx, s)
	if err == nil {
		s, _, err = w.GetOrCreate(ctx, s)
	}
	if err != nil {
		log.Fatal(err)
	}
	s.KRaftMetadataOffset = 1234
	if _, err = w.Update(ctx, s); errors.Is(err, migrationzk.ErrStaleSession) {
		// Only a new client mends a stale session: close this one, connect
		// again and retry the same checkpoint with a new Writer.
		conn.Close()
		conn, w = connect()
		c.SetWriter(w)
		_, err = w.Update(ctx, s)
	}
	if err != nil {
		log.Print(err)
	}

	// Should the controller lose leadership and win it again, the new
	// tenure, with a new KRaft epoch, gets a new Writer too.
	w = newWriter(conn)
	c.SetWriter(w)
	s.KRaftControllerEpoch = 8
	if _, err := w.ClaimLeadership(ctx, s); err != nil {
		log.Print(err)
	}
	conn.Close()
}
