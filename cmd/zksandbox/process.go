//go:build unix

package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/kraftmigration/zkwriter/internal/testkit/zkserver"
)

// serveCommand is the command start runs in the background: it runs the
// server and holds the sandbox until it is stopped.
const serveCommand = "serve"

// The files of a sandbox directory.
const (
	pidFile  = "serve.pid" // the background process
	addrFile = "zk.addr"   // the --zk to use, written once the tree is seeded
	logFile  = "sandbox.log"
	zkDir    = "zk" // the server's configuration, data and output
)

// sandbox is one sandbox directory and where its commands report.
type sandbox struct {
	dir string
	// chroot is the chroot of ZK_SERVERS to seed under; "" for a fresh
	// one.
	chroot         string
	stdout, stderr io.Writer
}

// path is the path of a file of the sandbox directory.
func (sb sandbox) path(name string) string { return filepath.Join(sb.dir, name) }

// start runs serve in the background, waits until it has seeded the
// tree, and prints the --zk to use and what the cluster holds. A sandbox
// already running is reused, and what it holds now is printed.
func (sb sandbox) start(ctx context.Context) error {
	if addr, err := sb.addr(); err == nil {
		return sb.printRunning(ctx, addr, "already running")
	}
	if _, err := sharedServers(); err != nil {
		return err
	}
	if err := os.MkdirAll(sb.dir, 0o755); err != nil {
		return err
	}
	for _, stale := range []string{pidFile, addrFile} {
		os.Remove(sb.path(stale))
	}
	cmd, err := sb.spawnServe()
	if err != nil {
		return err
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	for {
		if addr, err := sb.addr(); err == nil {
			return sb.printRunning(ctx, addr, "started")
		}
		select {
		case err := <-exited:
			return fmt.Errorf("the sandbox stopped before it was ready (%v); its log:\n%s", err, sb.logTail())
		case <-ctx.Done():
			syscall.Kill(cmd.Process.Pid, syscall.SIGTERM)
			return fmt.Errorf("the sandbox was not ready in time; its log:\n%s", sb.logTail())
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// spawnServe starts this program's serve command in a session of its own,
// its output in the log, and records its pid.
func (sb sandbox) spawnServe() (*exec.Cmd, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	log, err := os.Create(sb.path(logFile))
	if err != nil {
		return nil, err
	}
	defer log.Close()
	cmd := exec.Command(exe, serveCommand, "-dir", sb.dir, "-chroot", sb.chroot)
	cmd.Stdout, cmd.Stderr = log, log
	cmd.SysProcAttr = detached()
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	if err := os.WriteFile(sb.path(pidFile), []byte(strconv.Itoa(cmd.Process.Pid)+"\n"), 0o644); err != nil {
		syscall.Kill(cmd.Process.Pid, syscall.SIGTERM)
		return nil, err
	}
	return cmd, nil
}

// printRunning says where the sandbox is, what its cluster holds now, as
// read from it, and how to use and stop it.
func (sb sandbox) printRunning(ctx context.Context, addr, how string) error {
	conn, root, err := openZK(ctx, addr)
	if err != nil {
		return err
	}
	defer conn.Close()
	w, img, err := readCluster(ctx, conn, root)
	if err != nil {
		return err
	}
	servers, _, _ := strings.Cut(addr, "/")
	fmt.Fprintf(sb.stdout, "ZooKeeper sandbox %s: a Kafka cluster in mid-migration under %s on %s, which holds now:\n", how, root, servers)
	if err := describe(ctx, w, img, sb.stdout); err != nil {
		return err
	}
	if chroot := strings.TrimSuffix(root, kafkaRoot); chroot != "" {
		fmt.Fprintf(sb.stdout, "It lives under the chroot %s of ZK_SERVERS, which make sandbox-stop deletes.\n", chroot)
	}
	fmt.Fprintf(sb.stdout, "\nUse --zk %s, for example:\n\n    export ZK=%s\n    migrationzk --zk \"$ZK\" status\n"+
		"    migrationzk --zk \"$ZK\" rollback-check    # the partitions a rollback would leave offline\n\n", addr, addr)
	fmt.Fprintf(sb.stdout, "The KRaft controller's metadata, which ZooKeeper mirrors, is in %s:\n\n    export KRAFT=%s\n"+
		"    migrationzk --zk \"$ZK\" kraft diff \"$KRAFT\"    # does ZooKeeper hold what KRaft holds?\n\n", sb.path(metadataDir), sb.path(metadataDir))
	fmt.Fprintf(sb.stdout, "Stop it with make sandbox-stop (zksandbox stop -dir %s).\n", sb.dir)
	return nil
}

// addr returns the --zk of the sandbox running in the directory.
func (sb sandbox) addr() (string, error) {
	if _, err := sb.pid(); err != nil {
		return "", err
	}
	data, err := os.ReadFile(sb.path(addrFile))
	if err != nil {
		return "", errNotRunning
	}
	return strings.TrimSpace(string(data)), nil
}

// pid returns the process id of the sandbox's serve process, if it runs.
func (sb sandbox) pid() (int, error) {
	data, err := os.ReadFile(sb.path(pidFile))
	if err != nil {
		return 0, errNotRunning
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil || pid <= 0 || syscall.Kill(pid, 0) != nil {
		return 0, errNotRunning
	}
	return pid, nil
}

// logTail is the end of the sandbox's log.
func (sb sandbox) logTail() string {
	data, _ := os.ReadFile(sb.path(logFile))
	if len(data) > 4000 {
		data = data[len(data)-4000:]
	}
	return string(data)
}

// stop signals the serve process and waits until it has stopped the
// server, or deleted its chroot of ZK_SERVERS, and removed the directory:
// the whole directory, not only its pid file, which the removal may take
// first. A chroot whose serve process is gone is deleted here.
func (sb sandbox) stop(ctx context.Context) error {
	shared, chroot, recorded := sb.recordedChroot()
	pid, err := sb.pid()
	if errors.Is(err, errNotRunning) {
		if !recorded {
			fmt.Fprintf(sb.stdout, "No sandbox is running in %s.\n", sb.dir)
			return nil
		}
		if err := deleteChroot(ctx, shared, chroot); err != nil {
			return err
		}
		fmt.Fprintf(sb.stdout, "No sandbox process was running; its chroot %s on %s is deleted.\n", chroot, strings.Join(shared, ","))
		return os.RemoveAll(sb.dir)
	}
	if err := syscall.Kill(pid, syscall.SIGTERM); err != nil {
		return err
	}
	for {
		if _, err := os.Stat(sb.dir); errors.Is(err, os.ErrNotExist) {
			if recorded {
				fmt.Fprintf(sb.stdout, "Sandbox stopped; its chroot %s on %s is deleted, %s removed.\n", chroot, strings.Join(shared, ","), sb.dir)
				return nil
			}
			fmt.Fprintf(sb.stdout, "Sandbox stopped; %s removed.\n", sb.dir)
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("the sandbox (pid %d) did not stop in time", pid)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// serve runs the sandbox until a signal stops it: on a server of its
// own, or, when ZK_SERVERS names servers, under a fresh chroot of theirs.
// Then it removes the directory (all but the log when it fails).
func (sb sandbox) serve() (err error) {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	defer func() {
		if err == nil { // else the log stays, to say why
			err = os.RemoveAll(sb.dir)
		}
	}()
	shared, err := sharedServers()
	switch {
	case err != nil:
		return err
	case shared != nil:
		return sb.serveShared(ctx, shared)
	}
	return sb.serveLocal(ctx)
}

// serveLocal starts a server from the local installation, seeds it under
// kafkaRoot, and holds it until ctx ends; then it stops the server.
func (sb sandbox) serveLocal(ctx context.Context) error {
	p, ports, err := startServer(ctx, sb.path(zkDir))
	if err != nil {
		return err
	}
	defer ports.Release()
	defer p.Stop(10 * time.Second)
	conn, err := openServers(ctx, []string{p.Addr()})
	if err != nil {
		return err
	}
	defer conn.Close()
	if err := sb.seedAndHold(ctx, conn, []string{p.Addr()}, kafkaRoot, p.Running); err != nil {
		return err
	}
	if ctx.Err() == nil {
		return fmt.Errorf("the server stopped:\n%s", p.OutputTail(20))
	}
	return nil
}

// seedAndHold seeds the cluster under root, announces the --zk, and
// holds the session (and the brokers' registrations) until ctx ends or
// alive says the server is gone.
func (sb sandbox) seedAndHold(ctx context.Context, conn *zk.Conn, servers []string, root string, alive func() bool) error {
	seedCtx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	if err := seed(seedCtx, conn, root, sb.path(metadataDir)); err != nil {
		return fmt.Errorf("seed: %w", err)
	}
	addr := strings.Join(servers, ",") + root
	if err := writeAtomically(sb.path(addrFile), []byte(addr+"\n")); err != nil {
		return err
	}
	fmt.Printf("ready: --zk %s\n", addr)
	for ctx.Err() == nil && alive() {
		select {
		case <-ctx.Done():
		case <-time.After(time.Second):
		}
	}
	return nil
}

// startServer starts a standalone server in dir on a port it reserves and
// waits until it serves. The caller releases the port once the server has
// stopped.
func startServer(ctx context.Context, dir string) (*zkserver.Process, *zkserver.Reservation, error) {
	install, err := zkserver.FindInstall()
	if err != nil {
		return nil, nil, err
	}
	ports, err := zkserver.ReservePorts(1)
	if err != nil {
		return nil, nil, err
	}
	p, err := zkserver.Start(install, zkserver.Config{Dir: dir, Self: zkserver.Member{ID: 1, ClientPort: ports.Ports()[0]}})
	if err != nil {
		ports.Release()
		return nil, nil, err
	}
	ready, cancel := context.WithTimeout(ctx, 90*time.Second)
	defer cancel()
	if err := p.WaitReady(ready); err != nil {
		p.Stop(10 * time.Second)
		ports.Release()
		return nil, nil, fmt.Errorf("the server did not start: %w\n%s", err, p.OutputTail(20))
	}
	return p, ports, nil
}

// writeAtomically writes data to a temporary file and renames it to path.
func writeAtomically(path string, data []byte) error {
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// detached puts the background process in a session of its own, so that
// it outlives the terminal and the make that started it.
func detached() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setsid: true} }
