package zkconn_test

import (
	"context"
	"log"
	"log/slog"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/kraftmigration/zkwriter/migrationzk/zkconn"
)

// Connect returns a client that holds a session and reconnects at once
// after a lost connection.
func ExampleConnect() {
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	conn, err := zkconn.Connect(ctx, []string{"zk1:2181", "zk2:2181", "zk3:2181"}, 10*time.Second,
		zk.WithLogger(zkconn.SlogLogger(slog.Default())))
	if err != nil {
		log.Fatal(err)
	}
	defer conn.Close()
}

// A HostProvider can be tuned and passed to go-zookeeper directly.
func ExampleHostProvider() {
	hp := &zkconn.HostProvider{InitialBackoff: 5 * time.Millisecond, MaxBackoff: 250 * time.Millisecond, GiveUpAfter: 30 * time.Second}
	conn, _, err := zk.Connect([]string{"127.0.0.1:2181"}, 10*time.Second, zk.WithHostProvider(hp))
	if err != nil {
		log.Fatal(err)
	}
	defer conn.Close()
	if err := zkconn.WaitForSession(context.Background(), conn); err != nil {
		log.Fatal(err)
	}
}
