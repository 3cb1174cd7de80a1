package main

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"sort"
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
	if a.g.tlsFile != "" {
		config, err := zktls.LoadFile(a.g.tlsFile)
		if err != nil {
			return nil, &tlsConfigError{err: err}
		}
		if config != nil {
			opts = append(opts, zkconn.WithTLS(config))
		}
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
		w := migrationzk.New(conn, migrationzk.WithRoot(a.g.root))
		cctx, cancel := a.step(ctx)
		err := w.CheckCredentials(cctx)
		cancel()
		if errors.Is(err, migrationzk.ErrNotAuthorized) {
			return &credentialsError{user: a.digest.user, source: a.digest.source, err: err}
		}
		if err != nil {
			return fmt.Errorf("check the digest credentials: %w", err)
		}
	}
	return a.checkKafkaTree(ctx, conn)
}

// kafkaMarkers returns znodes every Kafka cluster in ZooKeeper has,
// relative to its chroot: one of them under the root says it is Kafka's.
func kafkaMarkers() []string {
	return []string{znode.TopicsPath, "/brokers/ids", "/cluster/id", znode.ControllerEpochPath}
}

// checkKafkaTree returns a *noKafkaError unless one of kafkaMarkers exists
// under the root.
func (a *app) checkKafkaTree(ctx context.Context, conn *zk.Conn) error {
	ctx, cancel := a.step(ctx)
	defer cancel()
	for _, m := range kafkaMarkers() {
		r, err := get(ctx, conn, a.path(m))
		if err != nil {
			return err
		}
		if r.exists {
			return nil
		}
	}
	root := a.g.root
	if root == "" {
		root = "/"
	}
	var children []string
	err := read(ctx, conn, func() error {
		var err error
		children, _, err = conn.Children(root)
		return err
	})
	if err != nil && !errors.Is(err, zk.ErrNoNode) {
		return fmt.Errorf("list %s: %w", root, denied(root, "list", err))
	}
	sort.Strings(children)
	return &noKafkaError{root: root, exists: err == nil, children: children}
}

// version is the tool's version: the module version it was built at, or
// "devel".
func version() string {
	info, ok := debug.ReadBuildInfo()
	if !ok || info.Main.Version == "" || info.Main.Version == "(devel)" {
		return "devel"
	}
	return info.Main.Version
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
