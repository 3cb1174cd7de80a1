package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"strings"

	"github.com/go-zookeeper/zk"
)

// usageError is a mistake in the command line: bad flags, a flag value that
// does not parse, conflicting flags.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

// outputIn returns the value of the last --output flag in args, "text"
// when there is none, so that errors found while parsing args come out in
// the format asked for. After export, whose --output names its file, only
// the flags before it count.
func outputIn(args []string) string {
	out := "text"
	for i, arg := range args {
		name, value, hasValue := strings.Cut(strings.TrimLeft(arg, "-"), "=")
		if arg == "--" || arg == "export" {
			break
		}
		if !strings.HasPrefix(arg, "-") || name != "output" {
			continue
		}
		if !hasValue && i+1 < len(args) {
			value = args[i+1]
		}
		if value == "json" {
			out = "json"
		} else {
			out = "text"
		}
	}
	return out
}

// addGlobals registers the global flags on fs, with the values parsed so
// far as defaults, so that they are accepted before and after a command.
func (a *app) addGlobals(fs *flag.FlagSet) {
	fs.StringVar(&a.g.zk, "zk", a.g.zk, "ZooKeeper servers, `host:port[,host:port...][/chroot]` as Kafka's zookeeper.connect (default $ZK_SERVERS, else "+defaultServers+")")
	fs.StringVar(&a.g.root, "root", a.g.root, "the `chroot` Kafka runs under, such as /kafka (default: the chroot of --zk)")
	fs.StringVar(&a.g.tlsFile, "zk-tls-config-file", a.g.tlsFile, "a `file` of Kafka's ZooKeeper client TLS properties (zookeeper.ssl.*), as kafka-configs.sh takes it")
	fs.StringVar(&a.g.jaasFile, "zk-jaas-config", a.g.jaasFile, "a Kafka JAAS `file`: its Client section (or the one zookeeper.sasl.clientconfig names) authenticates with SASL, as java.security.auth.login.config does")
	fs.StringVar(&a.g.digestFile, "zk-digest-file", a.g.digestFile, "a `file` holding digest credentials, user:password (else $"+digestEnv+")")
	fs.DurationVar(&a.g.timeout, "timeout", a.g.timeout, "how long to wait for ZooKeeper at each step: connecting, each read or page of the scan, each write")
	fs.StringVar(&a.g.output, "output", a.g.output, "output `format`: text or json")
	fs.BoolVar(&a.g.verbose, "verbose", a.g.verbose, "log every ZooKeeper write to stderr")
	fs.BoolVar(&a.g.version, "version", a.g.version, "print the version and exit")
}

// parseTop parses the global flags before the command and finds the
// command. When ok is false the run is over and code is its exit code.
func (a *app) parseTop(args []string) (cmd *command, rest []string, code int, ok bool) {
	top := flag.NewFlagSet("migrationzk", flag.ContinueOnError)
	var diag bytes.Buffer
	top.SetOutput(&diag)
	a.addGlobals(top)
	top.Usage = func() { a.usage(&diag, top) }
	err := top.Parse(args)
	switch {
	case errors.Is(err, flag.ErrHelp):
		return nil, nil, a.help(diag.String()), false
	case err != nil:
		return nil, nil, a.failUsage(err, diag.String()), false
	case a.g.version:
		return nil, nil, a.printVersion(), false
	case top.NArg() == 0:
		a.usage(&diag, top)
		return nil, nil, a.failUsage(errors.New("no command given"), diag.String()), false
	case top.Arg(0) == "help":
		a.usage(&diag, top)
		return nil, nil, a.help(diag.String()), false
	}
	if cmd = findCommand(top.Arg(0)); cmd == nil {
		err := fmt.Errorf("unknown command %q", top.Arg(0))
		fmt.Fprintf(&diag, "migrationzk: %v\n\n", err)
		a.usage(&diag, top)
		return nil, nil, a.failUsage(err, diag.String()), false
	}
	return cmd, top.Args()[1:], exitOK, true
}

// parseCommand parses the command's flags, global flags among them.
func (a *app) parseCommand(cmd *command, args []string) (func(ctx context.Context, conn *zk.Conn) int, int, bool) {
	fs := flag.NewFlagSet("migrationzk "+cmd.name, flag.ContinueOnError)
	var diag bytes.Buffer
	fs.SetOutput(&diag)
	exec := cmd.setup(a, fs)
	a.addGlobals(fs)
	fs.Usage = func() {
		fmt.Fprintf(&diag, "Usage: migrationzk [global flags] %s [flags]\n\n%s.\n\nFlags (global flags may also come here):\n", cmd.name, capitalize(cmd.summary))
		fs.PrintDefaults()
		fmt.Fprint(&diag, exitCodesHelp)
	}
	err := fs.Parse(args)
	switch {
	case errors.Is(err, flag.ErrHelp):
		return nil, a.help(diag.String()), false
	case err != nil:
		return nil, a.failUsage(err, diag.String()), false
	case a.g.version:
		return nil, a.printVersion(), false
	case fs.NArg() > 0:
		return nil, a.fail(usageError{fmt.Errorf("unexpected arguments: %s", strings.Join(fs.Args(), " "))}), false
	}
	return exec, exitOK, true
}

const exitCodesHelp = `
Exit codes: 0 fine; 1 a problem was found, or a dry run found work to do;
2 an error: bad flags, ZooKeeper unreachable, a TLS or authentication
failure, no Kafka metadata under the root, data that blocks the action.
`

// usage writes the tool's usage to w.
func (a *app) usage(w *bytes.Buffer, top *flag.FlagSet) {
	fmt.Fprint(w, "Usage: migrationzk [global flags] <command> [flags]\n\n"+
		"Inspects and repairs Kafka's ZooKeeper state around a ZooKeeper-to-KRaft migration.\n\nCommands:\n")
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-22s %s\n", c.name, c.summary)
	}
	fmt.Fprint(w, "\nGlobal flags (accepted before or after the command):\n")
	top.PrintDefaults()
	fmt.Fprint(w, "\nRun 'migrationzk <command> --help' for a command's flags.\n"+exitCodesHelp)
}

// help prints usage, the answer to --help, on stderr and returns exitOK.
// In json mode stdout gets it too, as "usage".
func (a *app) help(usage string) int {
	fmt.Fprint(a.stderr, usage)
	if a.json() {
		a.emitJSON(struct {
			header
			Usage string `json:"usage"`
		}{a.header(), usage})
	}
	return exitOK
}

// failUsage reports a command line that does not parse: diag, what the
// flag package printed, on stderr, and in json mode the error on stdout.
func (a *app) failUsage(err error, diag string) int {
	fmt.Fprint(a.stderr, diag)
	if a.json() {
		a.emitJSON(errorReport{header: a.header(), Error: err.Error(), Kind: kindUsage})
	}
	return exitError
}

func capitalize(s string) string {
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return s
	}
	return string(s[0]-'a'+'A') + s[1:]
}
