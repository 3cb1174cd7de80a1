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
//	lag                    the true lag: the KRaft quorum's high watermark against /migration (DescribeQuorum)
//	monitor                serve Prometheus metrics of the migration read from ZooKeeper, never writing
//	kraft status DIR       what a KRaft metadata directory holds, and how far /migration is behind its log
//	kraft diff DIR         whether ZooKeeper holds KRaft's image at /migration's offset, and what KRaft holds after it
//	kraft export DIR       write KRaft's image, replayed from its metadata, as a JSON image
//	kraft sync DIR...      make ZooKeeper hold KRaft's image before a rollback (dry run unless --apply)
//
// The kraft commands read KRaft's own metadata (a controller's Kafka log
// directory, its __cluster_metadata-0, a .checkpoint or a .log) without
// taking its lock. lag --metadata-dir DIR bounds the lag from such a
// directory instead of asking the quorum.
//
// Global flags, accepted before or after the command:
//
//	--zk host:port[,host:port...][/chroot]  ZooKeeper servers, as Kafka's zookeeper.connect: a server without a port is at 2181,
//	                               an IPv6 address is in brackets ([::1]:2181) (default $ZK_SERVERS, else 127.0.0.1:2181
//	                               for the commands that only read; an empty --zk is an error)
//	--root /chroot                 the chroot Kafka runs under, such as /kafka (default: the --zk chroot, else none)
//	--zk-tls-config-file file      Kafka's zookeeper.ssl.* client properties, as kafka-configs.sh takes them
//	--zk-jaas-config file          a Kafka JAAS file whose Client section authenticates with SASL (DIGEST-MD5 or Kerberos)
//	--zk-digest-file file          digest credentials, user:password (or $MIGRATIONZK_DIGEST)
//	--password-encoder-config-file file  Kafka properties holding password.encoder.*, to decode password configs
//	                               (or the secret alone in $MIGRATIONZK_PASSWORD_ENCODER_SECRET)
//	--timeout duration             how long to wait for ZooKeeper at each step (default 15s)
//	--output text|json             output format (default text)
//	--verbose                      log every ZooKeeper write to stderr
//	--version                      print the version and exit
//
// Writes: rollback-fix, repair-null-migration and kraft sync write only
// with --apply, and print every write on stderr as they make it. They act
// only on servers named by --zk or $ZK_SERVERS, never on the default.
// With --apply they show their plan and then, when stdin is a terminal,
// ask before the first write; when stdin is not a terminal (a script, a
// pipe, a job) they write only with --yes: without it nothing is written
// and the exit code is 2 ("add --yes"). --yes also skips the question on
// a terminal. (rollback-fix --apply used to proceed without asking off a
// terminal.)
//
// Secrets: digest credentials and the password encoder's secret come from a
// file or the environment, never a flag value. No output shows a password,
// a password config's value or a SCRAM credential: export and diff show
// [redacted] in their place, and an export says it is redacted, so that
// the library never writes it back. export --include-secrets --output FILE
// is the one exception: a backup holding them, with a warning on stderr.
//
// Exit codes: 0 fine, 1 a problem was found (or a dry run found work to
// do), 2 an error: bad flags, ZooKeeper unreachable, a TLS or
// authentication failure, no Kafka metadata under the root, or data that
// cannot be decoded blocks the action. Nothing is written on exit 2 unless
// the output says so.
//
// The operators' guide, docs/operators.md in the repository, has the
// reference of every command and of the JSON output, and a walkthrough
// on a sandbox cluster.
package main

import (
	"context"
	"crypto/tls"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/kraftmigration/zkwriter/migrationzk"
	"github.com/kraftmigration/zkwriter/migrationzk/passwordencoder"
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
	// write are the flags of a command that writes (command.writes).
	write writeFlags
	// writes says whether the command run writes (command.writes).
	writes bool
	// digest is the digest credentials, when given.
	digest *credentials
	// passwords decodes password configs; nil without a secret, when
	// they are read as ZooKeeper holds them.
	passwords *passwordencoder.Encoder
	// cmd is the command being run.
	cmd string
	// emitted says whether the json output has been written.
	emitted bool
	// unverified says why the digest credentials could not be verified;
	// empty when they were, or none were given.
	unverified string
	// tls is the configuration of --zk-tls-config-file, once read.
	tls struct {
		loaded bool
		config *tls.Config
	}
	// jsonOut is where the json output goes: stdout, or stderr when
	// stdout carries export's image.
	jsonOut io.Writer
}

// globals are the flags every command accepts.
type globals struct {
	zk string
	// zkSet says whether --zk was given, even empty.
	zkSet      bool
	root       string
	tlsFile    string
	jaasFile   string
	digestFile string
	// passwordFile is --password-encoder-config-file.
	passwordFile string
	timeout      time.Duration
	output       string
	verbose      bool
	version      bool
	// servers and chroot are --zk split at the first slash.
	servers []string
	chroot  string
}

// command is a subcommand: every one is parsed the same way (see
// app.parseCommand) and run with its positional arguments.
type command struct {
	name    string
	summary string
	args    string // extra usage after the flags
	// writes says that the command can write to ZooKeeper. Such a
	// command takes --apply and --yes (writeFlags), needs the servers
	// named by --zk or $ZK_SERVERS, never the default, and asks before it
	// writes by the one rule of confirmWrites.
	writes bool
	// setup registers the command's own flags and returns what runs it
	// with its arguments: it checks the global flags (app.ready) and
	// connects to ZooKeeper if it needs to (see withSession).
	setup func(a *app, fs *flag.FlagSet) runFunc
}

// runFunc runs a command with its positional arguments and returns the
// exit code.
type runFunc func(ctx context.Context, args []string) int

func commands() []command {
	return []command{
		{name: "status", summary: "/migration, /controller, /controller_epoch, and which side owns the cluster", setup: withSession(setupStatus)},
		{name: "rollback-check", summary: "the partitions a rollback to ZooKeeper mode would leave offline", setup: withSession(setupRollbackCheck)},
		{name: "rollback-fix", summary: "raise /controller_epoch and force a controller election (dry run unless --apply)", writes: true, setup: withSession(setupRollbackFix)},
		{name: "repair-null-migration", summary: "replace a null /migration with the initial state (dry run unless --apply)", writes: true, setup: withSession(setupRepair)},
		{name: "export", summary: "write everything the migration mirrors into ZooKeeper as a JSON image", setup: setupExport},
		{name: "diff", summary: "compare two images, each an export file or live (exit 1 when they differ)", args: "A B", setup: setupDiff},
		{name: "lag", summary: "the true lag: the KRaft quorum's high watermark against /migration (DescribeQuorum)", setup: withSession(setupLag)},
		{name: "monitor", summary: "serve Prometheus metrics of the migration read from ZooKeeper, never writing", setup: withSession(setupMonitor)},
		{name: "kraft status", summary: "what a KRaft metadata directory holds, and how far /migration is behind its log", args: "DIR|FILE", setup: withSessionArgs(setupKRaftStatus)},
		{name: "kraft diff", summary: "whether ZooKeeper holds what KRaft's metadata holds at /migration's offset, and what KRaft holds after it (exit 1 when not)", args: "DIR|FILE", setup: setupKRaftDiff},
		{name: "kraft export", summary: "write KRaft's image, replayed from its metadata, as a JSON image", args: "DIR|FILE", setup: setupKRaftExport},
		{name: "kraft sync", summary: "make ZooKeeper hold KRaft's image before a rollback, as a KRaft controller's full sync would (dry run unless --apply)", args: "DIR [DIR...]", writes: true, setup: withSessionArgs(setupKRaftSync)},
	}
}

// kraftPrefix starts the names of the commands that read KRaft's own
// metadata: migrationzk kraft status, and so on.
const kraftPrefix = "kraft "

// withSession makes a command that takes no arguments and runs with a
// client holding a session, after the preflight checks, of setup.
func withSession(setup func(a *app, fs *flag.FlagSet) func(context.Context, *zk.Conn) int) func(*app, *flag.FlagSet) runFunc {
	return withSessionArgs(func(a *app, fs *flag.FlagSet) sessionCommand {
		exec := setup(a, fs)
		return sessionCommand{args: noArgs, run: func(ctx context.Context, conn *zk.Conn, _ []string) int { return exec(ctx, conn) }}
	})
}

// sessionCommand is a command that runs with a client holding a session:
// args checks its positional arguments, before anything is dialled; run
// runs it.
type sessionCommand struct {
	args func(args []string) error
	run  func(ctx context.Context, conn *zk.Conn, args []string) int
}

// withSessionArgs makes the command setup returns: its arguments and the
// global flags checked, it runs with a client holding a session, after the
// preflight checks.
func withSessionArgs(setup func(a *app, fs *flag.FlagSet) sessionCommand) func(*app, *flag.FlagSet) runFunc {
	return func(a *app, fs *flag.FlagSet) runFunc {
		cmd := setup(a, fs)
		return func(ctx context.Context, args []string) int {
			if err := a.ready(); err != nil {
				return a.fail(err)
			}
			if err := cmd.args(args); err != nil {
				return a.fail(err)
			}
			conn, err := a.connect(ctx)
			if err != nil {
				return a.fail(err)
			}
			defer conn.Close()
			if err := a.preflight(ctx, conn); err != nil {
				return a.fail(err)
			}
			return cmd.run(ctx, conn, args)
		}
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
// whatever happens, usage errors included; export writing its image to
// stdout puts that object on stderr instead.
func (a *app) run(args []string) int {
	a.g = defaultGlobals()
	a.g.output = outputIn(args)
	a.jsonOut = a.stdout
	return a.runArgs(args)
}

// runArgs parses args and runs the command.
func (a *app) runArgs(args []string) int {
	cmd, rest, code, ok := a.parseTop(args)
	if !ok {
		return code
	}
	a.cmd, a.writes = cmd.name, cmd.writes
	exec, positional, code, ok := a.parseCommand(cmd, rest)
	if !ok {
		return code
	}
	return exec(context.Background(), positional)
}

// ready checks the global flags (see checkGlobals), as every command does
// first, once it knows where its json output goes.
func (a *app) ready() error {
	if err := a.checkGlobals(); err != nil {
		return usageError{err}
	}
	return nil
}

// logger returns the logger for the library's writes: to stderr with
// --verbose, else discarding.
func (a *app) logger() *slog.Logger {
	if !a.g.verbose {
		return slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	return slog.New(slog.NewTextHandler(a.stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

// writeOpts are the options of a library write.
func (a *app) writeOpts() []migrationzk.Option {
	return []migrationzk.Option{migrationzk.WithRoot(a.g.root), migrationzk.WithLogger(a.logger())}
}

// newWriter returns a Writer of conn under the root. Its options are
// checked when the flags are, so an error here is a defect.
func (a *app) newWriter(conn migrationzk.Conn) (*migrationzk.Writer, error) {
	w, err := migrationzk.New(conn, a.writeOpts()...)
	if err != nil {
		return nil, fmt.Errorf("migrationzk: %w", err)
	}
	return w, nil
}
