package znode

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/kraftmigration/zkwriter/internal/jvm/jdktest"
)

// Cases per differential test.
const jdkCases = 400

// ask asks the JDK op once per argument list and returns the single result
// of each answer, failing the test on a Java exception.
func ask(t *testing.T, op string, argLists [][]string) []string {
	t.Helper()
	qs := make([]jdktest.Question, len(argLists))
	for i, args := range argLists {
		qs[i] = jdktest.Question{Op: op, Args: args}
	}
	out := make([]string, len(qs))
	for i, a := range jdktest.Ask(t, qs) {
		if a.Err != "" || len(a.Results) != 1 {
			t.Fatalf("%s %q: Java answered %q, %s", op, argLists[i], a.Results, a.Err)
		}
		out[i] = a.Results[0]
	}
	return out
}

// randomConfigs returns configs of 1 to 60 entries: random keys, keys that
// crowd a few hash bins, and realistic property names, with random values.
func randomConfigs(rng *rand.Rand, n int) []Config {
	names := []string{"retention.ms", "cleanup.policy", "segment.bytes", "min.insync.replicas", QuotaProducerByteRate,
		QuotaConsumerByteRate, QuotaRequestPercentage, QuotaControllerMutationRate, ScramSHA256, ScramSHA512}
	configs := []Config{{}, {"request_percentage": "58.58", "producer_byte_rate": "1024", "consumer_byte_rate": "2048", "controller_mutation_rate": "10.0"}}
	for len(configs) < n {
		size := 1 + rng.IntN(60)
		var keys []string
		switch rng.IntN(3) {
		case 0:
			keys = jdktest.RandomKeys(rng, size, 16, true)
		case 1:
			keys = jdktest.ClusteredKeys(rng, size)
		default:
			keys = append(jdktest.RandomKeys(rng, size/2, 8, false), names[:rng.IntN(len(names))]...)
		}
		c := Config{}
		for _, k := range keys {
			c[k] = jdktest.RandomString(rng, 20)
		}
		configs = append(configs, c)
	}
	return configs
}

func TestConfigAgainstJDK(t *testing.T) {
	configs := randomConfigs(rand.New(rand.NewPCG(21, 1)), jdkCases)
	args := make([][]string, len(configs))
	for i, c := range configs {
		for k, v := range c {
			args[i] = append(args[i], k, v)
		}
	}
	want := ask(t, "config", args)
	for i, c := range configs {
		if got := c.Encode(); string(got) != want[i] {
			t.Errorf("Config%q.Encode()\n got %s\nJava %s", map[string]string(c), got, want[i])
		}
	}
	t.Logf("%d configs, byte-identical", len(configs))
}

// randomACLs returns ACL sets of 1 to 12 entries.
func randomACLs(rng *rand.Rand, n int) []ACLs {
	ops := []Operation{OperationAll, OperationRead, OperationWrite, OperationCreate, OperationDelete, OperationAlter,
		OperationDescribe, OperationClusterAction, OperationDescribeConfigs, OperationAlterConfigs,
		OperationIdempotentWrite, OperationCreateTokens, OperationDescribeTokens}
	sets := []ACLs{{}, {{Principal: "User:alice", PermissionType: PermissionAllow, Operation: OperationRead, Host: "*"}}}
	for len(sets) < n {
		var a ACLs
		for range 1 + rng.IntN(12) {
			e := ACLEntry{Principal: "User:" + jdktest.RandomString(rng, 10), PermissionType: PermissionAllow, Operation: ops[rng.IntN(len(ops))], Host: "*"}
			if rng.IntN(3) == 0 {
				e.PermissionType = PermissionDeny
			}
			if rng.IntN(3) == 0 {
				e.Host = jdktest.RandomString(rng, 15)
			}
			a = append(a, e)
		}
		sets = append(sets, a)
	}
	return sets
}

func TestACLsAgainstJDK(t *testing.T) {
	sets := randomACLs(rand.New(rand.NewPCG(22, 1)), jdkCases)
	args := make([][]string, len(sets))
	for i, a := range sets {
		// Java writes the entries in the order given: give Encode's.
		for _, e := range a.canonical() {
			args[i] = append(args[i], e.Principal, string(e.PermissionType), string(e.Operation), e.Host)
		}
	}
	want := ask(t, "acls", args)
	for i, a := range sets {
		if got := a.Encode(); string(got) != want[i] {
			t.Errorf("%+v.Encode()\n got %s\nJava %s", a, got, want[i])
		}
	}
	t.Logf("%d ACL sets, byte-identical", len(sets))
}

func TestAppendStringAgainstJDK(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 1))
	ss := append([]string{"", "\u2028\u2029", "\x7f/", "\x00\x1f\"\\", "😀", "\U0010FFFF"}, jdktest.RandomKeys(rng, jdkCases, 40, false)...)
	args := make([][]string, len(ss))
	for i, s := range ss {
		args[i] = []string{s}
	}
	want := ask(t, "json", args)
	for i, s := range ss {
		if got := appendString(nil, s); string(got) != want[i] {
			t.Errorf("appendString(%q)\n got %s\nJava %s", s, got, want[i])
		}
	}
	t.Logf("%d strings, byte-identical", len(ss))
}

// escapeSoup returns strings of percent escapes, some malformed, plus
// signs and other characters, for comparing Desanitize with URLDecoder.
func escapeSoup(rng *rand.Rand) string {
	parts := []string{"%", "+", "a", "é", "%2", "%41", "%C3%A9", "%c3%a9", "%E2%82%AC", "%F0%9F%98%80", "%zz", "%+1", "%-1", "%FF", "%C3", "%20", "*", "%2A"}
	var b strings.Builder
	for range rng.IntN(6) {
		b.WriteString(parts[rng.IntN(len(parts))])
	}
	return b.String()
}

func TestSanitizeAgainstJDK(t *testing.T) {
	rng := rand.New(rand.NewPCG(24, 1))
	names := append([]string{"", "User:alice@example.com", "a b*c+d~e", "client-1_2.3", "::1", "😀"}, jdktest.RandomKeys(rng, jdkCases, 30, false)...)
	var encodeArgs, decodeArgs [][]string
	for _, n := range names {
		encodeArgs = append(encodeArgs, []string{n})
		decodeArgs = append(decodeArgs, []string{Sanitize(n)})
	}
	encoded := ask(t, "urlencode", encodeArgs)
	decoded := ask(t, "urldecode", decodeArgs)
	for i, n := range names {
		want := strings.NewReplacer("*", "%2A", "+", "%20").Replace(encoded[i])
		if got := Sanitize(n); got != want {
			t.Errorf("Sanitize(%q) = %q, Java %q", n, got, want)
		}
		if got, err := Desanitize(Sanitize(n)); err != nil || got != n || decoded[i] != n {
			t.Errorf("Desanitize(Sanitize(%q)) = %q, %v; Java %q", n, got, err, decoded[i])
		}
	}
	t.Logf("%d names, byte-identical", len(names))
}

func TestDesanitizeAgainstJDK(t *testing.T) {
	rng := rand.New(rand.NewPCG(25, 1))
	var soups []jdktest.Question
	for range jdkCases {
		soups = append(soups, jdktest.Question{Op: "urldecode", Args: []string{escapeSoup(rng)}})
	}
	refused := 0
	for i, a := range jdktest.Ask(t, soups) {
		in := soups[i].Args[0]
		got, err := Desanitize(in)
		switch {
		case a.Err != "" && err == nil:
			t.Errorf("Desanitize(%q) = %q; Java threw %s", in, got, a.Err)
		case a.Err != "":
			refused++
		case strings.Contains(a.Results[0], "\uFFFD") && err == nil:
			t.Errorf("Desanitize(%q) = %q; Java substituted U+FFFD: %q", in, got, a.Results[0])
		case strings.HasPrefix(in, "%+") || strings.Contains(in, "%+"):
			// URLDecoder reads "%+1" as the escape 0x01; Desanitize refuses it.
			if err == nil {
				t.Errorf("Desanitize(%q) = %q, want an error", in, got)
			}
		case !strings.Contains(a.Results[0], "\uFFFD") && (err != nil || got != a.Results[0]):
			t.Errorf("Desanitize(%q) = %q, %v; Java %q", in, got, err, a.Results[0])
		}
	}
	t.Logf("%d escape strings, %d refused by both", len(soups), refused)
}

func TestFormatQuotaAgainstJDK(t *testing.T) {
	rng := rand.New(rand.NewPCG(26, 1))
	var vs []float64
	for range jdkCases {
		digits := 1 + rng.IntN(9)
		v := float64(rng.Int64N(int64(math.Pow10(digits)))) * math.Pow10(-rng.IntN(digits+4))
		vs = append(vs, v)
	}
	args := make([][]string, len(vs))
	for i, v := range vs {
		args[i] = []string{fmt.Sprintf("%016x", math.Float64bits(v))}
	}
	want := ask(t, "double", args)
	for i, v := range vs {
		for _, key := range []string{QuotaRequestPercentage, QuotaControllerMutationRate} {
			if got, err := FormatQuota(key, v); err != nil || got != want[i] {
				t.Errorf("FormatQuota(%s, %v) = %q, %v; Java %q", key, v, got, err, want[i])
			}
		}
	}
	t.Logf("%d quota values, byte-identical", len(vs))
}
