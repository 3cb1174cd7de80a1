package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/kraftmigration/zkwriter/internal/connectstring"
)

// checkGlobals validates the global flags, fills in defaults, and reads
// the digest credentials.
func (a *app) checkGlobals() error {
	source, err := a.target()
	if err != nil {
		return err
	}
	if err := a.splitConnect(source); err != nil {
		return err
	}
	if err := a.checkRoot(); err != nil {
		return err
	}
	if a.g.timeout <= 0 {
		return fmt.Errorf("--timeout %v: must be positive", a.g.timeout)
	}
	switch a.g.output {
	case "text", "json":
	default:
		return fmt.Errorf("--output %q: want text or json", a.g.output)
	}
	creds, err := a.readCredentials()
	if err != nil {
		return err
	}
	a.digest = creds
	enc, err := a.readPasswordEncoder()
	if err != nil {
		return err
	}
	a.passwords = enc
	return nil
}

// serversEnv names the environment variable that gives the servers when
// --zk is not given.
const serversEnv = "ZK_SERVERS"

// target settles which ZooKeeper the command acts on, in a.g.zk, and
// returns where it came from: --zk, else $ZK_SERVERS, else, for a command
// that only reads, defaultServers. An empty --zk, as an unset shell
// variable gives, is an error, never the default; so is a command that
// writes with neither --zk nor $ZK_SERVERS: it never acts on a server it
// guessed.
func (a *app) target() (source string, err error) {
	env := a.getenv(serversEnv)
	switch {
	case a.g.zkSet && strings.TrimSpace(a.g.zk) == "":
		return "", errors.New("--zk is empty (an unset shell variable?): give the servers, host:port[,host:port...][/chroot]")
	case a.g.zkSet:
		return "--zk", nil
	case env != "":
		a.g.zk = env
		return "$" + serversEnv, nil
	case a.writes:
		return "", fmt.Errorf("%s writes to ZooKeeper: name the servers with --zk or $%s; the default %s serves only the commands that read",
			a.cmd, serversEnv, defaultServers)
	}
	a.g.zk = defaultServers
	return "--zk", nil
}

// splitConnect reads --zk (or what source names) as Kafka's
// zookeeper.connect: servers, each host:port (2181 when the port is left
// out, an IPv6 address in brackets), then an optional chroot from the
// first slash on.
func (a *app) splitConnect(source string) error {
	cs, err := connectstring.Parse(a.g.zk)
	if err != nil {
		return fmt.Errorf("%s %q: %w", source, a.g.zk, err)
	}
	a.g.servers, a.g.chroot = cs.Servers, cs.Chroot
	if a.g.chroot != "" {
		if err := validRoot(a.g.chroot); err != nil {
			return fmt.Errorf("%s %q: the chroot %q: %w", source, a.g.zk, a.g.chroot, err)
		}
	}
	return nil
}

// checkRoot validates --root and reconciles it with the chroot of --zk.
func (a *app) checkRoot() error {
	if a.g.root != "" {
		if err := validRoot(a.g.root); err != nil {
			return fmt.Errorf("--root %q: %w", a.g.root, err)
		}
	}
	root, chroot := strings.TrimSuffix(a.g.root, "/"), strings.TrimSuffix(a.g.chroot, "/")
	switch {
	case a.g.root == "":
		root = chroot
	case a.g.chroot != "" && root != chroot:
		return fmt.Errorf("--root %q conflicts with the chroot %q of --zk %q: give one of them", a.g.root, a.g.chroot, a.g.zk)
	}
	a.g.root = root
	return nil
}

// validRoot checks that root is an absolute znode path: "/" or a path
// such as /kafka.
func validRoot(root string) error {
	if root == "/" {
		return nil
	}
	switch {
	case !strings.HasPrefix(root, "/"):
		return errors.New("want an absolute path such as /kafka")
	case strings.HasSuffix(root, "/"):
		return errors.New("a znode path must not end with a slash, as ZooKeeper's client refuses it: say " + strings.TrimRight(root, "/"))
	case strings.Contains(root, "//"):
		return errors.New("a znode path must not hold an empty name (//)")
	}
	return nil
}

func (a *app) servers() []string { return a.g.servers }

func (a *app) json() bool { return a.g.output == "json" }

// path returns p under the root.
func (a *app) path(p string) string { return a.g.root + p }

// step returns a context for one step: connecting, a read, a page of the
// scan, a write.
func (a *app) step(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, a.g.timeout)
}

// credentials are digest credentials. String never shows the password.
type credentials struct {
	user, password string
	// source names where they came from: the file or the variable.
	source string
}

func (c *credentials) String() string { return c.user + ":<password from " + c.source + ">" }

// maxDigestFile bounds the digest file read.
const maxDigestFile = 64 << 10

// readCredentials returns the digest credentials of --zk-digest-file or
// $MIGRATIONZK_DIGEST, nil when neither is given, never both. No error
// quotes what the file or variable holds.
func (a *app) readCredentials() (*credentials, error) {
	env := a.getenv(digestEnv)
	switch {
	case a.g.digestFile != "" && env != "":
		return nil, fmt.Errorf("both --zk-digest-file and $%s are set: give one of them", digestEnv)
	case env != "":
		return parseCredentials(env, "$"+digestEnv)
	case a.g.digestFile == "":
		return nil, nil
	}
	f, err := os.Open(a.g.digestFile)
	if err != nil {
		return nil, fmt.Errorf("--zk-digest-file: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxDigestFile+1))
	if err != nil {
		return nil, fmt.Errorf("--zk-digest-file %s: %w", a.g.digestFile, err)
	}
	if len(data) > maxDigestFile {
		return nil, fmt.Errorf("--zk-digest-file %s: larger than %d bytes: want one line, user:password", a.g.digestFile, maxDigestFile)
	}
	return parseCredentials(strings.TrimRight(string(data), "\r\n"), a.g.digestFile)
}

// parseCredentials splits s, user:password, at its first colon.
func parseCredentials(s, source string) (*credentials, error) {
	user, password, ok := strings.Cut(s, ":")
	switch {
	case !ok:
		return nil, fmt.Errorf("%s: want user:password, found no colon", source)
	case user == "":
		return nil, fmt.Errorf("%s: want user:password, the user is empty", source)
	case password == "":
		return nil, fmt.Errorf("%s: want user:password, the password is empty", source)
	case strings.ContainsAny(s, "\r\n"):
		return nil, fmt.Errorf("%s: want one line, user:password", source)
	}
	return &credentials{user: user, password: password, source: source}, nil
}
