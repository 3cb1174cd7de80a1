package sasl_test

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/kraftmigration/zkwriter/migrationzk/zkconn/sasl"
)

// jaasConfigCase is a value of sasl.jaas.config and what it reads as:
// nil entries for an error.
type jaasConfigCase struct {
	name, value string
	want        []sasl.JAASEntry
}

func entry(module, flag string, options ...string) sasl.JAASEntry {
	e := sasl.JAASEntry{LoginModule: module, Flag: flag, Options: map[string]string{}}
	for i := 0; i+1 < len(options); i += 2 {
		e.Options[options[i]] = options[i+1]
	}
	return e
}

// jaasConfigCases are sasl.jaas.config values, valid and not, and what
// Kafka's clients read from them.
func jaasConfigCases() []jaasConfigCase {
	plain := "org.apache.kafka.common.security.plain.PlainLoginModule"
	return []jaasConfigCase{
		{"kafka's example", plain + ` required username="alice" password="alice-secret";`,
			[]sasl.JAASEntry{entry(plain, "required", "username", "alice", "password", "alice-secret")}},
		{"single quotes", `a.B required password='p"q' user=bob;`, []sasl.JAASEntry{entry("a.B", "required", "password", `p"q`, "user", "bob")}},
		{"two entries", "a.B required x=y;\n c.D Optional;", []sasl.JAASEntry{entry("a.B", "required", "x", "y"), entry("c.D", "optional")}},
		{"flag in any case", `a.B SuFfIcIeNt;`, []sasl.JAASEntry{entry("a.B", "sufficient")}},
		{"spaces around =", "a.B requisite\tx =\n\"y\" ;", []sasl.JAASEntry{entry("a.B", "requisite", "x", "y")}},
		{"comments", "/* c */ a.B required // to the end\n y=\"z\" /**/;", []sasl.JAASEntry{entry("a.B", "required", "y", "z")}},
		{"escapes", `a.B required x="a\tb\101\\\"c\400\q";`, []sasl.JAASEntry{entry("a.B", "required", "x", "a\tbA\\\"c 0q")}},
		{"escaped newline", "a.B required x=\"a\\\nb\";", []sasl.JAASEntry{entry("a.B", "required", "x", "a\nb")}},
		{"quote ends at the line's end", "a.B required x=\"abc\n;", []sasl.JAASEntry{entry("a.B", "required", "x", "abc")}},
		{"duplicate option", `a.B required x="1" x="2";`, []sasl.JAASEntry{entry("a.B", "required", "x", "2")}},
		{"no expansion", `a.B required keyTab="${user.home}/k";`, []sasl.JAASEntry{entry("a.B", "required", "keyTab", "${user.home}/k")}},
		{"word characters", `a.B required x=a-b.c_d$e9 y=_x z=$y;`, []sasl.JAASEntry{entry("a.B", "required", "x", "a-b.c_d$e9", "y", "_x", "z", "$y")}},
		{"non-ASCII words", "a.B required x=päss€ y=ÿ;", []sasl.JAASEntry{entry("a.B", "required", "x", "päss€", "y", "ÿ")}},
		{"quoted module, flag and name", `"a.B" "required" "k"="v";`, []sasl.JAASEntry{entry("a.B", "required", "k", "v")}},
		{"a name that is a number", `a.B required 5=x y=z;`, []sasl.JAASEntry{entry("a.B", "required", "y", "z")}},
		{"unterminated comment after an entry", `a.B required; /* open`, []sasl.JAASEntry{entry("a.B", "required")}},
		{"empty quoted value", `a.B required x="";`, []sasl.JAASEntry{entry("a.B", "required", "x", "")}},
		{"bare number", `a.B required password=1234;`, nil},
		{"bare path", `a.B required keyTab=/etc/k.keytab;`, nil},
		{"lone slash", `a.B required x="1" / y="2";`, nil},
		{"value starting with -", `a.B required x=-abc;`, nil},
		{"value starting with .", `a.B required x=.5;`, nil},
		{"bare value with @", `a.B required user=alice@example.com;`, nil},
		{"no semicolon", `a.B required x="y"`, nil},
		{"unterminated quote at the end", `a.B required password="s3cr3t`, nil},
		{"empty", ``, nil},
		{"only a comment", `  /* nothing */ `, nil},
		{"no flag", `a.B;`, nil},
		{"flag missing at the end", `a.B`, nil},
		{"unknown flag", `a.B mandatory;`, nil},
		{"option without value", `a.B required x;`, nil},
		{"option with empty value", `a.B required x=;`, nil},
		{"semicolon twice", `a.B required;;`, nil},
		{"words after the last entry", `a.B required; garbage`, nil},
		{"empty quoted module", `"" required;`, nil},
		{"section braces", `Client { a.B required; };`, nil},
		{"C1 control character", "a.B required x=a\u0085b;", nil},
		{"unterminated comment in an entry", `a.B required /* x="y";`, nil},
	}
}

// ParseJAASConfig reads each value as Kafka's clients do, and refuses
// what they refuse, with a *JAASError that holds no part of the value.
func TestParseJAASConfig(t *testing.T) {
	for _, c := range jaasConfigCases() {
		got, err := sasl.ParseJAASConfig(c.value)
		if c.want == nil {
			var je *sasl.JAASError
			if !errors.As(err, &je) || je.Path != "" {
				t.Errorf("%s: %v, %v; want a *JAASError", c.name, got, err)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: %+v, %v; want %+v", c.name, got, err, c.want)
		}
	}
}

// An error names the line where the entry went wrong.
func TestParseJAASConfigErrorLine(t *testing.T) {
	_, err := sasl.ParseJAASConfig("a.B required;\nc.D required\n  x=\"y\"\n  z;\n")
	var je *sasl.JAASError
	if !errors.As(err, &je) || je.Line != 4 || !strings.Contains(err.Error(), "line 4: entry 2: option 2 has no value") {
		t.Fatalf("%v; want line 4, entry 2, option 2", err)
	}
}

// No error of ParseJAASConfig shows a secret, whatever token it stops at.
func TestParseJAASConfigErrorsHideValues(t *testing.T) {
	for _, value := range []string{
		`a.B required password=s3cr3t tail;`, `a.B required password=s3cr3t tail=;`, `a.B required password="s3cr3t`,
		`s3cr3t;`, `a.B s3cr3t;`, `a.B required password=s3cr3t/x;`, `a.B required password=s3cr3t "s3cr3t";`,
	} {
		_, err := sasl.ParseJAASConfig(value)
		if err == nil || strings.Contains(err.Error(), "s3cr3t") {
			t.Errorf("%q: %v; want an error without the secret", value, err)
		}
	}
}

// Each value reads in Go as the JDK's StreamTokenizer, set up as Kafka
// sets it up, reads it (testdata/JaasConfigDump.java).
func TestParseJAASConfigAgainstJDK(t *testing.T) {
	cases := jaasConfigCases()
	values := make([]string, len(cases))
	for i, c := range cases {
		values[i] = c.value
	}
	jdk := runJava(t, "JaasConfigDump.java", nil, values)
	for i, c := range cases {
		if got := dumpJAASConfig(c.value); got != jdk[i] {
			t.Errorf("%s %q:\ngo:  %s\njdk: %s", c.name, c.value, got, jdk[i])
		}
	}
}

// dumpJAASConfig prints what ParseJAASConfig reads as JaasConfigDump.java
// prints it.
func dumpJAASConfig(value string) string {
	entries, err := sasl.ParseJAASConfig(value)
	if err != nil {
		return "error\n"
	}
	var b strings.Builder
	for _, e := range entries {
		writeEntry(&b, "", e)
	}
	return b.String()
}
