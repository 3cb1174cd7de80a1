// Command mutants checks that the torture suite catches a wrong landing
// rule. It applies, one at a time, each one-line mutant of mutants.txt to
// the landing rules and the code that acts on their verdicts, runs the
// torture short form alone against it over a range of seeds until an
// anomaly kills it, and prints the kill table: which
// check killed each mutant, with which seed, after how many operations. It
// exits 1 when a mutant survives every seed, and 2 when the list no longer
// matches the code. The source tree is never changed: each mutant is
// compiled from an overlay, all of them before the first runs.
//
//	go run ./scripts/mutants [-list scripts/mutants/mutants.txt] [-seeds 1-3] [-only N]
package main

import (
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

func main() {
	list := flag.String("list", "scripts/mutants/mutants.txt", "the list of mutants")
	seeds := flag.String("seeds", "1-3", "the seeds to try against each mutant, FIRST-LAST")
	only := flag.Int("only", 0, "run mutant N of the list alone (1-based); 0 runs them all")
	flag.Parse()
	from, to, err := seedRange(*seeds)
	if err != nil {
		fail(2, err)
	}
	mutants, err := readList(*list)
	if err != nil {
		fail(2, err)
	}
	if err := checkAll(mutants); err != nil {
		fail(2, err)
	}
	dir, err := os.MkdirTemp("", "mutants")
	if err != nil {
		fail(2, err)
	}
	kills, err := huntAll(dir, mutants, *only, from, to)
	os.RemoveAll(dir)
	if err != nil {
		fail(2, err)
	}
	printTable(kills)
	for _, k := range kills {
		if !k.killed {
			os.Exit(1)
		}
	}
}

// huntAll builds every mutant into dir, then hunts each (or only mutant
// number only) with the seeds from first to last, printing each result as
// it is known.
func huntAll(dir string, mutants []mutant, only int, first, last int64) ([]kill, error) {
	binaries := make([]string, len(mutants))
	for i, m := range mutants {
		var err error
		if binaries[i], err = m.build(dir, i+1); err != nil {
			return nil, fmt.Errorf("mutant %d (%s) %w", i+1, m.name, err)
		}
	}
	var kills []kill
	for i, m := range mutants {
		if only != 0 && only != i+1 {
			continue
		}
		k, err := m.hunt(binaries[i], first, last)
		if err != nil {
			return nil, fmt.Errorf("mutant %d (%s): %w", i+1, m.name, err)
		}
		k.n = i + 1
		fmt.Println(k.line())
		kills = append(kills, k)
	}
	return kills, nil
}

// seedRange parses FIRST-LAST (or a single seed).
func seedRange(s string) (int64, int64, error) {
	first, last, found := strings.Cut(s, "-")
	if !found {
		last = first
	}
	a, err := strconv.ParseInt(first, 10, 64)
	if err != nil {
		return 0, 0, fmt.Errorf("-seeds %q: %v", s, err)
	}
	b, err := strconv.ParseInt(last, 10, 64)
	if err != nil || b < a {
		return 0, 0, fmt.Errorf("-seeds %q: want FIRST-LAST", s)
	}
	return a, b, nil
}

func fail(code int, err error) {
	fmt.Fprintln(os.Stderr, "mutants:", err)
	os.Exit(code)
}

// printTable prints the kill table.
func printTable(kills []kill) {
	fmt.Println()
	fmt.Printf("%-3s %-8s %-20s %-5s %-6s %-8s %s\n", "#", "result", "killed by", "seed", "ops", "time", "mutant")
	survived := 0
	for _, k := range kills {
		result, by, seed, ops := "killed", k.check, strconv.FormatInt(k.seed, 10), strconv.Itoa(k.ops)
		if !k.killed {
			result, by, seed, ops = "SURVIVED", "-", "-", "-"
			survived++
		}
		fmt.Printf("%-3d %-8s %-20s %-5s %-6s %-8s %s\n", k.n, result, by, seed, ops, k.took.Round(time.Second), k.name)
	}
	fmt.Printf("\n%d mutants, %d killed, %d survived\n", len(kills), len(kills)-survived, survived)
}
