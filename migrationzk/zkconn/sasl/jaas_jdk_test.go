package sasl_test

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/kraftmigration/zkwriter/migrationzk/zkconn/sasl"
)

// jaasSamples are JAAS files, valid and not, on which the parser must
// read what the JDK's reads. ${} expansion is left out: the JDK expands
// it, and zkconn refuses it.
func jaasSamples() []string {
	return []string{
		"Client {\n  org.apache.zookeeper.server.auth.DigestLoginModule required\n  username=\"kafka\"\n  password=\"kafka-secret\";\n};\n",
		"Client { a.B Required x=unquoted y=\"q u o t e d\"; c.D OPTIONAL; };\nOther { e.F sufficient; };",
		"// comment\nClient { /* block\ncomment */ a.B requisite p=\"a\\\"b\\\\c\\nd\\te\"; };",
		"client { a.B required; };",
		"Client { a.B required; };;",
		"Client { a.B required };",
		"Client { a.B mandatory; };",
		"Client { a.B required x; };",
		"Client { a.B required x=; };",
		"Client { a.B required x=\"1\" x=\"2\"; };",
		"Client { a.B required; }",
		"Client { a.B required; }; Client { c.D required; };",
		"# not a comment\nClient { a.B required; };",
		"Client{a.B required k=\"v\";};Other{a.B required;};",
		"Client { a.B required keyTab=\"C:\\\\keytabs\\\\kafka.keytab\" principal=\"kafka/h@R\"; };",
		"Client { a.B required u=\"päss€\"; };",
		"Client { };",
		"",
		"Client { a.B required x=\"unterminated; };",
	}
}

// The parser reads every sample as the JDK's JAAS parser reads it, or
// refuses it as the JDK does.
func TestJAASAgainstJDK(t *testing.T) {
	samples := jaasSamples()
	jdk := runJava(t, "JAASDump.java", []string{"Client,client,Other"}, samples)
	for i, s := range samples {
		if got := dumpJAAS(s); got != jdk[i] {
			t.Errorf("sample %d %q:\ngo:  %s\njdk: %s", i, s, got, jdk[i])
		}
	}
}

// dumpJAAS prints what ParseJAAS reads from src as JAASDump.java does.
func dumpJAAS(src string) string {
	sections, err := sasl.ParseJAAS(src)
	if err != nil {
		if !errors.As(err, new(*sasl.JAASError)) {
			return "unexpected " + err.Error()
		}
		return "error\n"
	}
	var b strings.Builder
	for _, name := range []string{"Client", "client", "Other"} {
		for _, e := range sections[name] {
			writeEntry(&b, name+" ", e)
		}
	}
	return b.String()
}

// runJava runs the program testdata/program with args, then a file for
// each input holding it, and returns what it printed for each input.
// It skips t without java, or fails it under ZKWRITER_REQUIRE_JDK=1 or
// ZKWRITER_REQUIRE_ZK=1.
func runJava(t *testing.T, program string, args, inputs []string) []string {
	t.Helper()
	java, err := exec.LookPath("java")
	if err != nil {
		if os.Getenv("ZKWRITER_REQUIRE_JDK") == "1" || os.Getenv("ZKWRITER_REQUIRE_ZK") == "1" {
			t.Fatalf("no java: %v", err)
		}
		t.Skipf("no java: %v", err)
	}
	dir := t.TempDir()
	args = append([]string{filepath.Join("testdata", program)}, args...)
	for i, in := range inputs {
		path := filepath.Join(dir, fmt.Sprintf("%d.txt", i))
		if err := os.WriteFile(path, []byte(in), 0o600); err != nil {
			t.Fatal(err)
		}
		args = append(args, path)
	}
	out, err := exec.Command(java, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("java: %v\n%s", err, out)
	}
	var dumps []string
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if strings.HasPrefix(line, "file ") {
			dumps = append(dumps, "")
			continue
		}
		if len(dumps) > 0 {
			dumps[len(dumps)-1] += line + "\n"
		}
	}
	if len(dumps) != len(inputs) {
		t.Fatalf("java printed %d inputs, want %d:\n%s", len(dumps), len(inputs), out)
	}
	return dumps
}

// writeEntry prints e, after prefix, as the programs of testdata do: its
// login module, flag, and options sorted by name, escaped.
func writeEntry(b *strings.Builder, prefix string, e sasl.JAASEntry) {
	fmt.Fprintf(b, "%s%s %s", prefix, e.LoginModule, e.Flag)
	keys := make([]string, 0, len(e.Options))
	for k := range e.Options {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(b, " %s=%s", javaEscape(k), javaEscape(e.Options[k]))
	}
	b.WriteString("\n")
}

// javaEscape escapes s as the programs of testdata do, by UTF-16 unit:
// a backslash doubled, others outside printable ASCII as \uXXXX.
func javaEscape(s string) string {
	var b strings.Builder
	for _, u := range utf16.Encode([]rune(s)) {
		switch {
		case u == '\\':
			b.WriteString(`\\`)
		case u < 0x21 || u > 0x7e:
			fmt.Fprintf(&b, `\u%04x`, u)
		default:
			b.WriteRune(rune(u))
		}
	}
	return b.String()
}
