// Command migrationzk shows the state of a ZooKeeper-to-KRaft migration as
// Kafka left it in ZooKeeper, tells whether a rollback to ZooKeeper mode
// would leave partitions offline, and repairs that and a null /migration.
//
// Usage:
//
//	migrationzk [global flags] <command> [flags]
//
// Commands:
//
//	status                 /migration, /controller, /controller_epoch, and which side owns the cluster
//	rollback-check         the partitions a rollback to ZooKeeper mode would leave offline
//	rollback-fix           raise /controller_epoch and force a controller election (dry run unless --apply)
//	repair-null-migration  replace a null /migration with the initial state (dry run unless --apply)
//	export                 write everything the migration mirrors into ZooKeeper as a JSON image
//	diff A B               compare two images, each an export file or live (exit 1 when they differ)
//
// Global flags, accepted before or after the command:
//
//	--zk host:port[,host:port...][/chroot]  ZooKeeper servers, as Kafka's zookeeper.connect (default $ZK_SERVERS, else 127.0.0.1:2181)
//	--root /chroot                 the chroot Kafka runs under, such as /kafka (default: the --zk chroot, else none)
//	--zk-tls-config-file file      Kafka's zookeeper.ssl.* client properties, as kafka-configs.sh takes them
//	--zk-jaas-config file          a Kafka JAAS file whose Client section authenticates with SASL (DIGEST-MD5 or Kerberos)
//	--zk-digest-file file          digest credentials, user:password (or $MIGRATIONZK_DIGEST)
//	--timeout duration             how long to wait for ZooKeeper at each step (default 15s)
//	--output text|json             output format (default text)
//	--verbose                      log every ZooKeeper write to stderr
//	--version                      print the version and exit
//
// Writes: rollback-fix and repair-null-migration write only with --apply,
// and print every write on stderr as they make it. rollback-fix --apply
// lists its writes and asks for confirmation when stdin is a terminal
// (--yes skips the question); when stdin is not a terminal it proceeds.
//
// Exit codes: 0 fine, 1 a problem was found (or a dry run found work to
// do), 2 an error: bad flags, ZooKeeper unreachable, a TLS or
// authentication failure, no Kafka metadata under the root, or data that
// cannot be decoded blocks the action. Nothing is written on exit 2 unless
// the output says so.
package main

import (
	"context"
	"flag"
	"io"
	"log/slog"
	"os"
	"sync/atomic"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/kraftmigration/zkwriter/migrationzk"
	"github.com/kraftmigration/zkwriter/migrationzk/zkconn"
)

// Exit codes.
const (
	exitOK      = 0 // fine
	exitProblem = 1 // a problem was found; a dry run found work to do
	exitError   = 2 // bad flags, unreachable ZooKeeper, TLS or authentication failure, data blocking the action
)

// defaultServers is used when neither --zk nor ZK_SERVERS is set.
const defaultServers = "127.0.0.1:2181"

// digestEnv names the environment variable that may hold digest
// credentials, user:password.
const digestEnv = "MIGRATIONZK_DIGEST"

// sessionTimeout is the ZooKeeper session timeout the tool asks for.
const sessionTimeout = 10 * time.Second

func main() {
	a := &app{
		stdout: os.Stdout,
		stderr: os.Stderr,
		stdin:  os.Stdin,
		getenv: os.Getenv,
		tty:    isTerminal(os.Stderr),
		stdinTTY: func() bool {
			return isTerminal(os.Stdin)
		},
	}
	os.Exit(a.run(os.Args[1:]))
}

// app is one run of the tool, with its environment.
type app struct {
	stdout, stderr io.Writer
	// stdin is where confirmations are read.
	stdin  io.Reader
	getenv func(string) string
	// tty says whether stderr is a terminal: a progress bar is drawn there
	// only then.
	tty bool
	// stdinTTY says whether stdin is a terminal: rollback-fix --apply asks
	// for confirmation only then.
	stdinTTY func() bool
	// connOpts are extra options of zkconn.Open, such as a dialer; they
	// come after the tool's own.
	connOpts []zkconn.Option

	g globals
	// digest is the digest credentials, when given.
	digest *credentials
	// cmd is the command being run.
	cmd string
	// emitted says whether the json output has been written.
	emitted bool
}

// globals are the flags every command accepts.
type globals struct {
	zk         string
	root       string
	tlsFile    string
	jaasFile   string
	digestFile string
	timeout    time.Duration
	output     string
	verbose    bool
	version    bool
	// servers and chroot are --zk split at the first slash.
	servers []string
	chroot  string
}

// command is a subcommand.
type command struct {
	name    string
	summary string
	args    string // extra usage after the flags
	// setup registers the command's own flags and returns what runs it
	// with a client holding a session.
	setup func(a *app, fs *flag.FlagSet) func(ctx context.Context, conn *zk.Conn) int
	// setupArgs, set instead of setup, registers the command's own flags
	// and returns what runs it with its arguments; it connects to
	// ZooKeeper only if it needs to (see runWithArgs).
	setupArgs func(a *app, fs *flag.FlagSet) func(ctx context.Context, args []string) int
}

func commands() []command {
	return []command{
		{name: "status", summary: "/migration, /controller, /controller_epoch, and which side owns the cluster", setup: setupStatus},
		{name: "rollback-check", summary: "the partitions a rollback to ZooKeeper mode would leave offline", setup: setupRollbackCheck},
		{name: "rollback-fix", summary: "raise /controller_epoch and force a controller election (dry run unless --apply)", setup: setupRollbackFix},
		{name: "repair-null-migration", summary: "replace a null /migration with the initial state (dry run unless --apply)", setup: setupRepair},
		{name: "export", summary: "write everything the migration mirrors into ZooKeeper as a JSON image", setupArgs: setupExport},
		{name: "diff", summary: "compare two images, each an export file or live (exit 1 when they differ)", args: "A B", setupArgs: setupDiff},
	}
}

// findCommand returns the command called name, or nil.
func findCommand(name string) *command {
	for _, c := range commands() {
		if c.name == name {
			return &c
		}
	}
	return nil
}

// run runs the tool with args (without the program name) and returns the
// exit code. With --output json, stdout gets exactly one JSON object
// whatever happens, usage errors included.
func (a *app) run(args []string) int {
	a.g = globals{timeout: 15 * time.Second, output: outputIn(args)}
	code := a.runArgs(args)
	if a.json() && !a.emitted {
		a.emitJSON(errorReport{header: a.header(), Error: "no output was produced"})
	}
	return code
}

// runArgs parses args, connects and runs the command.
func (a *app) runArgs(args []string) int {
	cmd, rest, code, ok := a.parseTop(args)
	if !ok {
		return code
	}
	if cmd.setupArgs != nil {
		return a.runWithArgs(cmd, rest)
	}
	a.cmd = cmd.name
	exec, code, ok := a.parseCommand(cmd, rest)
	if !ok {
		return code
	}
	if err := a.checkGlobals(); err != nil {
		return a.fail(usageError{err})
	}
	ctx := context.Background()
	conn, err := a.connect(ctx)
	if err != nil {
		return a.fail(err)
	}
	defer conn.Close()
	if err := a.preflight(ctx, conn); err != nil {
		return a.fail(err)
	}
	return exec(ctx, conn)
}

// logger returns the logger for the library's writes: to stderr with
// --verbose, else discarding.
func (a *app) logger() *slog.Logger {
	if !a.g.verbose {
		return slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	return slog.New(slog.NewTextHandler(a.stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

// writeOpts are the options of a library write. When recovered is not
// nil it is set if the write's acknowledgement was lost and a reread
// proved it had landed.
func (a *app) writeOpts(recovered *atomic.Bool) []migrationzk.Option {
	logger := a.logger()
	if recovered != nil {
		logger = slog.New(outcomeNoter{next: logger.Handler(), recovered: recovered})
	}
	return []migrationzk.Option{migrationzk.WithRoot(a.g.root), migrationzk.WithLogger(logger)}
}

// outcomeNoter is a slog.Handler that notes the library's records saying
// outcome=recovered and passes every record on to next.
type outcomeNoter struct {
	next      slog.Handler
	recovered *atomic.Bool
}

func (h outcomeNoter) Enabled(context.Context, slog.Level) bool { return true }

func (h outcomeNoter) Handle(ctx context.Context, r slog.Record) error {
	r.Attrs(func(at slog.Attr) bool {
		if at.Key == "outcome" && at.Value.String() == "recovered" {
			h.recovered.Store(true)
		}
		return true
	})
	if h.next.Enabled(ctx, r.Level) {
		return h.next.Handle(ctx, r)
	}
	return nil
}

func (h outcomeNoter) WithAttrs(attrs []slog.Attr) slog.Handler {
	return outcomeNoter{next: h.next.WithAttrs(attrs), recovered: h.recovered}
}

func (h outcomeNoter) WithGroup(name string) slog.Handler {
	return outcomeNoter{next: h.next.WithGroup(name), recovered: h.recovered}
}
