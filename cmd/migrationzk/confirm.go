package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"strings"
)

// writeFlags are the flags of every command that writes (command.writes).
type writeFlags struct {
	// apply makes the command write; without it, it only shows its plan.
	apply bool
	// yes writes without asking, as a script must.
	yes bool
}

// addWriteFlags registers --apply and --yes on fs, bound to a.write.
func (a *app) addWriteFlags(fs *flag.FlagSet) {
	fs.BoolVar(&a.write.apply, "apply", false, "write; without it nothing is written and the plan is shown")
	fs.BoolVar(&a.write.yes, "yes", false, "with --apply, write without asking; needed when stdin is not a terminal "+
		"(a script, a pipe, a job), where nobody can be asked and nothing is written without it")
}

// errDeclined says that the operator, asked on a terminal, did not
// confirm the writes.
var errDeclined = errors.New("not confirmed: nothing was written")

// confirmWrites is the one confirmation rule of every command that
// writes, called with its plan's writes, one line each, once the plan is
// made and before the first write. It returns nil to go ahead: --yes was
// given, or stdin is a terminal and the operator, shown the writes on
// stderr, answered y or yes. Otherwise nothing may be written: it returns
// errDeclined when the operator answered anything else (or nothing), and a
// usage error saying to add --yes when stdin is not a terminal, since
// nobody can be asked there and an answer piped in is no confirmation.
func (a *app) confirmWrites(writes []string) error {
	if a.write.yes {
		return nil
	}
	if a.stdinTTY == nil || !a.stdinTTY() {
		return usageError{fmt.Errorf("stdin is not a terminal, so %s cannot ask before it writes: nothing was written; add --yes to write", a.cmd)}
	}
	fmt.Fprintf(a.stderr, "%s will write to ZooKeeper at %s:\n", a.cmd, strings.Join(a.servers(), ","))
	for i, w := range writes {
		fmt.Fprintf(a.stderr, "  %d. %s\n", i+1, w)
	}
	fmt.Fprint(a.stderr, "Proceed? [y/N] ")
	line, _ := bufio.NewReader(a.stdin).ReadString('\n')
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "y", "yes":
		return nil
	}
	fmt.Fprintln(a.stderr, "Not confirmed: nothing is written.")
	return errDeclined
}
