// Package jdktest asks a real JDK, with Debian's Jackson, how Java orders,
// formats and escapes, for the differential tests of the packages that
// reproduce it.
//
// Ask starts Gen.java (embedded here, run by the java source launcher) once
// for a whole batch of questions, since a JVM takes about a second to
// start. Gen.java needs a JDK, not only a JRE. When java or the Jackson jars are missing the test is skipped,
// unless ZKWRITER_REQUIRE_JDK=1, which makes it fail instead: make test
// installs both and sets it.
package jdktest

import (
	"bytes"
	_ "embed"
	"encoding/base64"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// Environment variables that steer where the JDK comes from.
const (
	// EnvRequire, when "1", turns a missing JDK or Jackson into a failure.
	EnvRequire = "ZKWRITER_REQUIRE_JDK"
	// EnvJars names the directory holding jackson-databind.jar,
	// jackson-core.jar and jackson-annotations.jar; Debian's
	// /usr/share/java when unset.
	EnvJars = "ZKWRITER_JACKSON_DIR"
)

// defaultJarDir is where Debian's libjackson2-databind-java puts its jars.
const defaultJarDir = "/usr/share/java"

// jarNames returns the jars Gen.java needs.
func jarNames() []string {
	return []string{"jackson-databind.jar", "jackson-core.jar", "jackson-annotations.jar"}
}

// howTo says how to get what is missing.
const howTo = "install a JDK and Jackson (as root on Debian: apt-get install default-jdk-headless libjackson2-databind-java)"

//go:embed Gen.java
var genSource string

// Question is one question to the JDK: an operation of Gen.java and its
// string arguments.
type Question struct {
	Op   string
	Args []string
}

// Answer is the JDK's answer to one Question: its results, or the
// exception Java threw ("IllegalArgumentException: ...").
type Answer struct {
	Results []string
	Err     string
}

// Ask answers the questions with one run of the JDK, in order. It skips or
// fails t when no JDK can be had (see the package documentation) and fails
// it when the run goes wrong.
func Ask(t testing.TB, questions []Question) []Answer {
	t.Helper()
	return AskProgram(t, "Gen.java", genSource, questions)
}

// AskProgram is Ask for another single-file Java program that speaks
// Gen.java's protocol: source is its text and file its file name, which
// names its public class. It runs with the same class path as Gen.java.
func AskProgram(t testing.TB, file, source string, questions []Question) []Answer {
	t.Helper()
	java, classpath := locate(t)
	dir := t.TempDir()
	src := filepath.Join(dir, file)
	if err := os.WriteFile(src, []byte(source), 0o644); err != nil {
		t.Fatal(err)
	}
	var in bytes.Buffer
	for _, q := range questions {
		in.WriteString(q.Op)
		for _, a := range q.Args {
			in.WriteByte(' ')
			in.WriteString(base64.StdEncoding.EncodeToString([]byte(a)))
		}
		in.WriteByte('\n')
	}
	cmd := exec.Command(java, "-Xshare:auto", "-XX:TieredStopAtLevel=1", "-cp", classpath, src)
	cmd.Stdin = &in
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("java %s: %v\n%s", file, err, stderr.Bytes())
	}
	answers, err := parseAnswers(out, len(questions))
	if err != nil {
		t.Fatalf("java %s: %v\n%s", file, err, stderr.Bytes())
	}
	return answers
}

// locate returns the java command and the class path of the Jackson jars,
// or skips or fails t.
func locate(t testing.TB) (string, string) {
	t.Helper()
	missing := func(what string) {
		t.Helper()
		msg := "differential test against the JDK: " + what + "; " + howTo
		if os.Getenv(EnvRequire) == "1" {
			t.Fatal(msg + " (" + EnvRequire + "=1)")
		}
		t.Skip(msg)
	}
	java, err := exec.LookPath("java")
	if err != nil {
		missing("no java on PATH")
	}
	if _, err := exec.LookPath("javac"); err != nil {
		missing("no javac on PATH: the java source launcher needs a JDK, not a JRE")
	}
	dir := os.Getenv(EnvJars)
	if dir == "" {
		dir = defaultJarDir
	}
	var jars []string
	for _, name := range jarNames() {
		p := filepath.Join(dir, name)
		if _, err := os.Stat(p); err != nil {
			missing("no " + p)
		}
		jars = append(jars, p)
	}
	return java, strings.Join(jars, string(os.PathListSeparator))
}

// parseAnswers parses Gen.java's output, one line per question.
func parseAnswers(out []byte, n int) ([]Answer, error) {
	lines := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	if len(lines) != n {
		return nil, fmt.Errorf("%d answers for %d questions", len(lines), n)
	}
	answers := make([]Answer, n)
	for i, line := range lines {
		if msg, ok := strings.CutPrefix(line, "error "); ok {
			answers[i].Err = msg
			continue
		}
		fields := strings.Split(line, " ")
		count, err := strconv.Atoi(fields[0])
		if err != nil || count != len(fields)-1 {
			return nil, fmt.Errorf("answer %d: malformed line %q", i, line)
		}
		answers[i].Results = make([]string, count)
		for j, f := range fields[1:] {
			b, err := base64.StdEncoding.DecodeString(f)
			if err != nil {
				return nil, fmt.Errorf("answer %d: %v", i, err)
			}
			answers[i].Results[j] = string(b)
		}
	}
	return answers, nil
}
