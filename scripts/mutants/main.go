// Command mutants checks that the suites catch a wrong rule. It applies,
// one at a time, each one-line mutant of its lists and runs the suite that
// must kill it: for the landing and tenure rules (mutants.txt), the
// torture short form alone, over a range of seeds until an anomaly kills
// it; for the pure data rules (data.txt: decoders, validation, the
// password encoder), the unit and fuzz-seed tests of the package the
// mutant's "test:" line names. It prints the kill table: which check or
// test killed each mutant, with which seed, after how many operations, in
// how long. It exits 1 when a mutant survives, and 2 when a list no longer
// matches the code. The source tree is never changed: each mutant is
// compiled from an overlay. Mutants are built and run -parallel at a time.
//
//	go run ./scripts/mutants [-list scripts/mutants/mutants.txt,scripts/mutants/data.txt] [-seeds 1-3] [-only N,M] [-parallel 2]
package main

import (
	"flag"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

func main() {
	lists := flag.String("list", "scripts/mutants/mutants.txt,scripts/mutants/data.txt", "the lists of mutants, comma-separated; mutants are numbered across them")
	seeds := flag.String("seeds", "1-3", "the seeds to try against each torture mutant, FIRST-LAST")
	only := flag.String("only", "", "run only mutants N,M,... (1-based, across the lists); empty runs them all")
	parallel := flag.Int("parallel", 2, "how many mutants to build and run at once")
	flag.Parse()
	from, to, err := seedRange(*seeds)
	if err != nil {
		fail(2, err)
	}
	chosen, err := numbers(*only)
	if err != nil {
		fail(2, err)
	}
	var mutants []mutant
	for _, list := range strings.Split(*lists, ",") {
		ms, err := readList(list)
		if err != nil {
			fail(2, err)
		}
		mutants = append(mutants, ms...)
	}
	if err := checkAll(mutants); err != nil {
		fail(2, err)
	}
	dir, err := os.MkdirTemp("", "mutants")
	if err != nil {
		fail(2, err)
	}
	start := time.Now()
	kills, err := huntAll(dir, mutants, chosen, from, to, max(1, *parallel))
	os.RemoveAll(dir)
	if err != nil {
		fail(2, err)
	}
	printTable(kills, time.Since(start))
	for _, k := range kills {
		if !k.killed {
			os.Exit(1)
		}
	}
}

// huntAll builds and hunts every mutant (or only those numbered in only), in
// dir, parallel at a time, with the seeds from first to last, printing
// each result as it is known. It returns the kills in the lists' order.
func huntAll(dir string, mutants []mutant, only map[int]bool, first, last int64, parallel int) ([]kill, error) {
	var mu sync.Mutex
	var kills []kill
	var errs []error
	jobs := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < parallel; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				k, err := mutants[i].run(dir, i+1, first, last)
				mu.Lock()
				if err != nil {
					err = fmt.Errorf("mutant %d (%s): %w", i+1, mutants[i].name, err)
					fmt.Fprintln(os.Stderr, "mutants:", err)
					errs = append(errs, err)
				} else {
					fmt.Println(k.line())
					kills = append(kills, k)
				}
				mu.Unlock()
			}
		}()
	}
	for i := range mutants {
		if len(only) == 0 || only[i+1] {
			jobs <- i
		}
	}
	close(jobs)
	wg.Wait()
	if len(errs) > 0 {
		return nil, errs[0]
	}
	sort.Slice(kills, func(i, j int) bool { return kills[i].n < kills[j].n })
	return kills, nil
}

// numbers parses N,M,... into a set; "" is the empty set.
func numbers(s string) (map[int]bool, error) {
	set := map[int]bool{}
	for _, f := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' }) {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			return nil, fmt.Errorf("-only %q: want mutant numbers N,M,... from 1", s)
		}
		set[n] = true
	}
	return set, nil
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

// printTable prints the kill table and the time the whole run took.
func printTable(kills []kill, took time.Duration) {
	fmt.Println()
	fmt.Printf("%-3s %-8s %-34s %-5s %-6s %-6s %s\n", "#", "result", "killed by", "seed", "ops", "time", "mutant")
	survived := 0
	for _, k := range kills {
		result, by, seed, ops := "killed", k.check, strconv.FormatInt(k.seed, 10), strconv.Itoa(k.ops)
		if k.pkg != "" {
			seed, ops = "-", "-"
		}
		if !k.killed {
			result, by, seed, ops = "SURVIVED", "-", "-", "-"
			survived++
		}
		fmt.Printf("%-3d %-8s %-34s %-5s %-6s %-6s %s\n", k.n, result, by, seed, ops, k.took.Round(time.Second), k.name)
	}
	fmt.Printf("\n%d mutants, %d killed, %d survived, in %v\n", len(kills), len(kills)-survived, survived, took.Round(time.Second))
}
