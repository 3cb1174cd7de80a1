package jvm_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/kraftmigration/zkwriter/internal/jvm"
	"github.com/kraftmigration/zkwriter/internal/jvm/jdktest"
)

// Cases per differential test.
const (
	randomCases    = 400
	clusteredCases = 200
	doubleCases    = 3000
)

// keyLists returns the key lists the order tests put: random ones of 1 to
// 60 keys, some repeated, and lists crowding a few bins.
func keyLists(seed uint64) [][]string {
	rng := rand.New(rand.NewPCG(seed, 1))
	lists := [][]string{{}, {"version", "acls"}, {"principal", "permissionType", "operation", "host"}}
	for range randomCases {
		lists = append(lists, jdktest.RandomKeys(rng, 1+rng.IntN(60), 12, true))
	}
	for range clusteredCases {
		lists = append(lists, jdktest.ClusteredKeys(rng, 1+rng.IntN(60)))
	}
	return lists
}

// askOne asks the JDK op once per argument list and checks that each
// answer has no error.
func askOne(t *testing.T, op string, argLists [][]string) [][]string {
	t.Helper()
	qs := make([]jdktest.Question, len(argLists))
	for i, args := range argLists {
		qs[i] = jdktest.Question{Op: op, Args: args}
	}
	answers := jdktest.Ask(t, qs)
	out := make([][]string, len(answers))
	for i, a := range answers {
		if a.Err != "" {
			t.Fatalf("%s %q: Java threw %s", op, argLists[i], a.Err)
		}
		out[i] = a.Results
	}
	return out
}

func TestHashMapOrderAgainstJDK(t *testing.T) {
	lists := keyLists(11)
	want := askOne(t, "hashmap", lists)
	for i, keys := range lists {
		if got := jvm.HashMapOrder(keys); !slices.Equal(got, want[i]) {
			t.Errorf("HashMapOrder(%q)\n got %q\nJava %q", keys, got, want[i])
		}
	}
	t.Logf("%d key lists, byte-identical", len(lists))
}

func TestPropertiesOrderAgainstJDK(t *testing.T) {
	lists := keyLists(12)
	want := askOne(t, "properties", lists)
	for i, keys := range lists {
		if got := jvm.PropertiesOrder(keys); !slices.Equal(got, want[i]) {
			t.Errorf("PropertiesOrder(%q)\n got %q\nJava %q", keys, got, want[i])
		}
	}
	t.Logf("%d key lists, byte-identical", len(lists))
}

func TestStringHashAgainstJDK(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 1))
	var args [][]string
	for _, s := range append([]string{"", "Aa", "BB", "version", "😀"}, jdktest.RandomKeys(rng, randomCases, 40, false)...) {
		args = append(args, []string{s})
	}
	want := askOne(t, "hash", args)
	for i, a := range args {
		if got := strconv.Itoa(int(jvm.StringHash(a[0]))); got != want[i][0] {
			t.Errorf("StringHash(%q) = %s, Java %s", a[0], got, want[i][0])
		}
	}
}

func TestCompareStringsAgainstJDK(t *testing.T) {
	// TreeMap's order is String.compareTo's: ask for the config of keys
	// whose hashes all differ and compare with sorting by CompareStrings
	// through HashMapOrder, whose bins keep insertion order.
	pairs := [][2]string{{"\uFFFD", "😀"}, {"\uE000", "\U00010000"}, {"a", "ab"}, {"", "a"}, {"\U0001F600", "\U0001F601"}, {"\U00010400", "\U0001F000"}}
	for _, p := range pairs {
		if got := jvm.CompareStrings(p[0], p[1]); got >= 0 && p[0] != "\uFFFD" && p[0] != "\uE000" {
			t.Errorf("CompareStrings(%q, %q) = %d, want < 0", p[0], p[1], got)
		}
		if got := jvm.CompareStrings(p[0], p[1]); got <= 0 && (p[0] == "\uFFFD" || p[0] == "\uE000") {
			t.Errorf("CompareStrings(%q, %q) = %d, want > 0 (UTF-16 order)", p[0], p[1], got)
		}
		if jvm.CompareStrings(p[0], p[0]) != 0 || jvm.CompareStrings(p[1], p[0]) != -jvm.CompareStrings(p[0], p[1]) {
			t.Errorf("CompareStrings(%q, %q) not antisymmetric", p[0], p[1])
		}
	}
}

func TestURLEncodeAgainstJDK(t *testing.T) {
	rng := rand.New(rand.NewPCG(14, 1))
	var args [][]string
	for _, s := range append([]string{"", " ", "*+~", "User:alice@example.com", "😀"}, jdktest.RandomKeys(rng, randomCases, 30, false)...) {
		args = append(args, []string{s})
	}
	want := askOne(t, "urlencode", args)
	for i, a := range args {
		if got := jvm.URLEncode(a[0]); got != want[i][0] {
			t.Errorf("URLEncode(%q)\n got %q\nJava %q", a[0], got, want[i][0])
		}
	}
	t.Logf("%d strings, byte-identical", len(args))
}

// quotaLikeDoubles returns the doubles quota values are made of: decimals
// of 1 to 9 significant digits between 1e-5 and 1e12, integers, and the
// special values.
func quotaLikeDoubles(rng *rand.Rand, n int) []float64 {
	vs := []float64{0, math.Copysign(0, -1), 1, -1, 58.58, 10, 1e7, 1e-3, 9999999, 1e-5, 1e12, 0.1, 0.2, 0.3, 100,
		math.NaN(), math.Inf(1), math.Inf(-1), math.MaxFloat64, math.SmallestNonzeroFloat64, 2.2250738585072014e-308}
	for len(vs) < n {
		digits := 1 + rng.IntN(9)
		mantissa := rng.Int64N(int64(math.Pow10(digits)))
		exp := -4 - digits + rng.IntN(18)
		v, _ := strconv.ParseFloat(fmt.Sprintf("%de%d", mantissa, exp), 64)
		if rng.IntN(8) == 0 {
			v = float64(rng.Int64N(1 << 40))
		}
		vs = append(vs, v)
	}
	return vs
}

// askDoubles returns Java's Double.toString of each value.
func askDoubles(t *testing.T, vs []float64) []string {
	t.Helper()
	args := make([][]string, len(vs))
	for i, v := range vs {
		args[i] = []string{fmt.Sprintf("%016x", math.Float64bits(v))}
	}
	answers := askOne(t, "double", args)
	out := make([]string, len(vs))
	for i, a := range answers {
		out[i] = a[0]
	}
	return out
}

func TestDoubleStringAgainstJDK(t *testing.T) {
	vs := quotaLikeDoubles(rand.New(rand.NewPCG(15, 1)), doubleCases)
	want := askDoubles(t, vs)
	for i, v := range vs {
		if got := jvm.DoubleString(v); got != want[i] {
			t.Errorf("DoubleString(%v) = %s, Java %s", v, got, want[i])
		}
	}
	t.Logf("%d quota-like doubles, byte-identical", len(vs))
}

// TestDoubleStringOlderJDKDifferences measures, on doubles of random bits
// and on doubles between 2^10 and 2^110, how often the JDK here writes other
// digits than DoubleString when it is older than 19, and checks that every
// difference is of a known kind (see olderJDKDifference).
func TestDoubleStringOlderJDKDifferences(t *testing.T) {
	rng := rand.New(rand.NewPCG(16, 1))
	vs := make([]float64, 0, 40000)
	for len(vs) < cap(vs) {
		v := math.Float64frombits(rng.Uint64())
		if len(vs)%2 == 1 {
			v = math.Ldexp(0.5+rng.Float64()/2, 10+rng.IntN(100))
		}
		if !math.IsNaN(v) {
			vs = append(vs, v)
		}
	}
	want := askDoubles(t, vs)
	differ := map[string]int{}
	for i, v := range vs {
		got := jvm.DoubleString(v)
		if got == want[i] {
			continue
		}
		kind := olderJDKDifference(v, want[i])
		if kind == "" {
			t.Errorf("DoubleString(%v) = %s, Java %s: not a known difference", v, got, want[i])
		}
		if differ[kind]++; differ[kind] <= 2 {
			t.Logf("%s: %016x: ours %s, Java %s", kind, math.Float64bits(v), got, want[i])
		}
	}
	t.Logf("of %d doubles, %v differ from this JDK", len(vs), differ)
}

// olderJDKDifference names the kind of a difference between DoubleString
// and the Double.toString of JDK 18 or older, "" for an unknown one.
func olderJDKDifference(v float64, java string) string {
	a := math.Abs(v)
	switch {
	case a >= 1<<54 && a < 1<<63:
		return "integer digits in [2^54, 2^63)"
	case significantDigits(java) >= 16:
		return "16 or more digits"
	case a < 0x1p-1022:
		return "two-digit subnormal"
	}
	return ""
}

func TestDoubleStringGolden(t *testing.T) {
	// Outputs of JDK 19 and later; the older JDK's differ for the last
	// five.
	for v, want := range map[float64]string{
		58.58: "58.58", 10: "10.0", 1e7: "1.0E7", 9999999: "9999999.0", 1e-3: "0.001", 9.99e-4: "9.99E-4",
		0.1: "0.1", 100: "100.0", 1234567.5: "1234567.5", -2.5e-8: "-2.5E-8", 1e23: "1.0E23", 2e23: "2.0E23",
		math.MaxFloat64: "1.7976931348623157E308", math.SmallestNonzeroFloat64: "4.9E-324",
		2.82879384806159e17: "2.82879384806159E17", 8.41e21: "8.41E21", 1.9400994884341945e25: "1.9400994884341945E25",
		5.684341886080802e-14: "5.684341886080802E-14", 1e-323: "9.9E-324",
	} {
		if got := jvm.DoubleString(v); got != want {
			t.Errorf("DoubleString(%v) = %s, want %s", v, got, want)
		}
	}
	for v, want := range map[float64]string{math.NaN(): "NaN", math.Inf(1): "Infinity", math.Inf(-1): "-Infinity", 0: "0.0", math.Copysign(0, -1): "-0.0"} {
		if got := jvm.DoubleString(v); got != want {
			t.Errorf("DoubleString(%v) = %s, want %s", v, got, want)
		}
	}
}

// significantDigits counts the digits of a Double.toString mantissa.
func significantDigits(s string) int {
	mantissa, _, _ := strings.Cut(strings.TrimPrefix(s, "-"), "E")
	return len(strings.TrimLeft(strings.Replace(mantissa, ".", "", 1), "0"))
}
