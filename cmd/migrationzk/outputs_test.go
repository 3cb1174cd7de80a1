package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/kraftmigration/zkwriter/migrationzk"
	"github.com/kraftmigration/zkwriter/migrationzk/zktest"
	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

// failureCase is one kind of failure: the flags and environment that
// bring it about, and what the error says.
type failureCase struct {
	kind  string
	flags []string
	env   []string
	want  string
	// after are flags given after the command's arguments.
	after []string
	// writes limits the case to the commands that write.
	writes bool
	// parse says the flags fail to parse, before export knows where its
	// image would go: the json is on stdout for every command.
	parse bool
}

// outputCommands are every command that reads ZooKeeper, as run in the
// matrix: each export form, diff of the live cluster with itself, the
// kraft commands with KRaft's metadata in kraft.
func outputCommands(dir, kraft string) map[string][]string {
	return map[string][]string{
		"status":                {"status"},
		"rollback-check":        {"rollback-check"},
		"rollback-fix":          {"rollback-fix"},
		"repair-null-migration": {"repair-null-migration"},
		"export":                {"export"},
		"export-file":           {"export", "--output", filepath.Join(dir, "image.json")},
		"diff":                  {"diff", "live", "live"},
		"kraft status":          {"kraft", "status", kraft},
		"kraft diff":            {"kraft", "diff", kraft},
		"kraft sync":            {"kraft", "sync", kraft},
	}
}

// commandOf is the name of the command args run: its first argument, and
// the second after kraft.
func commandOf(args []string) string {
	if args[0] == "kraft" {
		return args[0] + " " + args[1]
	}
	return args[0]
}

// TestOutputMatrix runs every command with every kind of failure, in text
// and json: exit 2, the error on stderr in text; in json exactly one JSON
// object with the command, the error and its error_kind, on stdout (on
// stderr for export writing its image to stdout, stdout then empty).
// Fault: usage (a bad flag value, an empty --zk, a server that can
// never be reached: IPv6 without brackets, too many colons; a duration
// without a unit; a writing command without --zk or $ZK_SERVERS;
// --apply off a terminal without --yes; each usage error of the kraft
// commands and of lag --metadata-dir), tls_config, tls (a plaintext
// client at a TLS port),
// sasl_config, a refused SASL password, no SASL where the server enforces
// authentication, bad digest credentials,
// not_authorized, unreachable, no_kafka_metadata.
func TestOutputMatrix(t *testing.T) {
	plain := zktest.Start(t)
	admin := plain.Connect(t)
	ok := newCluster(t, plain, admin, "matrix")
	ok.seedKafka(43, uniform("orders", 2, 43))
	ok.zkController(1)
	denied := newCluster(t, plain, admin, "denied")
	denied.seedKafka(43, uniform("orders", 2, 43))
	denied.zkController(1)
	migration := denied.root + znode.MigrationPath
	if _, err := admin.Create(migration, []byte(`{"version":0}`), 0, worldACL); err != nil {
		t.Fatal(err)
	}
	other := zk.DigestACL(zk.PermAll, "someone", "else")
	for _, p := range []string{migration, denied.root + znode.TopicsPath + "/orders"} {
		if _, err := admin.SetACL(p, other, -1); err != nil {
			t.Fatal(err)
		}
	}
	unconfirmed := newCluster(t, plain, admin, "unconfirmed")
	unconfirmed.seedKafka(43, uniform("orders", 2, 50))
	unconfirmed.migration(nil)
	kraft := smallMetadata(t)
	s := startSecured(t)
	sc := s.kafkaCluster(t, "secured")
	sasl := saslCluster(t)
	plainZK := []string{"--zk", strings.Join(plain.Servers, ","), "--timeout", "30s"}
	securedZK := []string{"--zk", strings.Join(s.srv.Servers, ",") + sc.root, "--timeout", "30s"}
	saslZK := []string{"--zk", strings.Join(sasl.srv.Servers, ",") + sasl.root, "--timeout", "30s"}
	cases := []failureCase{
		{kind: kindUsage, flags: append(plainZK, "--root", ok.root, "--timeout", "0s"), want: "--timeout 0s: must be positive"},
		{kind: kindTLSConfig, flags: append(securedZK, "--zk-tls-config-file", s.files["unknown-key"]), want: "zookeeper.ssl.keystore.locaton: unknown property: did you mean zookeeper.ssl.keystore.location?"},
		{kind: kindTLS, flags: securedZK, want: "the server speaks TLS on this port (secureClientPort); pass --zk-tls-config-file"},
		{kind: kindSASLConfig, flags: append(saslZK, "--zk-jaas-config", "/nonexistent/jaas.conf"), want: "--zk-jaas-config: sasl: JAAS file /nonexistent/jaas.conf"},
		{kind: kindCredentials, flags: append(saslZK, "--zk-jaas-config", tempFile(t, "wrong.conf", kafkaJAAS(wrongSASLPassword))), want: "SASL DIGEST-MD5 authentication with"},
		{kind: kindCredentials, flags: saslZK, want: "bad credentials: the server requires authentication (enforce.auth.enabled)"},
		{kind: kindCredentials, flags: append(securedZK, "--zk-tls-config-file", s.files["operator"]), env: []string{digestEnv + "=" + superUser + ":" + wrongPassword}, want: `bad credentials: digest user "super"`},
		{kind: kindNotAuthorized, flags: append(plainZK, "--root", denied.root), want: "not authorized for path " + denied.root},
		{kind: kindUnreachable, flags: []string{"--zk", "127.0.0.1:1", "--timeout", "30s"}, want: "connection refused"},
		{kind: kindNoKafka, flags: append(plainZK, "--root", "/no-such-root"), want: "no Kafka metadata found under /no-such-root"},
		{kind: kindUsage, flags: []string{"--zk", "", "--timeout", "30s"}, want: "--zk is empty (an unset shell variable?)"},
		{kind: kindUsage, flags: []string{"--zk", "::1:37429/kafka", "--timeout", "30s"}, want: `server "::1:37429": an IPv6 address needs brackets: [::1]:37429`},
		{kind: kindUsage, flags: []string{"--zk", "127.0.0.1:1:2", "--timeout", "30s"}, want: `server "127.0.0.1:1:2": too many colons`},
		{kind: kindUsage, flags: plainZK, after: []string{"--timeout", "5"}, parse: true, want: `invalid value "5" for flag -timeout: a duration needs a unit: did you mean 5s?`},
		{kind: kindUsage, flags: []string{"--root", ok.root}, writes: true, want: "writes to ZooKeeper: name the servers with --zk or $ZK_SERVERS; the default 127.0.0.1:2181 serves only the commands that read"},
		{kind: kindUsage, flags: append(plainZK, "--root", unconfirmed.root), after: []string{"--apply"}, writes: true, want: "cannot ask before it writes: nothing was written; add --yes to write"},
	}
	t.Run("tls-client-at-plaintext-port", func(t *testing.T) {
		start := time.Now()
		r := runBinary(t, nil, append(append([]string{}, plainZK...), "--root", ok.root, "--zk-tls-config-file", s.files["kafka"], "--output", "json", "status")...)
		elapsed := time.Since(start)
		var got errorReport
		r.decode(t, &got)
		if r.code != exitError || got.Kind != kindTLS || !strings.Contains(got.Error, "the server speaks plaintext on this port (clientPort)") || elapsed > fastFail {
			t.Fatalf("after %v: %+v\n%s", elapsed, got, r)
		}
		t.Logf("a TLS client at a plaintext port fails in %v", elapsed.Round(time.Millisecond))
	})
	t.Run("server-properties", func(t *testing.T) {
		props := s.properties(t, "server", filepath.Join(s.dir, "ca.pem"), filepath.Join(s.dir, "kafka.pem"),
			"broker.id=1", "log.dirs=/var/lib/kafka", "zookeeper.ssl.hostnameVerification=false")
		r := sc.runAs(props, nil, "status")
		wantCode(t, r, exitOK)
		want := "ignored, as Kafka's tools ignore them: broker.id, log.dirs, zookeeper.ssl.hostnameVerification (ZooKeeper's name; Kafka's key is zookeeper.ssl.endpoint.identification.algorithm)"
		if strings.Count(r.stderr, want) != 1 {
			t.Fatalf("want the ignored keys listed once on stderr:\n%s", r)
		}
	})
	for _, fc := range cases {
		for name, args := range outputCommands(t.TempDir(), kraft) {
			if fc.writes && !findCommand(commandOf(args)).writes {
				continue
			}
			for _, mode := range []string{"text", "json"} {
				start := time.Now()
				flags := append(append([]string{}, fc.flags...), "--output", mode)
				r := runBinary(t, fc.env, append(append(flags, args...), fc.after...)...)
				label := fc.kind + "/" + name + "/" + mode
				if d := time.Since(start); d > fastFail {
					t.Errorf("%s: took %v", label, d)
				} else if label == kindTLS+"/status/text" {
					t.Logf("a plaintext client at a TLS port fails in %v", d.Round(time.Millisecond))
				}
				checkFailureOutput(t, label, r, fc, commandOf(args), mode == "json", name == "export" && !fc.parse)
			}
		}
	}
	t.Run("kraft-usage", func(t *testing.T) { kraftUsageErrors(t, append(plainZK, "--root", ok.root), kraft) })
	unconfirmed.unchanged(znode.ControllerEpochPath, []byte("43"), 43)
	unconfirmed.unchanged(znode.MigrationPath, nil, 0)
}

// kraftUsageErrors runs each usage error of the kraft commands and of
// lag --metadata-dir, in text and json, with flags and KRaft's metadata
// in kraft: exit 2, error_kind usage, before anything is dialled or read.
func kraftUsageErrors(t *testing.T, flags []string, kraft string) {
	for _, u := range []struct {
		command string
		args    []string
		want    string
		// toStderr: the json goes to stderr, as export's does when its
		// image would go to stdout.
		toStderr bool
	}{
		{"", []string{"kraft"}, "kraft needs a command: status, diff, export or sync", false},
		{"", []string{"kraft", "frob"}, `unknown command "kraft frob": kraft has status, diff, export or sync`, false},
		{"kraft diff", []string{"kraft", "diff"}, "give KRaft's metadata: a Kafka log directory", false},
		{"kraft status", []string{"kraft", "status", kraft, kraft}, "want one metadata directory or file, got 2", false},
		{"kraft diff", []string{"kraft", "diff", kraft, "--at", "x"}, `invalid value "x" for flag -at: want an offset of the metadata log, a whole number from 0`, false},
		{"kraft sync", []string{"kraft", "sync"}, "give KRaft's metadata", false},
		{"kraft sync", []string{"kraft", "sync", kraft, "--controller-id", "-5"}, `invalid value "-5" for flag -controller-id: want a KRaft controller's id, a whole number from 0 to 2147483647`, false},
		{"kraft export", []string{"kraft", "export", kraft, "--include-secrets"}, "--include-secrets writes secrets only to a file", true},
		{"lag", []string{"lag", "--metadata-dir", kraft, "--bootstrap-controller", "c1:9093"}, "--metadata-dir and a quorum to ask", false},
	} {
		for _, mode := range []string{"text", "json"} {
			r := runBinary(t, nil, append(append(append([]string{}, flags...), "--output", mode), u.args...)...)
			checkFailureOutput(t, strings.Join(u.args, " ")+"/"+mode, r, failureCase{kind: kindUsage, want: u.want}, u.command, mode == "json", u.toStderr)
		}
	}
}

// checkFailureOutput checks one run of the matrix.
func checkFailureOutput(t *testing.T, label string, r result, fc failureCase, command string, json, toStderr bool) {
	t.Helper()
	if r.code != exitError {
		t.Errorf("%s: exit %d, want %d\n%s", label, r.code, exitError, r)
		return
	}
	if !json {
		if !strings.Contains(r.stderr, fc.want) {
			t.Errorf("%s: stderr lacks %q\n%s", label, fc.want, r)
		}
		return
	}
	out, stray := r.stdout, r.stderr
	if toStderr {
		out, stray = r.stderr, r.stdout
	}
	var got errorReport
	if err := decodeOne(out, &got); err != nil || stray != "" && toStderr {
		t.Errorf("%s: want one JSON object there and nothing on the image's stdout: %v\n%s", label, err, r)
		return
	}
	if got.Schema != schemaVersion || got.Command != command || got.Kind != fc.kind || !strings.Contains(got.Error, fc.want) {
		t.Errorf("%s: json %+v, want command %s, kind %s, error with %q\n%s", label, got, command, fc.kind, fc.want, r)
	}
}

// decodeOne decodes s, which must be exactly one JSON object, into v.
func decodeOne(s string, v any) error {
	dec := json.NewDecoder(strings.NewReader(s))
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() || !strings.HasPrefix(strings.TrimSpace(s), "{") {
		return errNotOneObject
	}
	return nil
}

var errNotOneObject = jsonError("not exactly one JSON object")

type jsonError string

func (e jsonError) Error() string { return string(e) }

// TestExportReport checks export's own report: with --output FILE one
// JSON object on stdout, without "error"; with the image on stdout, the
// image alone there and the report on stderr.
// Fault: none (the report of a success).
func TestExportReport(t *testing.T) {
	srv := zktest.Start(t)
	c := newCluster(t, srv, srv.Connect(t), "report")
	c.seedKafka(43, uniform("orders", 2, 43))
	file := filepath.Join(t.TempDir(), "image.json")
	r := c.run("--output", "json", "export", "--output", file)
	wantCode(t, r, exitOK)
	var rep map[string]any
	if err := decodeOne(r.stdout, &rep); err != nil || rep["error"] != nil || rep["file"] != file || rep["topics"] != 1.0 || rep["partitions"] != 2.0 {
		t.Fatalf("export --output FILE: %v %v\n%s", err, rep, r)
	}
	r = c.run("--output", "json", "export")
	wantCode(t, r, exitOK)
	if img := readExport(t, r.stdout); len(img.Topics) != 1 {
		t.Fatalf("image: %d topics", len(img.Topics))
	}
	rep = nil
	if err := decodeOne(r.stderr, &rep); err != nil || rep["error"] != nil || rep["topics"] != 1.0 {
		t.Fatalf("export to stdout: report on stderr: %v %v\n%s", err, rep, r)
	}
}

// TestStatusUnverifiedCredentials runs status with a wrong digest password
// on a cluster whose control znodes anyone may write: ZooKeeper refuses
// nothing, so status says the credentials could not be verified, and why.
// Fault: a wrong digest password, world-writable control znodes.
func TestStatusUnverifiedCredentials(t *testing.T) {
	srv := zktest.Start(t)
	c := newCluster(t, srv, srv.Connect(t), "open")
	c.seedKafka(43, uniform("orders", 1, 43))
	c.zkController(1)
	env := []string{digestEnv + "=kafka:not-the-password"}
	want := `the digest credentials of user "kafka" (from $MIGRATIONZK_DIGEST) could not be verified: ` + c.root + "/controller_epoch, " + c.root + "/controller let anyone write"
	r := runBinary(t, env, "--zk", srv.Addr(), "--root", c.root, "status")
	wantCode(t, r, exitOK)
	wantOutput(t, r, "Credentials: "+want)
	r = runBinary(t, env, "--zk", srv.Addr(), "--root", c.root, "--output", "json", "status")
	var out statusReport
	r.decode(t, &out)
	if !strings.Contains(out.Credentials, want) {
		t.Fatalf("json credentials = %q, want %q", out.Credentials, want)
	}
	r = runBinary(t, nil, "--zk", srv.Addr(), "--root", c.root, "--output", "json", "status")
	if strings.Contains(r.stdout, "credentials") {
		t.Fatalf("no credentials given, yet: %s", r)
	}
}

// TestJSONNotHTMLEscaped checks that the json output shows < and > as
// they are: /migration holding "<none>" is quoted as it is.
// Fault: undecodable /migration data with < and >.
func TestJSONNotHTMLEscaped(t *testing.T) {
	srv := zktest.Start(t)
	c := newCluster(t, srv, srv.Connect(t), "escape")
	c.seedKafka(43, uniform("orders", 1, 43))
	c.migration([]byte("<none>"))
	r := c.run("--output", "json", "status")
	wantCode(t, r, exitProblem)
	if !strings.Contains(r.stdout, `"data": "<none>"`) || strings.Contains(r.stdout, `\u003c`) {
		t.Fatalf("want <none> unescaped:\n%s", r)
	}
}

// TestFirstJoined checks that a read of many znodes shows its first error
// and a count, while errors.Is still sees every one; an error wrapping
// several with fmt.Errorf is one message, left whole.
// Fault: 3 joined refusals; one error with two %w.
func TestFirstJoined(t *testing.T) {
	denied := func(p string) error { return &migrationzk.NotAuthorizedError{Path: p, Op: "read", Err: zk.ErrNoAuth} }
	err := fmt.Errorf("migrationzk: read: %w", errors.Join(denied("/a"), denied("/b"), zk.ErrConnectionClosed))
	got := firstJoined(err)
	if got.Error() != "migrationzk: not authorized to read /a: zk: not authenticated (and 2 more)" || !errors.Is(got, zk.ErrConnectionClosed) {
		t.Fatalf("firstJoined = %q", got)
	}
	two := fmt.Errorf("%w: read /x: %w", migrationzk.ErrAuthFailed, zk.ErrNoAuth)
	if got := firstJoined(two); got != two {
		t.Fatalf("firstJoined(%q) = %q, want it whole", two, got)
	}
}
