package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"strconv"
	"strings"
	"time"
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

// defaultGlobals are the global flags' defaults.
func defaultGlobals() globals {
	return globals{timeout: 15 * time.Second, output: "text"}
}

// addGlobals registers the global flags on fs, bound to a.g, so that they
// are accepted before and after a command. The help shows their true
// defaults; the values parsed so far are kept.
func (a *app) addGlobals(fs *flag.FlagSet) {
	parsed, d := a.g, defaultGlobals()
	a.g = d
	defer func() { a.g = parsed }()
	fs.Var(zkFlag{&a.g}, "zk", "ZooKeeper servers, `host:port[,host:port...][/chroot]` as Kafka's zookeeper.connect; a server without a port is at 2181, "+
		"an IPv6 address is in brackets (default $ZK_SERVERS, else "+defaultServers+" for the commands that only read)")
	fs.StringVar(&a.g.root, "root", d.root, "the `chroot` Kafka runs under, such as /kafka (default: the chroot of --zk)")
	fs.StringVar(&a.g.tlsFile, "zk-tls-config-file", d.tlsFile, "a `file` of Kafka's ZooKeeper client TLS properties (zookeeper.ssl.*), as kafka-configs.sh takes it; other keys, as in a server.properties, are ignored and listed")
	fs.StringVar(&a.g.jaasFile, "zk-jaas-config", d.jaasFile, "a Kafka JAAS `file`: its Client section (or the one zookeeper.sasl.clientconfig names) authenticates with SASL, as java.security.auth.login.config does")
	fs.StringVar(&a.g.digestFile, "zk-digest-file", d.digestFile, "a `file` holding digest credentials, user:password (else $"+digestEnv+")")
	fs.StringVar(&a.g.passwordFile, "password-encoder-config-file", d.passwordFile, "a Kafka properties `file` holding password.encoder.secret and the other password.encoder.* settings, such as the controllers' server.properties, to decode password configs (else $"+passwordSecretEnv+", the secret alone)")
	fs.Var(durationFlag{&a.g.timeout}, "timeout", "how long to wait for ZooKeeper at each step (a `duration` with its unit, such as 15s or 500ms): connecting, each read or page of the scan, each write")
	fs.StringVar(&a.g.output, "output", d.output, "output `format`: text or json")
	fs.BoolVar(&a.g.verbose, "verbose", d.verbose, "log every ZooKeeper write to stderr")
	fs.BoolVar(&a.g.version, "version", d.version, "print the version and exit")
}

// zkFlag is --zk: it records that the flag was given, so that an empty
// value, as an unset shell variable gives, is told from no flag.
type zkFlag struct{ g *globals }

func (f zkFlag) String() string {
	if f.g == nil {
		return ""
	}
	return f.g.zk
}

func (f zkFlag) Set(s string) error {
	f.g.zk, f.g.zkSet = s, true
	return nil
}

// durationFlag is a duration flag whose error for a number without a
// unit says which unit was likely meant.
type durationFlag struct{ d *time.Duration }

func (f durationFlag) String() string {
	if f.d == nil {
		return ""
	}
	return f.d.String()
}

func (f durationFlag) Set(s string) error {
	d, err := time.ParseDuration(s)
	if err == nil {
		*f.d = d
		return nil
	}
	if _, numErr := strconv.ParseFloat(s, 64); numErr == nil {
		return fmt.Errorf("a duration needs a unit: did you mean %ss?", s)
	}
	return errors.New("want a duration such as 15s, 500ms or 1m")
}

// parseTop parses the global flags before the command and finds the
// command. When ok is false the run is over and code is its exit code.
func (a *app) parseTop(args []string) (cmd *command, rest []string, code int, ok bool) {
	top := flag.NewFlagSet("migrationzk", flag.ContinueOnError)
	var diag bytes.Buffer
	top.SetOutput(&diag)
	a.addGlobals(top)
	top.Usage = func() {}
	usage := func() string {
		var w bytes.Buffer
		a.usage(&w, top)
		return w.String()
	}
	err := top.Parse(args)
	switch {
	case errors.Is(err, flag.ErrHelp):
		return nil, nil, a.help(usage()), false
	case err != nil:
		return nil, nil, a.failUsage(err, "migrationzk --help"), false
	case a.g.version:
		return nil, nil, a.printVersion(), false
	case top.NArg() == 0:
		return nil, nil, a.failUsage(errors.New("no command given"), "migrationzk --help"), false
	case top.Arg(0) == "help":
		return nil, nil, a.help(usage()), false
	}
	if top.Arg(0) == strings.TrimSpace(kraftPrefix) {
		return a.parseKRaft(top.Args()[1:], usage)
	}
	if cmd = findCommand(top.Arg(0)); cmd == nil {
		return nil, nil, a.failUsage(fmt.Errorf("unknown command %q", top.Arg(0)), "migrationzk --help"), false
	}
	return cmd, top.Args()[1:], exitOK, true
}

// parseKRaft finds the kraft command args name: kraft status, diff,
// export or sync. Without one, or with help, it prints the usage.
func (a *app) parseKRaft(args []string, usage func() string) (cmd *command, rest []string, code int, ok bool) {
	var names []string
	for _, c := range commands() {
		if sub, isKRaft := strings.CutPrefix(c.name, kraftPrefix); isKRaft {
			names = append(names, sub)
		}
	}
	list := strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
	switch {
	case len(args) == 0:
		return nil, nil, a.failUsage(fmt.Errorf("kraft needs a command: %s", list), "migrationzk --help"), false
	case args[0] == "help" || args[0] == "-h" || args[0] == "-help" || args[0] == "--help":
		return nil, nil, a.help(usage()), false
	}
	if cmd = findCommand(kraftPrefix + args[0]); cmd == nil {
		return nil, nil, a.failUsage(fmt.Errorf("unknown command %q: kraft has %s", "kraft "+args[0], list), "migrationzk --help"), false
	}
	return cmd, args[1:], exitOK, true
}

// parseCommand parses what follows the command's name: its flags and the
// global ones, in any order among its positional arguments, "--" ending
// the flags. A flag of the command's own named as a global one is the
// command's after its name. When ok is false the run is over and code is
// its exit code.
func (a *app) parseCommand(cmd *command, args []string) (exec runFunc, positional []string, code int, ok bool) {
	fs := flag.NewFlagSet("migrationzk "+cmd.name, flag.ContinueOnError)
	var diag bytes.Buffer
	fs.SetOutput(&diag)
	if cmd.writes {
		a.addWriteFlags(fs)
	}
	exec = cmd.setup(a, fs)
	a.addGlobalsUnlessDefined(fs)
	fs.Usage = func() {}
	positional, err := parseInterspersed(fs, args)
	switch {
	case errors.Is(err, flag.ErrHelp):
		var w bytes.Buffer
		fmt.Fprintf(&w, "Usage: migrationzk [global flags] %s [flags] %s\n\n%s.\n\n",
			cmd.name, cmd.args, capitalize(cmd.summary))
		if cmd.writes {
			fmt.Fprint(&w, writesHelp)
		}
		fmt.Fprint(&w, "Flags (global flags may also come here):\n")
		fs.SetOutput(&w)
		fs.PrintDefaults()
		fmt.Fprint(&w, exitCodesHelp)
		return nil, nil, a.help(w.String()), false
	case err != nil:
		return nil, nil, a.failUsage(err, "migrationzk "+cmd.name+" --help"), false
	case a.g.version:
		return nil, nil, a.printVersion(), false
	}
	return exec, positional, exitOK, true
}

// writesHelp is the rule every command that writes follows, in its help.
const writesHelp = `It writes only with --apply, and only to servers named by --zk or
$ZK_SERVERS, never to the default. It shows its plan first; then, when
stdin is a terminal, it asks before it writes. When stdin is not a
terminal (a script, a pipe, a job) it writes only with --yes: without it
nothing is written and it exits 2.

`

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
	top.SetOutput(w)
	top.PrintDefaults()
	fmt.Fprint(w, "\nRun 'migrationzk <command> --help' for a command's flags.\n"+exitCodesHelp)
}

// help prints usage, the answer to --help, on stdout and returns exitOK;
// in json mode stdout gets it as "usage" instead.
func (a *app) help(usage string) int {
	if a.json() {
		a.emitJSON(struct {
			header
			Usage string `json:"usage"`
		}{a.header(), usage})
		return exitOK
	}
	fmt.Fprint(a.stdout, usage)
	return exitOK
}

// failUsage reports a command line that does not parse: the error, and a
// line naming the help to read (helpCommand), on stderr; in json mode the
// error on stdout too.
func (a *app) failUsage(err error, helpCommand string) int {
	fmt.Fprintf(a.stderr, "migrationzk: %v\nRun '%s' for usage.\n", err, helpCommand)
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
