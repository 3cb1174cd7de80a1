package main

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"runtime/debug"
	"strings"

	"github.com/go-zookeeper/zk"

	"github.com/kraftmigration/zkwriter/migrationzk"
	"github.com/kraftmigration/zkwriter/migrationzk/zkconn"
	"github.com/kraftmigration/zkwriter/migrationzk/zktls"
	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

// connectOptions returns the options of zkconn.Open: TLS from
// --zk-tls-config-file, the digest credentials, then connOpts.
func (a *app) connectOptions() ([]zkconn.Option, error) {
	var opts []zkconn.Option
	config, err := a.tlsConfig()
	if err != nil {
		return nil, err
	}
	if config != nil {
		opts = append(opts, zkconn.WithTLS(config))
	}
	sasl, err := a.saslOptions()
	if err != nil {
		return nil, err
	}
	opts = append(opts, sasl...)
	if a.digest != nil {
		opts = append(opts, zkconn.WithDigest(a.digest.user, a.digest.password))
	}
	return append(opts, a.connOpts...), nil
}

// tlsConfig returns the TLS configuration of --zk-tls-config-file, nil
// for none, read once: the keys it ignores are listed on stderr once.
func (a *app) tlsConfig() (*tls.Config, error) {
	if a.g.tlsFile == "" || a.tls.loaded {
		return a.tls.config, nil
	}
	config, ignored, err := zktls.LoadFileIgnoring(a.g.tlsFile)
	if err != nil {
		return nil, &tlsConfigError{err: err}
	}
	a.tls.loaded, a.tls.config = true, config
	if len(ignored) > 0 {
		fmt.Fprintf(a.stderr, "migrationzk: --zk-tls-config-file %s: ignored, as Kafka's tools ignore them: %s\n", a.g.tlsFile, describeIgnored(ignored))
	}
	return config, nil
}

// describeIgnored lists ignored keys, with the Kafka key to use for
// ZooKeeper's own names.
func describeIgnored(ignored []zktls.IgnoredKey) string {
	parts := make([]string, len(ignored))
	for i, k := range ignored {
		parts[i] = k.Key
		if k.Use != "" {
			parts[i] += " (ZooKeeper's name; Kafka's key is " + k.Use + ")"
		}
	}
	return strings.Join(parts, ", ")
}

// connect returns a client holding a session. A refused connection, an
// unknown host and a TLS failure end it at once, with the cause.
func (a *app) connect(ctx context.Context) (*zk.Conn, error) {
	opts, err := a.connectOptions()
	if err != nil {
		return nil, err
	}
	ctx, cancel := a.step(ctx)
	defer cancel()
	conn, err := zkconn.Open(ctx, a.servers(), sessionTimeout, opts...)
	if err != nil {
		return nil, &connectError{servers: strings.Join(a.servers(), ","), timeout: a.g.timeout, err: err}
	}
	return conn, nil
}

// preflight checks, before a command reads anything, that the digest
// credentials given name an identity that may write the control znodes
// (ZooKeeper takes a wrong password without complaint), and that Kafka
// metadata is found under the root.
func (a *app) preflight(ctx context.Context, conn *zk.Conn) error {
	if a.digest != nil {
		w, err := a.newWriter(conn)
		if err != nil {
			return err
		}
		cctx, cancel := a.step(ctx)
		err = w.CheckCredentials(cctx)
		cancel()
		if errors.Is(err, migrationzk.ErrNotAuthorized) {
			return &credentialsError{user: a.digest.user, source: a.digest.source, err: err}
		}
		if err != nil {
			return fmt.Errorf("check the digest credentials: %w", err)
		}
		if err := a.checkVerifiable(ctx, conn); err != nil {
			return err
		}
	}
	return a.checkKafkaTree(ctx, conn)
}

// controlZnodes are the znodes CheckCredentials probes, relative to the
// root.
func controlZnodes() []string {
	return []string{znode.ControllerEpochPath, znode.ControllerPath, znode.MigrationPath}
}

// checkVerifiable notes in a.unverified when the digest credentials could
// not be verified: every control znode that exists lets anyone write it,
// so ZooKeeper refuses no probe whatever the password.
func (a *app) checkVerifiable(ctx context.Context, conn *zk.Conn) error {
	w, err := a.newWriter(conn)
	if err != nil {
		return err
	}
	ctx, cancel := a.step(ctx)
	defer cancel()
	acls, err := w.ReadACL(ctx, controlZnodes()...)
	if err != nil {
		return fmt.Errorf("read the ACLs of the control znodes: %w", firstJoined(err))
	}
	var open []string
	for _, z := range acls {
		switch {
		case !z.Exists:
			continue
		case !worldWritable(z.ACL):
			return nil
		}
		open = append(open, a.path(z.Path))
	}
	if len(open) > 0 {
		a.unverified = fmt.Sprintf("the digest credentials of user %q (from %s) could not be verified: %s let anyone write, "+
			"so ZooKeeper refuses no write whatever the password", a.digest.user, a.digest.source, strings.Join(open, ", "))
	}
	return nil
}

// worldWritable reports whether acl lets anyone write.
func worldWritable(acl []zk.ACL) bool {
	for _, e := range acl {
		if e.Scheme == "world" && e.ID == "anyone" && e.Perms&zk.PermWrite != 0 {
			return true
		}
	}
	return false
}

// kafkaMarkers returns znodes every Kafka cluster in ZooKeeper has,
// relative to its chroot: one of them under the root says it is Kafka's.
func kafkaMarkers() []string {
	return []string{znode.TopicsPath, "/brokers/ids", "/cluster/id", znode.ControllerEpochPath}
}

// checkKafkaTree returns a *noKafkaError unless one of kafkaMarkers exists
// under the root.
func (a *app) checkKafkaTree(ctx context.Context, conn *zk.Conn) error {
	w, err := a.newWriter(conn)
	if err != nil {
		return err
	}
	ctx, cancel := a.step(ctx)
	defer cancel()
	markers, err := w.Read(ctx, kafkaMarkers()...)
	if err != nil {
		return firstJoined(err)
	}
	for _, m := range markers {
		if m.Exists {
			return nil
		}
	}
	root := a.g.root
	if root == "" {
		root = "/"
	}
	ls, err := w.Children(ctx, "/")
	if err != nil {
		return fmt.Errorf("list %s: %w", root, firstJoined(err))
	}
	return &noKafkaError{root: root, exists: ls[0].Exists, children: ls[0].Names}
}

// The commit make stamps (-ldflags -X, see the Makefile's migrationzk
// and install targets) when it builds from a checkout: the revision, its
// commit time, and "true" when the tree had changes. A build records
// them itself (vcs.revision) only when the go command could ask git
// (-buildvcs); the stamp stands in where it could not. They are set
// only by the linker, never at run time.
var (
	stampedRevision string
	stampedTime     string
	stampedModified string
)

// version is the tool's version, from the build information and, where
// that names no revision, the commit make stamped: see versionOf.
func version() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		info = &debug.BuildInfo{}
	}
	return versionOf(info, vcsStamp{revision: stampedRevision, time: stampedTime, modified: stampedModified == "true"})
}

// vcsStamp is the commit a build is from.
type vcsStamp struct {
	revision, time string
	modified       bool
}

// versionOf says which build info describes: the module version it was
// built at ("devel" for none, as a build from a work tree has), and the
// VCS revision, its time and whether the tree was modified, when the build
// recorded them, else when stamped holds them.
func versionOf(info *debug.BuildInfo, stamped vcsStamp) string {
	v := info.Main.Version
	if v == "" || v == "(devel)" {
		v = "devel"
	}
	var recorded vcsStamp
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			recorded.revision = s.Value
		case "vcs.time":
			recorded.time = s.Value
		case "vcs.modified":
			recorded.modified = s.Value == "true"
		}
	}
	if recorded.revision == "" {
		recorded = stamped
	}
	if recorded.revision == "" {
		return v
	}
	details := []string{"revision " + recorded.revision}
	if recorded.time != "" {
		details = append(details, recorded.time)
	}
	if recorded.modified {
		details = append(details, "modified")
	}
	return v + " (" + strings.Join(details, ", ") + ")"
}

// printVersion answers --version.
func (a *app) printVersion() int {
	if a.json() {
		a.emitJSON(struct {
			header
			Version string `json:"version"`
		}{a.header(), version()})
		return exitOK
	}
	fmt.Fprintf(a.stdout, "migrationzk %s\n", version())
	return exitOK
}
