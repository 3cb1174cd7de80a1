//go:build unix

package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path"
	"strings"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/kraftmigration/zkwriter/internal/connectstring"
	"github.com/kraftmigration/zkwriter/migrationzk/zkconn"
)

// serversEnv names the ensemble to seed under a fresh chroot instead of
// starting a server, as the tests' ZK_SERVERS does.
const serversEnv = "ZK_SERVERS"

// chrootFile records, once it is created, the chroot of ZK_SERVERS the
// sandbox lives under: its servers on the first line, the chroot on the
// second; stop deletes it even when the serve process is gone.
const chrootFile = "chroot"

// chrootPrefix starts the name of every chroot the sandbox makes.
const chrootPrefix = "/zkwriter-sandbox-"

// sharedServers returns the servers ZK_SERVERS names, nil when it is
// unset (the sandbox then starts a server of its own). It names servers
// alone: the sandbox makes its own chroot.
func sharedServers() ([]string, error) {
	env := os.Getenv(serversEnv)
	if env == "" {
		return nil, nil
	}
	cs, err := connectstring.Parse(env)
	if err != nil {
		return nil, fmt.Errorf("%s %q: %w", serversEnv, env, err)
	}
	if cs.Chroot != "" && cs.Chroot != "/" {
		return nil, fmt.Errorf("%s %q names a chroot: give the servers alone; the sandbox makes a chroot of its own", serversEnv, env)
	}
	return cs.Servers, nil
}

// newChroot is the chroot to create: the one asked for, else a fresh
// name under chrootPrefix.
func (sb sandbox) newChroot() (string, error) {
	if sb.chroot == "" {
		var b [4]byte
		if _, err := rand.Read(b[:]); err != nil {
			return "", err
		}
		return chrootPrefix + hex.EncodeToString(b[:]), nil
	}
	if !strings.HasPrefix(sb.chroot, "/") || sb.chroot == "/" || path.Clean(sb.chroot) != sb.chroot {
		return "", fmt.Errorf("-chroot %q: want an absolute znode path below /, such as %sdemo", sb.chroot, chrootPrefix)
	}
	return sb.chroot, nil
}

// serveShared seeds the cluster under a chroot it creates on servers,
// refusing one that exists, holds it until ctx ends, and deletes the
// chroot with everything below it.
func (sb sandbox) serveShared(ctx context.Context, servers []string) (err error) {
	chroot, err := sb.newChroot()
	if err != nil {
		return err
	}
	conn, err := openServers(ctx, servers)
	if err != nil {
		return err
	}
	defer conn.Close()
	_, err = conn.Create(chroot, nil, 0, zk.WorldACL(zk.PermAll))
	switch {
	case errors.Is(err, zk.ErrNodeExists):
		return fmt.Errorf("%s exists on %s: the sandbox seeds only a chroot it creates, never one that holds something; "+
			"leave out -chroot for a fresh one", chroot, strings.Join(servers, ","))
	case err != nil:
		return fmt.Errorf("create the chroot %s: %w", chroot, err)
	}
	defer func() { err = errors.Join(err, deleteTree(conn, chroot), os.Remove(sb.path(chrootFile))) }()
	if err := writeAtomically(sb.path(chrootFile), []byte(strings.Join(servers, ",")+"\n"+chroot+"\n")); err != nil {
		return err
	}
	fmt.Printf("chroot %s created on %s\n", chroot, strings.Join(servers, ","))
	return sb.seedAndHold(ctx, conn, servers, chroot+kafkaRoot, func() bool { return true })
}

// recordedChroot returns the servers and chroot of chrootFile; ok is
// false when there is none.
func (sb sandbox) recordedChroot() (servers []string, chroot string, ok bool) {
	data, err := os.ReadFile(sb.path(chrootFile))
	if err != nil {
		return nil, "", false
	}
	first, second, _ := strings.Cut(strings.TrimSpace(string(data)), "\n")
	if first == "" || !strings.HasPrefix(second, "/") {
		return nil, "", false
	}
	return strings.Split(first, ","), second, true
}

// deleteChroot deletes chroot, with everything below it, from servers.
func deleteChroot(ctx context.Context, servers []string, chroot string) error {
	conn, err := openServers(ctx, servers)
	if err != nil {
		return err
	}
	defer conn.Close()
	return deleteTree(conn, chroot)
}

// deleteTree deletes p and everything below it, children first; what is
// gone already is no error.
func deleteTree(conn *zk.Conn, p string) error {
	children, _, err := conn.Children(p)
	if errors.Is(err, zk.ErrNoNode) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("list %s: %w", p, err)
	}
	for _, c := range children {
		if err := deleteTree(conn, p+"/"+c); err != nil {
			return err
		}
	}
	if err := conn.Delete(p, -1); err != nil && !errors.Is(err, zk.ErrNoNode) {
		return fmt.Errorf("delete %s: %w", p, err)
	}
	return nil
}

// openServers connects to servers.
func openServers(ctx context.Context, servers []string) (*zk.Conn, error) {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	return zkconn.Open(ctx, servers, 10*time.Second)
}

// openZK connects to the servers of a --zk the sandbox printed and
// returns its chroot, the cluster's root.
func openZK(ctx context.Context, addr string) (*zk.Conn, string, error) {
	cs, err := connectstring.Parse(addr)
	if err != nil {
		return nil, "", err
	}
	conn, err := openServers(ctx, cs.Servers)
	return conn, cs.Chroot, err
}
