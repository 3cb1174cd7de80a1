package znode

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/kraftmigration/zkwriter/internal/jvm/jdktest"
)

// jsonLevelInputs returns inputs about the JSON level alone: what Jackson,
// configured as Kafka's Json.parseBytes leaves it, accepts or refuses.
func jsonLevelInputs() []string {
	return []string{
		`{"x":1}`, `{"x":01}`, `{"x":-01}`, `{"x":00}`, `{"x":-0}`, `{"x":+1}`, `{"x":.5}`, `{"x":1.}`, `{"x":1.0}`,
		`{"x":1e0}`, `{"x":1E+2}`, `{"x":-1e-2}`, `{"x":2147483647}`, `{"x":2147483648}`, `{"x":-2147483649}`,
		`{"x":9223372036854775807}`, `{"x":9223372036854775808}`, `{"x":99999999999999999999999}`,
		`{"x":NaN}`, `{"x":Infinity}`, `{"x":-Infinity}`, `{"x":0x10}`,
		`/*c*/{"x":1}`, `{"x":1/*c*/}`, `//c` + "\n" + `{"x":1}`, `#c` + "\n" + `{"x":1}`,
		`{"x":1,}`, `{"x":[1,]}`, `{,"x":1}`, `{'x':1}`, `{"x":'a'}`, `{x:1}`, `{"x":1 "y":2}`,
		`{"x":1}x`, `{"x":1}}`, `{"x":1}{`, `{"x":1}//`, `{"x":1},`, `{"x":1}` + "\xff", `{"x":1}` + "\x00",
		"\xEF\xBB\xBF" + `{"x":1}`, "\xEF\xBB" + `{"x":1}`, " \t\r\n" + `{"x":1}`, "\f" + `{"x":1}`, "\v" + `{"x":1}`,
		`{"x":1,"x":2}`, `{"x":1,"y":2,"x":3}`, `{"x":"a","x":1}`,
		`{"x":"\ud83d\ude00"}`, `{"x":"\u00e9"}`, `{"x":"\/"}`, `{"x":"\a"}`, `{"x":"\x41"}`, `{"x":"\u12"}`,
		"{\"x\":\"a\tb\"}", "{\"x\":\"a\x00b\"}", "{\"x\":\"a\x7fb\"}", "{\"x\":\"\u2028\"}",
		"{\"x\":\"\xff\"}", "{\"x\":\"\xc3\"}", "{\"x\":\"\xe2\x82\"}", "{\"x\":\"\x80\"}", "{\"x\":\"\xf8\x88\x80\x80\x80\"}",
		"{\"\xff\":1}",
		`{}`, `[]`, `[1]`, `"s"`, `1`, `true`, `null`, `nul`, `{"x":tru}`, `{"x":nulls}`, `{"x":1`, `{"x"`, `{`,
		`{"x":{"y":{"z":[[[]]]}}}`, `{"":1}`, `{"x":1,"":2}`,
		encodeUTF16(`{"x":"é😀"}`, true), encodeUTF16(`{"x":"é😀"}`, false), encodeUTF16("\uFEFF"+`{"x":1}`, true),
		encodeUTF16("\uFEFF"+`{"x":1}`, false), encodeUTF32(`{"x":"é😀"}`, true), encodeUTF32(`{"x":"é😀"}`, false),
		encodeUTF32("\uFEFF"+`{"x":1}`, true), encodeUTF32("\uFEFF"+`{"x":1}`, false), "\x00\x00\xFF\xFE" + encodeUTF32(`{}`, true),
		encodeUTF16(`{"x":1}`, true)[:13], "\x00{", "{\x00",
	}
}

// goRefusedInputs returns inputs Jackson reads and the decoders refuse on
// purpose: strings no UTF-8 text can hold (unpaired surrogates, however
// written), bytes Jackson's UTF-8 decoder takes though they are not UTF-8,
// and UTF-16 Jackson's reader decodes with U+FFFD.
func goRefusedInputs() []string {
	return []string{
		`{"x":"\ud800"}`, `{"x":"\udc00"}`, `{"x":"\ude00\ud83d"}`, `{"\ud800":1}`,
		"{\"x\":\"\xc0\x80\"}", "{\"x\":\"\xed\xa0\x80\"}", "{\"x\":\"\xf4\x90\x80\x80\"}",
		// Jackson's reader for UTF-16 puts U+FFFD for an unpaired surrogate.
		"{\x00\"\x00x\x00\"\x00:\x00\"\x00\x00\xdc\"\x00}\x00", "\x00{\x00\"\x00x\x00\"\x00:\x00\"\xdc\x00\x00\"\x00}",
	}
}

// mutatedInputs returns n random edits of golden znodes: characters
// deleted, doubled or replaced by others that JSON treats specially.
func mutatedInputs(rng *rand.Rand, n int) []string {
	goldens := []string{goldenTopic, goldenConfig, goldenController, goldenMigration, goldenToken, goldenProducerIDBlock}
	pieces := []string{"", ",", "}", "{", "]", "[", `"`, `\`, "0", "-", "+", ".", "e", " ", "\n", "/", "*", "\xff", "\x00", `\u0000`, `\ud800`, "é", "n", "t"}
	out := make([]string, 0, n)
	for len(out) < n {
		s := goldens[rng.IntN(len(goldens))]
		for range 1 + rng.IntN(3) {
			i := rng.IntN(len(s) + 1)
			j := min(len(s), i+rng.IntN(3))
			s = s[:i] + pieces[rng.IntN(len(pieces))] + s[j:]
		}
		out = append(out, s)
	}
	return out
}

// nodeClass names the class of the JsonNode Jackson 2.14's readTree makes
// of raw, a JSON value, as DecodeJson's isInt, isLong and isTextual see
// it.
func nodeClass(raw []byte) string {
	switch kind(raw) {
	case "string":
		return "TextNode"
	case "object":
		return "ObjectNode"
	case "array":
		return "ArrayNode"
	case "boolean":
		return "BooleanNode"
	case "null":
		return "NullNode"
	}
	if bytes.ContainsAny(raw, ".eE") {
		return "DoubleNode"
	}
	if _, err := strconv.ParseInt(string(raw), 10, 32); err == nil {
		return "IntNode"
	}
	// Jackson 2.14, which the test runs, makes a BigIntegerNode of every
	// 19-digit integer (jackson-core#865); Kafka 3.9's Jackson 2.16 makes
	// a LongNode of those that fit, as the decoders read them.
	if _, err := strconv.ParseInt(string(raw), 10, 64); err == nil && len(strings.TrimPrefix(string(raw), "-")) < 19 {
		return "LongNode"
	}
	return "BigIntegerNode"
}

// goReadTree returns what parseObject makes of data, in the form of
// Gen.java's readtree answer, or the error.
func goReadTree(data []byte) ([]string, error) {
	o := parseObject("/x", data)
	if err := o.err(); err != nil {
		return nil, err
	}
	out := []string{"OBJECT"}
	for _, m := range o.members {
		raw := bytes.TrimSpace(m.value)
		text := ""
		if kind(raw) == "string" {
			text = o.parseString(m.key, raw)
		}
		out = append(out, m.key, nodeClass(raw), text)
	}
	return out, o.err()
}

func TestJSONLevelAgainstJackson(t *testing.T) {
	inputs := append(jsonLevelInputs(), mutatedInputs(rand.New(rand.NewPCG(27, 1)), jdkCases)...)
	refusedByGo := goRefusedInputs()
	inputs = append(inputs, refusedByGo...)
	qs := make([]jdktest.Question, len(inputs))
	for i, in := range inputs {
		qs[i] = jdktest.Question{Op: "readtree", Args: []string{hex.EncodeToString([]byte(in))}}
	}
	var agreed, refused, deliberateSeen int
	for i, a := range jdktest.Ask(t, qs) {
		in := []byte(inputs[i])
		got, err := goReadTree(in)
		switch {
		case i >= len(inputs)-len(refusedByGo):
			if err == nil || a.Err != "" {
				t.Errorf("%q: decoders %v, Jackson %q %s; want Jackson to read it and the decoders to refuse it", in, got, a.Results, a.Err)
			}
		case a.Err != "" || (len(a.Results) > 0 && a.Results[0] == "MISSING"):
			if !errors.Is(err, ErrInvalidJSON) {
				t.Errorf("%q: Jackson refuses it (%s %q), decoders read %q, %v", in, a.Err, a.Results, got, err)
			}
			refused++
		case a.Results[0] != "OBJECT":
			if !errors.Is(err, ErrWrongType) {
				t.Errorf("%q: Jackson reads a %s, decoders %q, %v; want ErrWrongType", in, a.Results[0], got, err)
			}
		case a.Err == "" && isDeliberateRefusal(err):
			deliberateSeen++
		case err != nil || strings.Join(got, "\x00") != strings.Join(a.Results, "\x00"):
			t.Errorf("%q: decoders read %q, %v; Jackson %q", in, got, err, a.Results)
		default:
			agreed++
		}
	}
	t.Logf("%d inputs: %d objects read alike, %d refused by both, %d refused by the decoders alone on purpose",
		len(inputs), agreed, refused, len(refusedByGo)+deliberateSeen)
}

// isDeliberateRefusal reports whether err refuses what Jackson reads on
// purpose: an unpaired surrogate, or bytes Jackson decodes as UTF-8
// although they are not.
func isDeliberateRefusal(err error) bool {
	var de *DecodeError
	return errors.As(err, &de) && de.Reason == ErrInvalidJSON &&
		(de.Detail == "invalid UTF-8" || de.Detail == "escape of an unpaired UTF-16 surrogate" ||
			de.Detail == "UTF-16 with an unpaired surrogate")
}

func TestJavaParseIntAgainstJDK(t *testing.T) {
	inputs := []string{"0", "7", "007", "+1", "-0", "+0", "-1", "+", "-", "", " 1", "1 ", "1_0", "0x1", "1.0", "1e1",
		"2147483647", "2147483648", "-2147483648", "-2147483649", "+2147483647", "9223372036854775807", "9223372036854775808",
		"\u0661", "\u0669\u0669", "１２", "\u0966", "\u0e53", "\uff10\uff11", "\u00b2", "\u2460", "\U0001D7CE", "\u1d7ce",
		"٤٣", "+\u0661", "-\u0661", "\u0661-"}
	rng := rand.New(rand.NewPCG(28, 1))
	for range jdkCases {
		inputs = append(inputs, jdktest.RandomString(rng, 4), strconv.FormatInt(rng.Int64()>>rng.IntN(64), 10))
	}
	for _, bits := range []int{32, 64} {
		op := map[int]string{32: "parseint", 64: "parselong"}[bits]
		qs := make([]jdktest.Question, len(inputs))
		for i, in := range inputs {
			qs[i] = jdktest.Question{Op: op, Args: []string{in}}
		}
		for i, a := range jdktest.Ask(t, qs) {
			v, isNumber, fits := parseJavaInt(inputs[i], bits)
			switch {
			case a.Err != "" && isNumber && fits:
				t.Errorf("parseJavaInt(%q, %d) = %d; Java throws %s", inputs[i], bits, v, a.Err)
			case a.Err == "" && (!isNumber || !fits || strconv.FormatInt(v, 10) != a.Results[0]):
				t.Errorf("parseJavaInt(%q, %d) = %d, %v, %v; Java %s", inputs[i], bits, v, isNumber, fits, a.Results[0])
			}
		}
	}
}

func TestKafkaUuidAgainstJDK(t *testing.T) {
	inputs := []string{"ASNFZ4mrze_-3LqYdlQyEA", "ASNFZ4mrze_-3LqYdlQyEA==", "ASNFZ4mrze_-3LqYdlQyEB", "ASNFZ4mrze_-3LqYdlQyEP",
		"ASNFZ4mrze_-3LqYdlQyEA=", "ASNFZ4mrze_-3LqYdlQyE", "ASNFZ4mrze/+3LqYdlQyEA", "ASNFZ4mrze_-3LqYdlQyEA===",
		"AAAAAAAAAAAAAAAAAAAAAA", "_____________________w", "______________________", "ASNFZ4mrze_-3LqYdlQyEAA=", ""}
	rng := rand.New(rand.NewPCG(29, 1))
	for range jdkCases {
		b := []byte(Uuid{rng.Int64(), rng.Int64()}.String())
		b[rng.IntN(len(b))] = "A_-=/+. Q"[rng.IntN(9)]
		inputs = append(inputs, string(b))
	}
	qs := make([]jdktest.Question, len(inputs))
	for i, in := range inputs {
		qs[i] = jdktest.Question{Op: "uuidbytes", Args: []string{in}}
	}
	for i, a := range jdktest.Ask(t, qs) {
		id, problem := parseKafkaUuid(inputs[i])
		b := id.Bytes()
		// Kafka takes exactly 16 decoded bytes from at most 24 characters.
		javaReads := a.Err == "" && len(a.Results[0]) == 32 && len(inputs[i]) <= 24
		switch {
		case javaReads && (problem != "" || hex.EncodeToString(b[:]) != a.Results[0]):
			t.Errorf("parseKafkaUuid(%q) = %v, %q; Java reads %s", inputs[i], id, problem, a.Results[0])
		case !javaReads && problem == "":
			t.Errorf("parseKafkaUuid(%q) = %v; Java %q %s", inputs[i], id, a.Results, a.Err)
		}
	}
}

func TestDecodeJavaBase64AgainstJDK(t *testing.T) {
	inputs := []string{"", "c2FsdA==", "c2FsdA", "c2FsdA=", "c2FsdA===", "QR==", "QR", "QUI=", "QUJ", "QUJ=", "Q", "Q===",
		"c2Fs\ndA==", "c2Fs\r\ndA==", "c2Fs dA==", "_-__", "+/+/", "=", "==", "QQ==QQ==", "QQ=a"}
	rng := rand.New(rand.NewPCG(30, 1))
	for range jdkCases {
		b := []byte(jdktest.RandomString(rng, 8))
		s := []byte(base64.StdEncoding.EncodeToString(b))
		if len(s) > 0 && rng.IntN(2) == 0 {
			s[rng.IntN(len(s))] = "A=+/_-\nQz"[rng.IntN(9)]
		}
		inputs = append(inputs, string(s))
	}
	qs := make([]jdktest.Question, len(inputs))
	for i, in := range inputs {
		qs[i] = jdktest.Question{Op: "base64", Args: []string{in}}
	}
	for i, a := range jdktest.Ask(t, qs) {
		b, err := decodeJavaBase64(inputs[i])
		switch {
		case a.Err == "" && (err != nil || hex.EncodeToString(b) != a.Results[0]):
			t.Errorf("decodeJavaBase64(%q) = %x, %v; Java %s", inputs[i], b, err, a.Results[0])
		case a.Err != "" && err == nil:
			t.Errorf("decodeJavaBase64(%q) = %x; Java throws %s", inputs[i], b, a.Err)
		}
	}
}

func TestParseJavaDoubleAgainstJDK(t *testing.T) {
	inputs := []string{"", " ", "1", "-1", "+1", "1.", ".5", ".", "-.5e3", "1e", "1e+", "1e+5", "1E-5", "1e5f", "1e5D", "1f", "f", "d",
		"NaN", "-NaN", "+NaN", "nan", "Infinity", "-Infinity", "+Infinity", "Inf", "Infinityf", "0x10", "0x10p0", "0X1.8P1", "0x.8p1",
		"0x1p", "0xp1", "0x1.p-2d", "1_0", "1,5", " 1\t", "\x001\x1f", "\u00a01", "1e400", "1e-400", "4.9e-324", "0x1.fffffffffffffp1023",
		"58.58", "1.0E7", "٣", "00012", "-0", "1..2", "1e5e5", "0x1p1.5"}
	rng := rand.New(rand.NewPCG(31, 1))
	for range jdkCases {
		b := []byte(strconv.FormatFloat(rng.NormFloat64()*math.Pow10(rng.IntN(30)-15), "gexf"[rng.IntN(4)], -1, 64))
		if rng.IntN(2) == 0 {
			b = append(b[:rng.IntN(len(b))], "+-.eEpPxfd0 "[rng.IntN(12)])
		}
		inputs = append(inputs, string(b))
	}
	qs := make([]jdktest.Question, len(inputs))
	for i, in := range inputs {
		qs[i] = jdktest.Question{Op: "parsedouble", Args: []string{in}}
	}
	for i, a := range jdktest.Ask(t, qs) {
		v, ok := parseJavaDouble(inputs[i])
		bits := strconv.FormatUint(math.Float64bits(v), 16)
		switch {
		case a.Err != "" && ok:
			t.Errorf("parseJavaDouble(%q) = %v; Java throws %s", inputs[i], v, a.Err)
		case a.Err == "" && (!ok || bits != a.Results[0] && !math.IsNaN(v)):
			t.Errorf("parseJavaDouble(%q) = %v (%s), %v; Java %s", inputs[i], v, bits, ok, a.Results[0])
		}
	}
}
