// Command benchfmt reads the output of the bench package's benchmarks
// (`go test -bench`, as scripts/bench.sh runs them) from the files named on
// the command line, or standard input, and prints a Markdown table of the
// figures the performance goals are judged by, with whether each holds. It
// exits with status 1 when a goal does not hold, a figure is missing or a
// benchmark failed.
package main

import (
	"fmt"
	"io"
	"os"
	"strings"
)

func main() {
	var in io.Reader = os.Stdin
	if len(os.Args) > 1 {
		var readers []io.Reader
		for _, name := range os.Args[1:] {
			f, err := os.Open(name)
			if err != nil {
				fmt.Fprintln(os.Stderr, "benchfmt:", err)
				os.Exit(2)
			}
			defer f.Close()
			readers = append(readers, f)
		}
		in = io.MultiReader(readers...)
	}
	r, err := parse(in)
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchfmt:", err)
		os.Exit(2)
	}
	ok := write(os.Stdout, r, evaluate(r))
	if !ok {
		os.Exit(1)
	}
}

// write prints the table and a verdict, and reports whether every goal
// holds.
func write(w io.Writer, r run, rows []row) bool {
	if r.cpu != "" {
		fmt.Fprintf(w, "cpu: %s\n", r.cpu)
	}
	for _, n := range r.notes {
		fmt.Fprintln(w, n)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| goal | figure | benchmark | measured | target | holds |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|")
	var failed []string
	for _, x := range rows {
		holds := "-"
		switch {
		case x.missing:
			holds = "MISSING"
			failed = append(failed, x.goal+": "+x.what)
		case x.target == "":
		case x.holds:
			holds = "yes"
		default:
			holds = "NO"
			failed = append(failed, x.goal+": "+x.what)
		}
		target := x.target
		if target == "" {
			target = "(comparison)"
		}
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s |\n", x.goal, x.what, x.bench, x.figure, target, holds)
	}
	fmt.Fprintln(w)
	for _, f := range r.failures {
		failed = append(failed, "benchmark failure: "+f)
	}
	if len(failed) == 0 {
		fmt.Fprintln(w, "All goals hold.")
		return true
	}
	fmt.Fprintf(w, "Not holding (%d):\n  %s\n", len(failed), strings.Join(failed, "\n  "))
	return false
}
