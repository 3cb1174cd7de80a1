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
//	--zk host:port[,host:port...]  ZooKeeper servers (default $ZK_SERVERS, else 127.0.0.1:2181)
//	--root /chroot                 the chroot Kafka runs under, such as /kafka (default none)
//	--timeout duration             how long to wait for ZooKeeper at each step (default 15s)
//	--output text|json             output format (default text)
//	--verbose                      log every ZooKeeper write to stderr
//
// Exit codes: 0 fine, 1 a problem was found (or a dry run found work to
// do), 2 an error: bad flags, ZooKeeper unreachable, or data that cannot be
// decoded blocks the action. Nothing is written on exit 2 unless the
// output says so.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
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
	exitError   = 2 // bad flags, unreachable ZooKeeper, data blocking the action
)

// defaultServers is used when neither --zk nor ZK_SERVERS is set.
const defaultServers = "127.0.0.1:2181"

// sessionTimeout is the ZooKeeper session timeout the tool asks for.
const sessionTimeout = 10 * time.Second

func main() {
	a := &app{
		stdout: os.Stdout,
		stderr: os.Stderr,
		getenv: os.Getenv,
		tty:    isTerminal(os.Stderr),
	}
	os.Exit(a.run(os.Args[1:]))
}

// isTerminal reports whether f is a character device, such as a terminal.
func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// app is one run of the tool, with its environment.
type app struct {
	stdout, stderr io.Writer
	getenv         func(string) string
	// tty says whether stderr is a terminal: a progress bar is drawn there
	// only then.
	tty bool
	// connOpts are extra go-zookeeper options, such as a dialer.
	connOpts []func(*zk.Conn)

	g globals
	// cmd is the command being run.
	cmd string
}

// globals are the flags every command accepts.
type globals struct {
	zk      string
	root    string
	timeout time.Duration
	output  string
	verbose bool
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
	// ZooKeeper only if it needs to (see runArgs).
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

// addGlobals registers the global flags on fs, with the values parsed so
// far as defaults, so that they are accepted before and after a command.
func (a *app) addGlobals(fs *flag.FlagSet) {
	fs.StringVar(&a.g.zk, "zk", a.g.zk, "ZooKeeper servers, `host:port[,host:port...]` (default $ZK_SERVERS, else "+defaultServers+")")
	fs.StringVar(&a.g.root, "root", a.g.root, "the `chroot` Kafka runs under, such as /kafka")
	fs.DurationVar(&a.g.timeout, "timeout", a.g.timeout, "how long to wait for ZooKeeper at each step: connecting, each read or page of the scan, each write")
	fs.StringVar(&a.g.output, "output", a.g.output, "output `format`: text or json")
	fs.BoolVar(&a.g.verbose, "verbose", a.g.verbose, "log every ZooKeeper write to stderr")
}

// run runs the tool with args (without the program name) and returns the
// exit code.
func (a *app) run(args []string) int {
	a.g = globals{timeout: 15 * time.Second, output: "text"}
	top := flag.NewFlagSet("migrationzk", flag.ContinueOnError)
	top.SetOutput(a.stderr)
	a.addGlobals(top)
	top.Usage = func() { a.usage(top) }
	if err := top.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitError
	}
	if top.NArg() == 0 {
		a.usage(top)
		return exitError
	}
	name := top.Arg(0)
	if name == "help" {
		a.usage(top)
		return exitOK
	}
	var cmd *command
	for _, c := range commands() {
		if c.name == name {
			c := c
			cmd = &c
		}
	}
	if cmd == nil {
		fmt.Fprintf(a.stderr, "migrationzk: unknown command %q\n\n", name)
		a.usage(top)
		return exitError
	}
	if cmd.setupArgs != nil {
		return a.runArgs(*cmd, top.Args()[1:])
	}
	fs := flag.NewFlagSet("migrationzk "+cmd.name, flag.ContinueOnError)
	fs.SetOutput(a.stderr)
	exec := cmd.setup(a, fs)
	a.addGlobals(fs)
	fs.Usage = func() {
		fmt.Fprintf(a.stderr, "Usage: migrationzk [global flags] %s [flags]\n\n%s.\n\nFlags (global flags may also come here):\n", cmd.name, capitalize(cmd.summary))
		fs.PrintDefaults()
		fmt.Fprint(a.stderr, exitCodesHelp)
	}
	if err := fs.Parse(top.Args()[1:]); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitError
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(a.stderr, "migrationzk %s: unexpected arguments: %s\n", cmd.name, strings.Join(fs.Args(), " "))
		return exitError
	}
	if err := a.checkGlobals(); err != nil {
		fmt.Fprintf(a.stderr, "migrationzk %s: %v\n", cmd.name, err)
		return exitError
	}
	a.cmd = cmd.name
	ctx := context.Background()
	conn, err := a.connect(ctx)
	if err != nil {
		return a.fail(err)
	}
	defer conn.Close()
	return exec(ctx, conn)
}

const exitCodesHelp = `
Exit codes: 0 fine; 1 a problem was found, or a dry run found work to do;
2 an error: bad flags, ZooKeeper unreachable, data that blocks the action.
`

func (a *app) usage(top *flag.FlagSet) {
	fmt.Fprint(a.stderr, "Usage: migrationzk [global flags] <command> [flags]\n\n"+
		"Inspects and repairs Kafka's ZooKeeper state around a ZooKeeper-to-KRaft migration.\n\nCommands:\n")
	for _, c := range commands() {
		fmt.Fprintf(a.stderr, "  %-22s %s\n", c.name, c.summary)
	}
	fmt.Fprint(a.stderr, "\nGlobal flags (accepted before or after the command):\n")
	top.PrintDefaults()
	fmt.Fprint(a.stderr, "\nRun 'migrationzk <command> --help' for a command's flags.\n"+exitCodesHelp)
}

func capitalize(s string) string {
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return s
	}
	return string(s[0]-'a'+'A') + s[1:]
}

// checkGlobals validates the global flags and fills in defaults.
func (a *app) checkGlobals() error {
	if a.g.zk == "" {
		a.g.zk = a.getenv("ZK_SERVERS")
	}
	if a.g.zk == "" {
		a.g.zk = defaultServers
	}
	for _, s := range a.servers() {
		if s == "" || !strings.Contains(s, ":") {
			return fmt.Errorf("--zk %q: want host:port[,host:port...]", a.g.zk)
		}
	}
	if a.g.root == "/" {
		a.g.root = ""
	}
	if a.g.root != "" {
		if !strings.HasPrefix(a.g.root, "/") || strings.HasSuffix(a.g.root, "/") || strings.Contains(a.g.root, "//") {
			return fmt.Errorf("--root %q: want an absolute path such as /kafka", a.g.root)
		}
	}
	if a.g.timeout <= 0 {
		return fmt.Errorf("--timeout %v: must be positive", a.g.timeout)
	}
	switch a.g.output {
	case "text", "json":
	default:
		return fmt.Errorf("--output %q: want text or json", a.g.output)
	}
	return nil
}

func (a *app) servers() []string { return strings.Split(a.g.zk, ",") }

func (a *app) json() bool { return a.g.output == "json" }

// path returns p under the root.
func (a *app) path(p string) string { return a.g.root + p }

// step returns a context for one step: connecting, a read, a page of the
// scan, a write.
func (a *app) step(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, a.g.timeout)
}

// connect returns a client holding a session, dialling with connOpts.
func (a *app) connect(ctx context.Context) (*zk.Conn, error) {
	ctx, cancel := a.step(ctx)
	defer cancel()
	conn, err := zkconn.Connect(ctx, a.servers(), sessionTimeout, a.connOpts...)
	if err != nil {
		return nil, fmt.Errorf("cannot reach ZooKeeper at %s within %v: %w", a.g.zk, a.g.timeout, err)
	}
	return conn, nil
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

// header is the start of every json report.
type header struct {
	Schema    int    `json:"schema_version"`
	Command   string `json:"command"`
	ZooKeeper string `json:"zookeeper"`
	Root      string `json:"root"`
}

func (a *app) header() header {
	return header{Schema: schemaVersion, Command: a.cmd, ZooKeeper: a.g.zk, Root: a.g.root}
}

// fail reports an error and returns exitError. In json mode stdout also
// gets the header and "error", so that a consumer always reads valid JSON.
func (a *app) fail(err error) int {
	a.warn(err)
	if a.json() {
		a.emitJSON(struct {
			header
			Error string `json:"error"`
		}{a.header(), err.Error()})
	}
	return exitError
}

// warn reports an error on stderr.
func (a *app) warn(err error) {
	fmt.Fprintf(a.stderr, "migrationzk %s: %v\n", a.cmd, err)
}
