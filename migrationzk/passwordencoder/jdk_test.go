package passwordencoder

import (
	_ "embed"
	"errors"
	"maps"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/kraftmigration/zkwriter/internal/jvm/jdktest"
)

//go:embed testdata/PasswordGen.java
var passwordGen string

// askJava asks PasswordGen.java the questions in one JDK run.
func askJava(t *testing.T, qs []jdktest.Question) []jdktest.Answer {
	t.Helper()
	return jdktest.AskProgram(t, "PasswordGen.java", passwordGen, qs)
}

// setup is one combination of encoder settings.
type setup struct {
	keyFactory string // "" when not configured
	cipher     string
	keyLength  int
	iterations int
}

// options returns the Options of s.
func (s setup) options() []Option {
	opts := []Option{WithCipherAlgorithm(s.cipher), WithKeyLength(s.keyLength), WithIterations(s.iterations)}
	if s.keyFactory != "" {
		opts = append(opts, WithKeyFactoryAlgorithm(s.keyFactory))
	}
	return opts
}

// setups returns every key factory with both ciphers and every AES key
// length, and a few names written in another case.
func setups() []setup {
	var out []setup
	factories := []string{"", PBKDF2WithHmacSHA1, PBKDF2WithHmacSHA224, PBKDF2WithHmacSHA256, PBKDF2WithHmacSHA384,
		PBKDF2WithHmacSHA512, "pbkdf2withhmacsha256", "PBKDF2WıthHmacSHA1"}
	for i, kf := range factories {
		for _, c := range []string{AESCBC, AESGCM, "AES/cbc/pkcs5padding", "AES/GCM/ nopadding "} {
			for _, kl := range []int{128, 192, 256, 135} {
				iterations := MinIterations
				if (i+kl)%3 == 0 {
					iterations = DefaultIterations
				}
				out = append(out, setup{kf, c, kl, iterations})
			}
		}
	}
	return out
}

// jdkPasswords returns random passwords, the empty one and one that is
// all supplementary characters among them.
func jdkPasswords(rng *rand.Rand, n int) []string {
	out := []string{"", "kafka-secret", "\U0001F600\U0010FFFF"}
	for len(out) < n {
		out = append(out, jdktest.RandomString(rng, 40))
	}
	return out
}

const jdkSecret = "the encoder's secret"

func TestJavaEncodesGoDecodes(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 1))
	type job struct {
		s        setup
		password string
	}
	var jobs []job
	var qs []jdktest.Question
	for _, s := range setups() {
		for _, pw := range jdkPasswords(rng, 4) {
			jobs = append(jobs, job{s, pw})
			qs = append(qs, jdktest.Question{Op: "encode", Args: []string{jdkSecret, s.keyFactory, s.cipher,
				strconv.Itoa(s.keyLength), strconv.Itoa(s.iterations), pw}})
		}
	}
	for i, a := range askJava(t, qs) {
		j := jobs[i]
		if a.Err != "" {
			t.Fatalf("Java could not encode with %+v: %s", j.s, a.Err)
		}
		enc, err := New(jdkSecret, j.s.options()...)
		if err != nil {
			t.Fatalf("New(%+v): %v", j.s, err)
		}
		got, err := enc.Decode(a.Results[0])
		if err != nil || got != j.password {
			t.Errorf("%+v: Decode(Java's %q) = %q, %v; want %q", j.s, a.Results[0], got, err, j.password)
		}
		mine, err := enc.Encode(j.password)
		if err != nil {
			t.Fatal(err)
		}
		if want, got := fieldNames(a.Results[0]), fieldNames(mine); !slices.Equal(got, want) {
			t.Errorf("%+v: field order %q, Java's %q", j.s, got, want)
		}
		wrong, _ := New("another secret", j.s.options()...)
		if _, err := wrong.Decode(a.Results[0]); !errors.Is(err, ErrWrongSecret) {
			t.Errorf("%+v: Decode with a wrong secret: %v, want ErrWrongSecret", j.s, err)
		}
	}
	t.Logf("%d Java encodings decoded", len(jobs))
}

// fieldNames returns the names of an encoding's fields, in order.
func fieldNames(encoded string) []string {
	var names []string
	for _, pair := range strings.Split(encoded, ",") {
		name, _, _ := strings.Cut(pair, ":")
		names = append(names, name)
	}
	return names
}

func TestGoEncodesJavaDecodes(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 1))
	type job struct {
		s        setup
		password string
		secret   string
	}
	var jobs []job
	var qs []jdktest.Question
	for _, s := range setups() {
		enc, err := New(jdkSecret, s.options()...)
		if err != nil {
			t.Fatalf("New(%+v): %v", s, err)
		}
		for i, pw := range jdkPasswords(rng, 4) {
			encoded, err := enc.Encode(pw)
			if err != nil {
				t.Fatalf("Encode: %v", err)
			}
			secret := jdkSecret
			if i == 1 {
				secret = "another secret"
			}
			jobs = append(jobs, job{s, pw, secret})
			qs = append(qs, jdktest.Question{Op: "decode", Args: []string{secret, s.cipher, encoded}})
		}
	}
	for i, a := range askJava(t, qs) {
		j := jobs[i]
		switch {
		case j.secret != jdkSecret && a.Err == "":
			t.Errorf("%+v: Java decoded with a wrong secret", j.s)
		case j.secret == jdkSecret && (a.Err != "" || a.Results[0] != j.password):
			t.Errorf("%+v: Java decoded %q as %q, %s", j.s, j.password, a.Results, a.Err)
		}
	}
	t.Logf("%d Go encodings decoded by Java", len(jobs))
}

// TestDecodeVariantsAgainstJDK alters encodings in the ways hand edits,
// other writers and corruption do, and checks that Go decodes exactly
// those Java decodes, to the same password.
func TestDecodeVariantsAgainstJDK(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 1))
	var cases []variantCase
	for _, s := range []setup{{"", AESCBC, 128, MinIterations}, {PBKDF2WithHmacSHA256, AESGCM, 256, MinIterations}} {
		enc, err := New(jdkSecret, s.options()...)
		if err != nil {
			t.Fatal(err)
		}
		for _, pw := range jdkPasswords(rng, 6) {
			encoded, err := enc.Encode(pw)
			if err != nil {
				t.Fatal(err)
			}
			for _, v := range variants(rng, encoded) {
				for _, decoder := range []string{AESCBC, AESGCM} {
					cases = append(cases, variantCase{decoder, v})
				}
			}
		}
	}
	checkDecodeAgainstJDK(t, cases)
}

// variantCase is an encoded value and the cipher setting of its decoder.
type variantCase struct{ decoderCipher, encoded string }

// checkDecodeAgainstJDK decodes every case in Go and in Java and compares.
func checkDecodeAgainstJDK(t *testing.T, cases []variantCase) {
	t.Helper()
	qs := make([]jdktest.Question, len(cases))
	for i, c := range cases {
		qs[i] = jdktest.Question{Op: "decode", Args: []string{jdkSecret, c.decoderCipher, c.encoded}}
	}
	accepted := 0
	for i, a := range askJava(t, qs) {
		c := cases[i]
		enc, err := New(jdkSecret, WithCipherAlgorithm(c.decoderCipher))
		if err != nil {
			t.Fatal(err)
		}
		got, err := enc.Decode(c.encoded)
		switch {
		case a.Err == "" && errors.Is(err, ErrInvalidPassword) && strings.ContainsRune(a.Results[0], utf8.RuneError):
			// The deliberate difference: the JDK turns decrypted bytes
			// that are not UTF-8 into U+FFFD; Go refuses them.
		case a.Err == "" && (err != nil || got != a.Results[0]):
			t.Errorf("decoder %s, %q: Java decodes %q, Go %q, %v", c.decoderCipher, c.encoded, a.Results[0], got, err)
		case a.Err != "" && err == nil:
			t.Errorf("decoder %s, %q: Java fails (%s), Go decodes %q", c.decoderCipher, c.encoded, a.Err, got)
		case a.Err == "":
			accepted++
		}
	}
	t.Logf("%d variants, %d decoded by both", len(cases), accepted)
}

// variants returns encoded altered in one way each.
func variants(rng *rand.Rand, encoded string) []string {
	pairs := strings.Split(encoded, ",")
	with := func(f func(i int, pair string) string) string {
		out := make([]string, 0, len(pairs))
		for i, p := range pairs {
			if q := f(i, p); q != "\x00" {
				out = append(out, q)
			}
		}
		return strings.Join(out, ",")
	}
	pick := rng.IntN(len(pairs))
	out := []string{
		encoded, "", ",", encoded + ",", encoded + ", \t", "," + encoded, strings.Replace(encoded, ",", ",,", 1),
		strings.ReplaceAll(encoded, ",", " , "), strings.ReplaceAll(encoded, ":", " : "),
		strings.ReplaceAll(encoded, ",", "\x01,"), encoded + ",\x01", "\x01" + encoded + "\x02",
		encoded + ",extra:field", encoded + ",a:b:c", encoded + ",nocolon",
		with(func(i int, p string) string { return strings.Replace(p, "==", "", 1) }),
		with(func(i int, p string) string { return strings.Replace(p, "==", "=", 1) }),
		with(func(i int, p string) string { return strings.Replace(p, "=", "", 1) }),
		with(func(i int, p string) string { return strings.Replace(p, ":", ":+", 1) }),
		with(func(i int, p string) string { return strings.Replace(p, ":", ":0", 1) }),
		with(func(i int, p string) string { return strings.Replace(p, ":", ":-", 1) }),
		with(func(i int, p string) string { return strings.ToLower(p) }),
		with(func(i int, p string) string { return strings.Replace(p, "/", " / ", 2) }),
		with(func(i int, p string) string { return strings.Replace(p, "AES/", "aes/", 1) }),
		with(func(i int, p string) string { return strings.Replace(p, "PBKDF2WithHmac", "PBKDF2withHMAC", 1) }),
	}
	for i := range pairs {
		out = append(out, with(func(j int, p string) string {
			if i == j {
				return "\x00"
			}
			return p
		}))
	}
	out = append(out, with(func(i int, p string) string {
		if i == pick {
			return p + "," + p[:strings.IndexByte(p, ':')+1] + "1"
		}
		return p
	}))
	for range 8 {
		b := []byte(encoded)
		at := rng.IntN(len(b))
		chars := "AZaz09+/=:, \t\n"
		b[at] = chars[rng.IntN(len(chars))]
		out = append(out, string(b))
	}
	for _, n := range []string{"1", "127", "200", "1100", "96", "104", "64", "0", "129"} {
		for _, field := range []string{fieldKeyLength, fieldIterations, fieldLength, fieldTagLength} {
			out = append(out, replaceField(encoded, field, n))
		}
	}
	for _, v := range []string{"", "AA==", "AAAAAAAAAAAAAAAA", "AAAAAAAAAAAAAAAAAAAAAA==", "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="} {
		for _, field := range []string{fieldIV, fieldSalt, fieldEncrypted} {
			out = append(out, replaceField(encoded, field, v))
		}
	}
	return out
}

// replaceField sets the value of field in encoded, adding it when missing.
func replaceField(encoded, field, value string) string {
	pairs := strings.Split(encoded, ",")
	for i, p := range pairs {
		if strings.HasPrefix(p, field+":") {
			pairs[i] = field + ":" + value
			return strings.Join(pairs, ",")
		}
	}
	return encoded + "," + field + ":" + value
}

func TestCSVAgainstJDK(t *testing.T) {
	rng := rand.New(rand.NewPCG(10, 1))
	texts := []string{"", ",", ",,", "a:b", "a:b,", "a:b,,", ",a:b", "a:b,,c:d", " a : b , c:d ", "a:b:c", ":", "a:", ":b",
		"a:1,a:2", "\x01a:b\x02", "a:b,\x01", "a:b,\t\n\v\f\r", "a:b\v,\vc:d", "a:b,  ,c:d", "x", "a:b,x"}
	alphabet := []rune("ab:, \t\x0b\x01\u00a0\u2028")
	for range 400 {
		r := make([]rune, rng.IntN(12))
		for i := range r {
			r[i] = alphabet[rng.IntN(len(alphabet))]
		}
		texts = append(texts, string(r))
	}
	qs := make([]jdktest.Question, len(texts))
	for i, s := range texts {
		qs[i] = jdktest.Question{Op: "csv", Args: []string{s}}
	}
	for i, a := range askJava(t, qs) {
		m, err := parseCSVMap(texts[i])
		var got []string
		for _, k := range slices.Sorted(maps.Keys(m)) {
			got = append(got, k, m[k])
		}
		if (a.Err != "") != (err != nil) || a.Err == "" && !slices.Equal(got, a.Results) {
			t.Errorf("parseCSVMap(%q) = %q, %v; Java %q, %s", texts[i], got, err, a.Results, a.Err)
		}
	}
}

func TestBase64AgainstJDK(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 1))
	texts := []string{"", "=", "==", "A", "AA", "AA=", "AA==", "AAA", "AAA=", "AAAA", "AAAA=", "AA==AA==", "AB==", "AAB=",
		"AA\n==", "A A=", "QUJD\r\n", "-_", "AA===", "YQ", "YWI", "YWJj", "YWJjZA"}
	alphabet := "ABab+/=-_ \n"
	for range 400 {
		b := make([]byte, rng.IntN(10))
		for i := range b {
			b[i] = alphabet[rng.IntN(len(alphabet))]
		}
		texts = append(texts, string(b))
	}
	qs := make([]jdktest.Question, len(texts))
	for i, s := range texts {
		qs[i] = jdktest.Question{Op: "base64", Args: []string{s}}
	}
	for i, a := range askJava(t, qs) {
		got, err := javaBase64Decode(texts[i])
		if (a.Err != "") != (err != nil) || a.Err == "" && string(got) != a.Results[0] {
			t.Errorf("javaBase64Decode(%q) = %x, %v; Java %x, %s", texts[i], got, err, a.Results, a.Err)
		}
	}
}
