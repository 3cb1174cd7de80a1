// Command lostack shows what a lost acknowledgement does to a migration's
// checkpoint writes, with a writer that behaves like Kafka 3.9 next to
// zkwriter's.
//
// Both write a series of checkpoints to their own /migration znode against a
// real ZooKeeper. The reply to the third write of each is dropped after the
// server committed it. The Kafka-style writer resends the request, gets
// BadVersion, takes it for another controller and keeps its cached version:
// every later write is rejected. zkwriter rereads /migration, sees that its
// own write landed, and carries on with the version ZooKeeper holds.
//
// It uses the servers in ZK_SERVERS, or starts a standalone ZooKeeper from a
// local installation (as make test does).
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/kraftmigration/zkwriter/internal/zkserver"
	"github.com/kraftmigration/zkwriter/migrationzk"
	"github.com/kraftmigration/zkwriter/migrationzk/zkconn"
	"github.com/kraftmigration/zkwriter/migrationzk/zktest"
	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

const (
	checkpoints = 8
	lostAt      = 3 // the write whose acknowledgement is lost
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "lostack:", err)
		os.Exit(1)
	}
}

func run() error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	servers, stop, err := zookeeper(ctx)
	if err != nil {
		return err
	}
	defer stop()
	root := fmt.Sprintf("/lostack-%d", time.Now().UnixNano())

	fmt.Printf("ZooKeeper at %s; the reply to checkpoint %d of %d is dropped after the server commits it.\n\n", strings.Join(servers, ","), lostAt, checkpoints)

	kafka, err := kafkaStyle(ctx, servers, root+"/kafka")
	if err != nil {
		return err
	}
	fmt.Println()
	ours, err := zkwriter(ctx, servers, root+"/zkwriter")
	if err != nil {
		return err
	}
	fmt.Printf("\nSummary: ZooKeeper holds %d of %d checkpoints from the Kafka-style writer (%s) and %d of %d from zkwriter (%s).\n",
		kafka.landed, checkpoints, kafka.verdict(), ours.landed, checkpoints, ours.verdict())
	return nil
}

// result is how a writer fared: how many checkpoints ZooKeeper holds (read
// back from /migration), and whether its last write was rejected.
type result struct {
	landed int
	stuck  bool
}

func (r result) verdict() string {
	if r.stuck {
		return "stuck"
	}
	return "never stuck"
}

// landedCheckpoints reads how many checkpoints reached /migration from the
// offset it holds.
func landedCheckpoints(admin *zk.Conn, path string) (int, error) {
	data, _, err := admin.Get(path)
	if err != nil {
		return 0, err
	}
	m, err := znode.DecodeMigration(data)
	if err != nil {
		return 0, err
	}
	return int(m.KRaftMetadataOffset - 100), nil
}

// connect returns a client dialling through a FaultDialer, and a second
// one to look at ZooKeeper with.
func connect(ctx context.Context, servers []string, root string) (*zk.Conn, *zk.Conn, *zktest.FaultDialer, error) {
	faults := zktest.NewFaultDialer()
	conn, err := zkconn.Connect(ctx, servers, 10*time.Second, faults.Option())
	if err != nil {
		return nil, nil, nil, err
	}
	admin, err := zkconn.Connect(ctx, servers, 10*time.Second)
	if err != nil {
		conn.Close()
		return nil, nil, nil, err
	}
	path := ""
	for _, part := range strings.Split(strings.TrimPrefix(root, "/"), "/") {
		path += "/" + part
		if _, err := admin.Create(path, nil, 0, zk.WorldACL(zk.PermAll)); err != nil && !errors.Is(err, zk.ErrNodeExists) {
			return nil, nil, nil, err
		}
	}
	return conn, admin, faults, nil
}

func checkpoint(offset int64) []byte {
	return znode.Migration{KRaftMetadataOffset: offset, KRaftControllerID: 3000, KRaftMetadataEpoch: 5, KRaftControllerEpoch: 5}.Encode()
}

// held describes what ZooKeeper holds in /migration.
func held(admin *zk.Conn, path string) string {
	data, st, err := admin.Get(path)
	if err != nil {
		return err.Error()
	}
	m, err := znode.DecodeMigration(data)
	if err != nil {
		return err.Error()
	}
	return fmt.Sprintf("version %d, offset %d", st.Version, m.KRaftMetadataOffset)
}

// kafkaStyle writes checkpoints the way Kafka 3.9 does: a conditional
// SetData at the cached version, resent unchanged after a lost connection,
// and a BadVersion taken for another controller without rereading.
func kafkaStyle(ctx context.Context, servers []string, root string) (result, error) {
	var r result
	conn, admin, faults, err := connect(ctx, servers, root)
	if err != nil {
		return r, err
	}
	defer conn.Close()
	defer admin.Close()
	path := root + znode.MigrationPath
	if _, err := conn.Create(path, checkpoint(100), 0, zk.WorldACL(zk.PermAll)); err != nil {
		return r, err
	}
	fmt.Println("Kafka-style writer (resend, no reread, keep the cached version):")
	cached := int32(0)
	for i := 1; i <= checkpoints; i++ {
		offset := int64(100 + i)
		if i == lostAt {
			faults.Arm(zktest.Fault{Action: zktest.DropReply, Op: zktest.OpSetData, Path: path})
		}
		st, err := conn.Set(path, checkpoint(offset), cached)
		for errors.Is(err, zk.ErrConnectionClosed) {
			fmt.Printf("  checkpoint %d (offset %d): connection lost before the reply; resending\n", i, offset)
			if err := zkconn.WaitForSession(ctx, conn); err != nil {
				return r, err
			}
			st, err = conn.Set(path, checkpoint(offset), cached)
		}
		switch {
		case err == nil:
			cached = st.Version
			r.stuck = false
			fmt.Printf("  checkpoint %d (offset %d): ok, cached version %d\n", i, offset, cached)
		case errors.Is(err, zk.ErrBadVersion):
			r.stuck = true
			fmt.Printf("  checkpoint %d (offset %d): BadVersion: \"another KRaft controller is writing\"; cached version stays %d, ZooKeeper holds %s\n",
				i, offset, cached, held(admin, path))
		default:
			return r, err
		}
	}
	fmt.Printf("  ZooKeeper holds %s\n", held(admin, path))
	r.landed, err = landedCheckpoints(admin, path)
	return r, err
}

// zkwriter writes the same checkpoints with migrationzk.Writer.
func zkwriter(ctx context.Context, servers []string, root string) (result, error) {
	var r result
	conn, admin, faults, err := connect(ctx, servers, root)
	if err != nil {
		return r, err
	}
	defer conn.Close()
	defer admin.Close()
	path := root + znode.MigrationPath
	w := migrationzk.New(conn, migrationzk.WithRoot(root))
	s := migrationzk.InitialState()
	s.KRaftControllerID, s.KRaftControllerEpoch, s.KRaftMetadataEpoch, s.KRaftMetadataOffset = 3000, 5, 5, 100
	s, err = w.GetOrCreate(ctx, s)
	if err != nil {
		return r, err
	}
	fmt.Println("zkwriter (resend, reread after a rejection, return the version ZooKeeper holds):")
	for i := 1; i <= checkpoints; i++ {
		s.KRaftMetadataOffset = int64(100 + i)
		if i == lostAt {
			faults.Arm(zktest.Fault{Action: zktest.DropReply, Op: zktest.OpSetData, Path: path})
		}
		next, err := w.Update(ctx, s)
		r.stuck = err != nil
		if err != nil {
			fmt.Printf("  checkpoint %d (offset %d): %v\n", i, s.KRaftMetadataOffset, err)
			continue
		}
		if next.Recovered {
			fmt.Printf("  checkpoint %d (offset %d): reply lost; the resend got BadVersion; reread shows our write at version %d: recovered\n",
				i, s.KRaftMetadataOffset, next.MigrationZkVersion)
		} else {
			fmt.Printf("  checkpoint %d (offset %d): ok, version %d\n", i, s.KRaftMetadataOffset, next.MigrationZkVersion)
		}
		s = next
	}
	st := w.Stats()
	fmt.Printf("  ZooKeeper holds %s; confirmed offset %d; %d write requests, %d lost acknowledgement recovered\n",
		held(admin, path), w.ConfirmedOffset(), st.Attempts, st.LostAcks)
	r.landed, err = landedCheckpoints(admin, path)
	return r, err
}

// zookeeper returns the servers to use and a function that stops any
// server it started.
func zookeeper(ctx context.Context) ([]string, func(), error) {
	if env := os.Getenv(zktest.EnvServers); env != "" {
		return strings.Split(env, ","), func() {}, nil
	}
	p, stop, err := zkserver.StartStandalone(ctx)
	if err != nil {
		return nil, nil, fmt.Errorf("%w; or set ZK_SERVERS", err)
	}
	return []string{p.Addr()}, stop, nil
}
