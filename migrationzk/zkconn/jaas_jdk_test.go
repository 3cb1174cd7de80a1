package zkconn

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
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
	java, err := exec.LookPath("java")
	if err != nil {
		if os.Getenv("ZKWRITER_REQUIRE_ZK") == "1" {
			t.Fatalf("no java: %v", err)
		}
		t.Skipf("no java: %v", err)
	}
	dir := t.TempDir()
	samples := jaasSamples()
	args := []string{filepath.Join("testdata", "JAASDump.java"), "Client,client,Other"}
	for i, s := range samples {
		path := filepath.Join(dir, fmt.Sprintf("%d.conf", i))
		if err := os.WriteFile(path, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
		args = append(args, path)
	}
	out, err := exec.Command(java, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("java: %v\n%s", err, out)
	}
	jdk := splitDumps(string(out))
	if len(jdk) != len(samples) {
		t.Fatalf("java printed %d files, want %d:\n%s", len(jdk), len(samples), out)
	}
	for i, s := range samples {
		if got := dumpJAAS(s); got != jdk[i] {
			t.Errorf("sample %d %q:\nzkconn: %s\njdk:    %s", i, s, got, jdk[i])
		}
	}
}

func splitDumps(out string) []string {
	var dumps []string
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		if strings.HasPrefix(line, "file ") {
			dumps = append(dumps, "")
			continue
		}
		if len(dumps) > 0 {
			dumps[len(dumps)-1] += line + "\n"
		}
	}
	return dumps
}

// dumpJAAS prints what parseJAAS reads from src as JAASDump.java does.
func dumpJAAS(src string) string {
	sections, err := parseJAAS(src)
	var je *JAASError
	if err != nil {
		if !errors.As(err, &je) {
			return "unexpected " + err.Error()
		}
		return "error\n"
	}
	var b strings.Builder
	for _, name := range []string{"Client", "client", "Other"} {
		for _, e := range sections[name] {
			fmt.Fprintf(&b, "%s %s %s", name, e.module, e.flag)
			keys := append([]string(nil), e.keys...)
			sort.Strings(keys)
			for _, k := range keys {
				fmt.Fprintf(&b, " %s=%s", jdkEscape(k), jdkEscape(e.options[k]))
			}
			b.WriteString("\n")
		}
	}
	return b.String()
}

func jdkEscape(s string) string {
	return strings.NewReplacer(`\`, `\\`, "\n", `\n`, " ", `\s`, "\t", `\t`).Replace(s)
}
