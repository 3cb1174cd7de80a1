package main

import (
	"bufio"
	"io"
	"strconv"
	"strings"
)

// result is one benchmark line of `go test -bench` output.
type result struct {
	// name is the benchmark's name without "Benchmark" and without the
	// -GOMAXPROCS suffix, such as "Checkpoint/fenced/ctx=background".
	name string
	// n is the number of iterations.
	n int64
	// metrics holds the values by unit: ns/op, B/op, allocs/op and those
	// the benchmark reported itself.
	metrics map[string]float64
}

// run is what one or more `go test -bench` runs printed.
type run struct {
	results []result
	// cpu is the "cpu:" line's value; notes are lines starting with "#",
	// such as the load average the bench script records.
	cpu   string
	notes []string
	// failures are the lines that report a failed benchmark or package.
	failures []string
}

// parse reads `go test -bench` output.
func parse(r io.Reader) (run, error) {
	var out run
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		trimmed := strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(line, "cpu: "):
			out.cpu = strings.TrimPrefix(line, "cpu: ")
		case strings.HasPrefix(line, "#"):
			out.notes = append(out.notes, strings.TrimSpace(strings.TrimPrefix(line, "#")))
		case strings.HasPrefix(trimmed, "--- FAIL"), trimmed == "FAIL", strings.HasPrefix(trimmed, "FAIL\t"), strings.HasPrefix(trimmed, "panic:"):
			out.failures = append(out.failures, trimmed)
		case strings.HasPrefix(line, "Benchmark"):
			if res, ok := parseResult(line); ok {
				out.results = append(out.results, res)
			}
		}
	}
	return out, sc.Err()
}

// parseResult reads a line such as
//
//	BenchmarkX/y-2   	    3000	    466 ns/op	  1.01 update/set-p50-ratio
func parseResult(line string) (result, bool) {
	f := strings.Fields(line)
	if len(f) < 4 || len(f)%2 != 0 {
		return result{}, false
	}
	n, err := strconv.ParseInt(f[1], 10, 64)
	if err != nil {
		return result{}, false
	}
	res := result{
		name:    trimProcs(strings.TrimPrefix(f[0], "Benchmark")),
		n:       n,
		metrics: map[string]float64{},
	}
	for i := 2; i+1 < len(f); i += 2 {
		v, err := strconv.ParseFloat(f[i], 64)
		if err != nil {
			return result{}, false
		}
		res.metrics[f[i+1]] = v
	}
	return res, true
}

// trimProcs removes the -GOMAXPROCS suffix go test adds to a name.
func trimProcs(name string) string {
	i := strings.LastIndexByte(name, '-')
	if i < 0 || i == len(name)-1 {
		return name
	}
	for _, c := range name[i+1:] {
		if c < '0' || c > '9' {
			return name
		}
	}
	return name[:i]
}

// find returns the result named name, if any.
func (r run) find(name string) (result, bool) {
	for _, res := range r.results {
		if res.name == name {
			return res, true
		}
	}
	return result{}, false
}
