package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"strings"
)

// runWithArgs runs cmd, a command with setupArgs, on args (what follows
// its name): flags and positional arguments in any order, "--" ending the
// flags. A flag of the command's own named as a global one is the
// command's after its name. It returns the exit code.
func (a *app) runWithArgs(cmd *command, args []string) int {
	fs := flag.NewFlagSet("migrationzk "+cmd.name, flag.ContinueOnError)
	var diag bytes.Buffer
	fs.SetOutput(&diag)
	exec := cmd.setupArgs(a, fs)
	a.addGlobalsUnlessDefined(fs)
	fs.Usage = func() {
		fmt.Fprintf(&diag, "Usage: migrationzk [global flags] %s [flags] %s\n\n%s.\n\nFlags (global flags may also come here):\n",
			cmd.name, cmd.args, capitalize(cmd.summary))
		fs.PrintDefaults()
		fmt.Fprint(&diag, exitCodesHelp)
	}
	a.cmd = cmd.name
	positional, err := parseInterspersed(fs, args)
	switch {
	case errors.Is(err, flag.ErrHelp):
		return a.help(diag.String())
	case err != nil:
		return a.failUsage(err, diag.String())
	}
	if err := a.checkGlobals(); err != nil {
		return a.fail(usageError{err})
	}
	return exec(context.Background(), positional)
}

// addGlobalsUnlessDefined registers on fs the global flags fs does not
// define already, bound to the same values as addGlobals binds them.
func (a *app) addGlobalsUnlessDefined(fs *flag.FlagSet) {
	globals := flag.NewFlagSet("", flag.ContinueOnError)
	a.addGlobals(globals)
	globals.VisitAll(func(f *flag.Flag) {
		if fs.Lookup(f.Name) == nil {
			fs.Var(f.Value, f.Name, f.Usage)
		}
	})
}

// parseInterspersed parses the flags in args wherever they come and
// returns the other arguments in order; those after "--" are never flags.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return positional, nil
		}
		if consumed := len(args) - len(rest); consumed > 0 && args[consumed-1] == "--" {
			return append(positional, rest...), nil
		}
		positional = append(positional, rest[0])
		args = rest[1:]
	}
}

// noArgs reports unexpected arguments of a command that takes none, and
// whether there were any.
func (a *app) noArgs(name string, args []string) bool {
	if len(args) == 0 {
		return false
	}
	fmt.Fprintf(a.stderr, "migrationzk %s: unexpected arguments: %s\n", name, strings.Join(args, " "))
	return true
}
