package main

import (
	"flag"
	"fmt"
	"strings"
)

// addGlobalsUnlessDefined registers on fs the global flags fs does not
// define already, bound to the same values as addGlobals binds them, their
// defaults shown as the true defaults, not the values parsed so far.
func (a *app) addGlobalsUnlessDefined(fs *flag.FlagSet) {
	globals := flag.NewFlagSet("", flag.ContinueOnError)
	a.addGlobals(globals)
	globals.VisitAll(func(f *flag.Flag) {
		if fs.Lookup(f.Name) == nil {
			fs.Var(f.Value, f.Name, f.Usage)
			fs.Lookup(f.Name).DefValue = f.DefValue
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

// noArgs returns a usage error for the arguments of a command that takes
// none, nil when there are none.
func noArgs(args []string) error {
	if len(args) == 0 {
		return nil
	}
	return usageError{fmt.Errorf("unexpected arguments: %s", strings.Join(args, " "))}
}
