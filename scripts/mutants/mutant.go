package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// mutant is one line of the code changed. A mutant with pkg set is killed
// by the tests of that package; without, by the torture short form.
type mutant struct {
	name, file, from, to, pkg string
}

// kill is what running the torture suite (or, with pkg set, the tests of
// pkg) against a mutant showed.
type kill struct {
	n      int
	name   string
	pkg    string
	killed bool
	check  string // the check of the first anomaly, or the first test failing
	seed   int64
	ops    int // library calls made when the first anomaly was found
	text   string
	took   time.Duration
}

// line is the one-line summary of k printed as it is found.
func (k kill) line() string {
	if !k.killed {
		return fmt.Sprintf("mutant %d SURVIVED (%v): %s", k.n, k.took.Round(time.Second), k.name)
	}
	if k.pkg != "" {
		return fmt.Sprintf("mutant %d killed by %s of %s (%v): %s", k.n, k.check, k.pkg, k.took.Round(time.Second), k.name)
	}
	text := k.text
	if i := strings.IndexByte(text, '\n'); i >= 0 {
		text = text[:i]
	}
	if len(text) > 160 {
		text = text[:160] + "..."
	}
	return fmt.Sprintf("mutant %d killed by %s, seed %d, after %d operations (%v): %s\n    %s", k.n, k.check, k.seed, k.ops, k.took.Round(time.Second), k.name, text)
}

// readList parses the list: blocks of "name:", "file:", "from:" and "to:"
// lines, and an optional "test:" naming the package whose tests kill the
// mutant (./migrationzk/znode), separated by blank lines; "#" starts a
// comment line. The text of
// from and to starts after the colon and one space, tabs kept.
func readList(path string) ([]mutant, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var mutants []mutant
	var cur mutant
	flush := func() error {
		if cur == (mutant{}) {
			return nil
		}
		if cur.name == "" || cur.file == "" || cur.from == "" || cur.to == "" {
			return fmt.Errorf("%s: incomplete mutant %+v", path, cur)
		}
		mutants = append(mutants, cur)
		cur = mutant{}
		return nil
	}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if err := cur.add(sc.Text(), flush); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	return mutants, flush()
}

// add takes one line of the list into m; a blank line ends m.
func (m *mutant) add(line string, flush func() error) error {
	if strings.TrimSpace(line) == "" {
		return flush()
	}
	if strings.HasPrefix(line, "#") {
		return nil
	}
	key, value, ok := strings.Cut(line, ":")
	value = strings.TrimPrefix(value, " ")
	switch {
	case !ok:
		return fmt.Errorf("line %q: want key: value", line)
	case key == "name":
		m.name = value
	case key == "file":
		m.file = value
	case key == "from":
		m.from = value
	case key == "to":
		m.to = strings.TrimLeft(value, " ")
	case key == "test":
		m.pkg = value
	default:
		return fmt.Errorf("line %q: unknown key %q", line, key)
	}
	return nil
}

// checkAll makes sure every mutant's line occurs exactly once in its file,
// and that no two mutants are the same.
func checkAll(mutants []mutant) error {
	seen := map[string]bool{}
	for i, m := range mutants {
		data, err := os.ReadFile(m.file)
		if err != nil {
			return fmt.Errorf("mutant %d (%s): %w", i+1, m.name, err)
		}
		if n := bytes.Count(data, []byte(m.from+"\n")); n != 1 {
			return fmt.Errorf("mutant %d (%s): %s holds its line %d times, want once: %q", i+1, m.name, m.file, n, m.from)
		}
		key := m.file + "\x00" + m.from + "\x00" + m.to
		if seen[key] {
			return fmt.Errorf("mutant %d (%s) repeats an earlier one", i+1, m.name)
		}
		seen[key] = true
	}
	return nil
}

// run builds mutant number n into dir and hunts it.
func (m mutant) run(dir string, n int, first, last int64) (kill, error) {
	start := time.Now()
	binary, err := m.build(dir, n)
	if err != nil {
		return kill{}, err
	}
	var k kill
	if m.pkg != "" {
		k, err = m.test(binary)
	} else {
		k, err = m.hunt(binary, first, last)
	}
	k.n, k.pkg, k.took = n, m.pkg, time.Since(start)
	return k, err
}

// suite is the package whose test binary m is built into.
func (m mutant) suite() string {
	if m.pkg != "" {
		return m.pkg
	}
	return "./internal/torture"
}

// build compiles the test binary of m's suite with m applied, into dir,
// without touching the source tree: the mutated file is given to the go
// command as an overlay. It returns the binary's path.
func (m mutant) build(dir string, n int) (string, error) {
	data, err := os.ReadFile(m.file)
	if err != nil {
		return "", err
	}
	source, err := filepath.Abs(m.file)
	if err != nil {
		return "", err
	}
	mutated := filepath.Join(dir, fmt.Sprintf("mutant%d.go", n))
	if err := os.WriteFile(mutated, bytes.Replace(data, []byte(m.from+"\n"), []byte(m.to+"\n"), 1), 0o644); err != nil {
		return "", err
	}
	overlay, err := json.Marshal(map[string]map[string]string{"Replace": {source: mutated}})
	if err != nil {
		return "", err
	}
	overlayFile := filepath.Join(dir, fmt.Sprintf("mutant%d.json", n))
	if err := os.WriteFile(overlayFile, overlay, 0o644); err != nil {
		return "", err
	}
	binary := filepath.Join(dir, fmt.Sprintf("mutant%d.test", n))
	out, err := exec.Command("go", "test", "-c", "-overlay", overlayFile, "-o", binary, m.suite()).CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("does not compile:\n%s", out)
	}
	return binary, nil
}

// hunt runs the torture short form in binary with each seed from first to
// last until one kills the mutant.
func (m mutant) hunt(binary string, first, last int64) (kill, error) {
	start := time.Now()
	k := kill{name: m.name}
	for seed := first; seed <= last; seed++ {
		report, err := torture(binary, seed)
		if err != nil {
			return k, err
		}
		if len(report.Anomalies) > 0 {
			a := report.Anomalies[0]
			k.killed, k.check, k.seed, k.ops, k.text = true, a.Check, seed, a.Ops, a.Text
			break
		}
	}
	k.took = time.Since(start)
	return k, nil
}

// test runs the tests of m's package in binary (unit tests, examples and
// the seed corpora of its fuzz targets) and reports the first that fails.
func (m mutant) test(binary string) (kill, error) {
	start := time.Now()
	k := kill{name: m.name}
	cmd := exec.Command(binary, "-test.count=1", "-test.timeout=5m", "-test.failfast", "-test.short")
	cmd.Dir = m.pkg
	out, err := cmd.CombinedOutput()
	k.took = time.Since(start)
	var exitErr *exec.ExitError
	if err != nil && !errors.As(err, &exitErr) {
		return k, err
	}
	if err == nil {
		return k, nil
	}
	k.killed, k.check = true, "a test"
	for _, line := range strings.Split(string(out), "\n") {
		if name, ok := strings.CutPrefix(strings.TrimSpace(line), "--- FAIL: "); ok {
			k.check, _, _ = strings.Cut(name, " ")
			break
		}
		if strings.HasPrefix(line, "panic: ") {
			k.check = "a panic"
			break
		}
	}
	k.text = tail(out)
	return k, nil
}

// report is the part of the torture report the table needs.
type report struct {
	Ops       int
	Anomalies []struct {
		Check string
		Ops   int
		Text  string
	}
}

// torture runs the torture short form of binary alone with seed, stopping
// at the first anomaly, and returns its report.
func torture(binary string, seed int64) (report, error) {
	dir, err := os.MkdirTemp("", "mutants")
	if err != nil {
		return report{}, err
	}
	defer os.RemoveAll(dir)
	file := filepath.Join(dir, "report.json")
	cmd := exec.Command(binary, "-test.count=1", "-test.timeout=20m", "-test.run=^TestTorture$")
	cmd.Dir = "internal/torture"
	cmd.Env = append(os.Environ(), "ZKWRITER_REQUIRE_ZK=1", "TORTURE_STOP_AT_FIRST=1",
		fmt.Sprintf("TORTURE_SEED=%d", seed), "TORTURE_REPORT="+file)
	out, runErr := cmd.CombinedOutput()
	data, err := os.ReadFile(file)
	if err != nil && runErr != nil && bytes.Contains(out, []byte("panic: ")) {
		// The suite crashed on the mutant: a kill too.
		return crashed(out), nil
	}
	if err != nil {
		return report{}, fmt.Errorf("seed %d: no report (%v):\n%s", seed, runErr, tail(out))
	}
	var r report
	if err := json.Unmarshal(data, &r); err != nil {
		return report{}, fmt.Errorf("seed %d: report: %w", seed, err)
	}
	var exitErr *exec.ExitError
	if runErr != nil && !errors.As(runErr, &exitErr) {
		return report{}, fmt.Errorf("seed %d: %w", seed, runErr)
	}
	return r, nil
}

// tail returns the last lines of out.
func tail(out []byte) string {
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	return strings.Join(lines[max(0, len(lines)-30):], "\n")
}

// crashed is the report of a run that panicked: one anomaly of check
// "crash" holding the panic's first line.
func crashed(out []byte) report {
	line := string(out[bytes.Index(out, []byte("panic: ")):])
	if i := strings.IndexByte(line, '\n'); i >= 0 {
		line = line[:i]
	}
	var r report
	r.Anomalies = append(r.Anomalies, struct {
		Check string
		Ops   int
		Text  string
	}{Check: "crash", Text: line})
	return r
}
