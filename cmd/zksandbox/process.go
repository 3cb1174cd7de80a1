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

	"github.com/kraftmigration/zkwriter/internal/zkserver"
	"github.com/kraftmigration/zkwriter/migrationzk/zkconn"
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
	dir            string
	stdout, stderr io.Writer
}

// path is the path of a file of the sandbox directory.
func (sb sandbox) path(name string) string { return filepath.Join(sb.dir, name) }

// start runs serve in the background, waits until it has seeded the
// tree, and prints the --zk to use. A sandbox already running is reused.
func (sb sandbox) start(ctx context.Context) error {
	if addr, err := sb.addr(); err == nil {
		sb.printStarted(addr, "already running")
		return nil
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
			sb.printStarted(addr, "started")
			return nil
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
	cmd := exec.Command(exe, serveCommand, "-dir", sb.dir)
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

// printStarted tells where the sandbox is and how to use and stop it.
func (sb sandbox) printStarted(addr, how string) {
	fmt.Fprintf(sb.stdout, "ZooKeeper sandbox %s: a Kafka cluster in mid-migration under %s (KRaft controller %d in dual-write, partitions at rollback risk).\n",
		how, kafkaRoot, kraftControllerID)
	fmt.Fprintf(sb.stdout, "Use --zk %s, for example:\n\n    export ZK=%s\n    migrationzk --zk \"$ZK\" status\n\n", addr, addr)
	fmt.Fprintf(sb.stdout, "Stop it with make sandbox-stop (zksandbox stop -dir %s).\n", sb.dir)
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
// server and removed the directory.
func (sb sandbox) stop(ctx context.Context) error {
	pid, err := sb.pid()
	if errors.Is(err, errNotRunning) {
		fmt.Fprintf(sb.stdout, "No sandbox is running in %s.\n", sb.dir)
		return nil
	}
	if err := syscall.Kill(pid, syscall.SIGTERM); err != nil {
		return err
	}
	for {
		if _, err := os.Stat(sb.path(pidFile)); errors.Is(err, os.ErrNotExist) {
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

// serve starts the server, seeds it, announces the --zk, and holds the
// session (and the brokers' registrations) until a signal stops it; then
// it stops the server and removes the directory (all but the log when it
// fails).
func (sb sandbox) serve() (err error) {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	defer func() {
		if err == nil { // else the log stays, to say why
			err = os.RemoveAll(sb.dir)
		}
	}()
	p, err := startServer(ctx, sb.path(zkDir))
	if err != nil {
		return err
	}
	defer p.Stop(10 * time.Second)
	seedCtx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	conn, err := zkconn.Open(seedCtx, []string{p.Addr()}, 10*time.Second)
	if err != nil {
		return err
	}
	defer conn.Close()
	if err := seed(seedCtx, conn); err != nil {
		return fmt.Errorf("seed: %w", err)
	}
	addr := p.Addr() + kafkaRoot
	if err := writeAtomically(sb.path(addrFile), []byte(addr+"\n")); err != nil {
		return err
	}
	fmt.Printf("ready: --zk %s\n", addr)
	for ctx.Err() == nil && p.Running() {
		select {
		case <-ctx.Done():
		case <-time.After(time.Second):
		}
	}
	if ctx.Err() == nil {
		return fmt.Errorf("the server stopped:\n%s", p.OutputTail(20))
	}
	return nil
}

// startServer starts a standalone server in dir on a free port and waits
// until it serves.
func startServer(ctx context.Context, dir string) (*zkserver.Process, error) {
	install, err := zkserver.FindInstall()
	if err != nil {
		return nil, err
	}
	ports, err := zkserver.FreePorts(1)
	if err != nil {
		return nil, err
	}
	p, err := zkserver.Start(install, zkserver.Config{Dir: dir, Self: zkserver.Member{ID: 1, ClientPort: ports[0]}})
	if err != nil {
		return nil, err
	}
	ready, cancel := context.WithTimeout(ctx, 90*time.Second)
	defer cancel()
	if err := p.WaitReady(ready); err != nil {
		p.Stop(10 * time.Second)
		return nil, fmt.Errorf("the server did not start: %w\n%s", err, p.OutputTail(20))
	}
	return p, nil
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
