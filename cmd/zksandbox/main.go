//go:build unix

// Command zksandbox runs a throwaway ZooKeeper holding a small Kafka
// cluster in mid-migration, to try migrationzk on.
//
//	zksandbox start   seed it and print the --zk to use and what the cluster holds
//	zksandbox delta   mirror one more KRaft delta into it, as the next KRaft leader
//	zksandbox stop    stop it and remove everything it wrote
//
// Without ZK_SERVERS the server is a standalone ZooKeeper started from the
// local installation (ZOOKEEPER_HOME, else Debian's zookeeper package)
// with its own zoo.cfg in the sandbox directory (-dir, default
// $TMPDIR/zkwriter-sandbox), and the cluster is under the chroot /kafka.
// With ZK_SERVERS (servers alone, host:port,...) no local installation is
// needed: the cluster is seeded under /kafka below a chroot the sandbox
// creates there, /zkwriter-sandbox-<random> (-chroot names another), and
// never into one that exists; stop deletes that chroot with everything
// below it. The cluster holds what a cluster leaves while a KRaft
// controller mirrors its metadata in dual-write: brokers, topics with
// their partitions, topic and broker configs, a client quota, ACLs,
// /migration naming KRaft controller 3000 and /controller held by it, and
// partition states stamped with the KRaft epoch, above /controller_epoch,
// which a rollback to ZooKeeper mode would leave offline (migrationzk
// rollback-check). Beside it, in the sandbox directory's kraft, is the
// KRaft controller's own metadata (meta.properties and a metadata log
// written by internal/kraftlog's writer) that ZooKeeper mirrors, for
// migrationzk kraft status and kraft diff. start and delta print what the
// cluster holds when they are done, read from ZooKeeper, so that a second
// start, or a delta ZooKeeper holds already, says what is there.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"
)

// The exit codes.
const (
	exitOK    = 0
	exitError = 1
	exitUsage = 2
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run runs one command and returns its exit code.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		usage(stderr)
		return exitUsage
	}
	fs := flag.NewFlagSet("zksandbox "+args[0], flag.ContinueOnError)
	fs.SetOutput(stderr)
	dir := fs.String("dir", filepath.Join(os.TempDir(), "zkwriter-sandbox"), "the sandbox `directory`: the server's configuration, data and log")
	chroot := fs.String("chroot", "", "with ZK_SERVERS, the `chroot` to create and seed under (default "+chrootPrefix+"<random>); one that exists is refused")
	if err := fs.Parse(args[1:]); err != nil {
		return exitUsage
	}
	if fs.NArg() != 0 {
		fmt.Fprintf(stderr, "zksandbox %s: unexpected arguments %q\n", args[0], fs.Args())
		return exitUsage
	}
	sb := sandbox{dir: *dir, chroot: *chroot, stdout: stdout, stderr: stderr}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	var err error
	switch args[0] {
	case "start":
		err = sb.start(ctx)
	case "stop":
		err = sb.stop(ctx)
	case "delta":
		err = sb.delta(ctx)
	case serveCommand:
		err = sb.serve()
	default:
		usage(stderr)
		return exitUsage
	}
	if err != nil {
		fmt.Fprintf(stderr, "zksandbox %s: %v\n", args[0], err)
		return exitError
	}
	return exitOK
}

// usage prints the commands.
func usage(w io.Writer) {
	fmt.Fprint(w, `usage: zksandbox start|delta|stop [-dir DIR] [-chroot CHROOT]
  start   seed a Kafka cluster in mid-migration, on a local ZooKeeper started in the background, or under a
          fresh chroot of the servers ZK_SERVERS names; print the --zk to use and what the cluster holds
  delta   mirror one more KRaft delta into it, as the next KRaft leader (a leader moves, a config and an ACL
          change), unless ZooKeeper holds it already; print what changed and what the cluster holds
  stop    stop it: stop the server, or delete the chroot; remove its directory
`)
}

// errNotRunning reports that no sandbox runs in the directory.
var errNotRunning = errors.New("no sandbox is running")
