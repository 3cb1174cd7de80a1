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
// It gets its ZooKeeper from zktest.NewServer: the servers in ZK_SERVERS,
// under a fresh root, or a standalone server started from a local
// installation (as make test does). It removes the znodes it wrote before
// it exits.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/go-zookeeper/zk"

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
	srv, err := zktest.NewServer()
	if err != nil {
		return err
	}
	defer closeServer(srv)
	admin, err := zkconn.Open(ctx, srv.Servers, zktest.SessionTimeout)
	if err != nil {
		return err
	}
	defer admin.Close()
	root := srv.Path(fmt.Sprintf("/lostack-%d", time.Now().UnixNano()))
	defer removeTree(admin, root)

	fmt.Printf("ZooKeeper at %s; the reply to checkpoint %d of %d is dropped after the server commits it.\n\n", strings.Join(srv.Servers, ","), lostAt, checkpoints)

	kafka, err := kafkaStyle(ctx, srv.Servers, admin, root+"/kafka")
	if err != nil {
		return err
	}
	fmt.Println()
	ours, err := zkwriter(ctx, srv.Servers, admin, root+"/zkwriter")
	if err != nil {
		return err
	}
	fmt.Printf("\nSummary: ZooKeeper holds %d of %d checkpoints from the Kafka-style writer (%s) and %d of %d from zkwriter (%s).\n",
		kafka.landed, checkpoints, kafka.verdict(), ours.landed, checkpoints, ours.verdict())
	return nil
}

// closeServer stops the server, or on ZK_SERVERS removes its root.
func closeServer(srv *zktest.Server) {
	if err := srv.Close(); err != nil {
		fmt.Fprintln(os.Stderr, "lostack: close the server:", err)
	}
}

// removeTree deletes root and everything the demo wrote below it.
func removeTree(admin *zk.Conn, root string) {
	if err := zktest.DeleteAll(admin, root); err != nil {
		fmt.Fprintf(os.Stderr, "lostack: remove %s: %v\n", root, err)
	}
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

// connect creates root and returns a client dialling through a
// FaultDialer.
func connect(ctx context.Context, servers []string, admin *zk.Conn, root string) (*zk.Conn, *zktest.FaultDialer, error) {
	path := ""
	for _, part := range strings.Split(strings.TrimPrefix(root, "/"), "/") {
		path += "/" + part
		if _, err := admin.Create(path, nil, 0, zk.WorldACL(zk.PermAll)); err != nil && !errors.Is(err, zk.ErrNodeExists) {
			return nil, nil, err
		}
	}
	faults := zktest.NewFaultDialer(nil) // no test to fail: see unfired
	conn, err := zkconn.Open(ctx, servers, zktest.SessionTimeout, zkconn.WithZKOptions(faults.Option()))
	if err != nil {
		return nil, nil, err
	}
	return conn, faults, nil
}

// unfired reports the faults that never fired: the demo would show nothing.
func unfired(faults *zktest.FaultDialer) error {
	if f := faults.Unfired(); len(f) > 0 {
		return fmt.Errorf("faults never fired: %v", f)
	}
	return nil
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
func kafkaStyle(ctx context.Context, servers []string, admin *zk.Conn, root string) (result, error) {
	var r result
	conn, faults, err := connect(ctx, servers, admin, root)
	if err != nil {
		return r, err
	}
	defer conn.Close()
	path := root + znode.MigrationPath
	if _, err := conn.Create(path, checkpoint(100), 0, zk.WorldACL(zk.PermAll)); err != nil {
		return r, err
	}
	fmt.Println("Kafka-style writer (resend, no reread, keep the cached version):")
	cached := int32(0)
	for i := 1; i <= checkpoints; i++ {
		offset := int64(100 + i)
		if i == lostAt {
			faults.Arm(zktest.Fault{Action: zktest.DropReply, Op: zktest.OpSetData, Path: znode.MigrationPath})
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
	return r, errors.Join(err, unfired(faults))
}

// zkwriter writes the same checkpoints with migrationzk.Writer.
func zkwriter(ctx context.Context, servers []string, admin *zk.Conn, root string) (result, error) {
	var r result
	conn, faults, err := connect(ctx, servers, admin, root)
	if err != nil {
		return r, err
	}
	defer conn.Close()
	path := root + znode.MigrationPath
	w, err := migrationzk.New(conn, migrationzk.WithRoot(root))
	if err != nil {
		return r, err
	}
	s := migrationzk.InitialState()
	s.KRaftControllerID, s.KRaftControllerEpoch, s.KRaftMetadataEpoch, s.KRaftMetadataOffset = 3000, 5, 5, 100
	s, _, err = w.GetOrCreate(ctx, s)
	if err != nil {
		return r, err
	}
	fmt.Println("zkwriter (resend, reread after a rejection, return the version ZooKeeper holds):")
	for i := 1; i <= checkpoints; i++ {
		s.KRaftMetadataOffset = int64(100 + i)
		if i == lostAt {
			faults.Arm(zktest.Fault{Action: zktest.DropReply, Op: zktest.OpSetData, Path: znode.MigrationPath})
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
	return r, errors.Join(err, unfired(faults))
}
