package znode

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

// badInput is an input a decoder must refuse.
type badInput struct {
	name   string
	data   []byte
	reason error
	field  string
}

// checkDecodeError checks that err is a *DecodeError for data with the
// given path, reason and field.
func checkDecodeError(t *testing.T, err error, path string, in badInput) {
	t.Helper()
	if err == nil {
		t.Fatalf("%s: no error", in.name)
	}
	if !errors.Is(err, in.reason) {
		t.Errorf("%s: error %v does not match %v", in.name, err, in.reason)
	}
	var de *DecodeError
	if !errors.As(err, &de) {
		t.Fatalf("%s: error %T %v is not a *DecodeError", in.name, err, err)
	}
	if de.Field != in.field {
		t.Errorf("%s: Field = %q, want %q (%v)", in.name, de.Field, in.field, err)
	}
	if de.Path != path {
		t.Errorf("%s: Path = %q, want %q", in.name, de.Path, path)
	}
	if !bytes.Equal(de.Data, in.data) || (de.Data == nil) != (in.data == nil) {
		t.Errorf("%s: Data = %q, want %q", in.name, de.Data, in.data)
	}
	if msg := err.Error(); !strings.HasPrefix(msg, "decode "+path+": ") {
		t.Errorf("%s: message %q does not start with the path", in.name, msg)
	}
}

// replace returns golden with old replaced by new once, failing the test
// when old does not occur.
func replace(t *testing.T, golden, old, new string) []byte {
	t.Helper()
	if !strings.Contains(golden, old) {
		t.Fatalf("%q not in %s", old, golden)
	}
	return []byte(strings.Replace(golden, old, new, 1))
}

// commonBad returns the inputs every JSON decoder refuses the same way;
// emptyObjectField is the field an empty object misses first, "" when an
// empty object decodes.
func commonBad(golden, emptyObjectField string) []badInput {
	bad := []badInput{
		{"null", nil, ErrNullData, ""},
		{"empty", []byte{}, ErrEmptyData, ""},
		{"whitespace", []byte(" \n"), ErrInvalidJSON, ""},
		{"truncated", []byte(golden[:len(golden)-1]), ErrInvalidJSON, ""},
		{"truncated in key", []byte(golden[:12]), ErrInvalidJSON, ""},
		{"not JSON", []byte("hello"), ErrInvalidJSON, ""},
		{"NUL", []byte{0}, ErrInvalidJSON, ""},
		{"garbage after an unfinished value", []byte(golden[:len(golden)-1] + "x"), ErrInvalidJSON, ""},
		{"trailing comma", []byte(golden[:len(golden)-1] + ",}"), ErrInvalidJSON, ""},
		{"single quotes", []byte(strings.ReplaceAll(golden, `"`, `'`)), ErrInvalidJSON, ""},
		{"invalid UTF-8", []byte(golden[:len(golden)-1] + ",\"x\":\"\xff\"}"), ErrInvalidJSON, ""},
		{"array", []byte("[" + golden + "]"), ErrWrongType, ""},
		{"string", []byte(`"{}"`), ErrWrongType, ""},
		{"number", []byte(`0`), ErrWrongType, ""},
		{"bool", []byte(`true`), ErrWrongType, ""},
		{"JSON null", []byte(`null`), ErrWrongType, ""},
		{"JSON null with spaces", []byte(" null "), ErrWrongType, ""},
	}
	if emptyObjectField != "" {
		bad = append(bad, badInput{"empty object", []byte(`{}`), ErrMissingField, emptyObjectField})
	}
	return bad
}

// typeBad returns inputs where the integer field key of golden, whose
// golden value is value, has a wrong type or does not fit.
func typeBad(t *testing.T, golden, key, value, tooBig string) []badInput {
	t.Helper()
	kv := `"` + key + `":` + value
	in := func(name, v string, reason error) badInput {
		return badInput{key + " " + name, replace(t, golden, kv, `"`+key+`":`+v), reason, key}
	}
	return []badInput{
		in("string", `"`+value+`"`, ErrWrongType),
		in("float", value+".0", ErrWrongType),
		in("fraction", "1.5", ErrWrongType),
		in("exponent", "1e3", ErrWrongType),
		in("zero exponent", value+"E0", ErrWrongType),
		in("bool", "true", ErrWrongType),
		in("null", "null", ErrWrongType),
		in("array", "["+value+"]", ErrWrongType),
		in("object", "{}", ErrWrongType),
		in("too big", tooBig, ErrOutOfRange),
		in("too small", "-"+tooBig[:len(tooBig)-1]+string(tooBig[len(tooBig)-1]+1), ErrOutOfRange),
		in("huge", strings.Repeat("9", 400), ErrOutOfRange),
		{key + " missing", replace(t, golden, kv+",", ""), ErrMissingField, key},
	}
}

const (
	tooBig32 = "2147483648"
	tooBig64 = "9223372036854775808"
)

func TestDecodeMigrationBad(t *testing.T) {
	g := goldenMigration
	tests := commonBad(g, "version")
	tests = append(tests, typeBad(t, g, "kraft_metadata_offset", "1234", tooBig64)...)
	tests = append(tests, typeBad(t, g, "kraft_controller_id", "3000", tooBig32)...)
	tests = append(tests, typeBad(t, g, "kraft_metadata_epoch", "7", tooBig32)...)
	tests = append(tests,
		badInput{"kraft_controller_epoch missing", replace(t, g, `,"kraft_controller_epoch":5`, ""), ErrMissingField, "kraft_controller_epoch"},
		badInput{"kraft_controller_epoch too big", replace(t, g, `"kraft_controller_epoch":5`, `"kraft_controller_epoch":`+tooBig32), ErrOutOfRange, "kraft_controller_epoch"},
		badInput{"kraft_controller_epoch string", replace(t, g, `"kraft_controller_epoch":5`, `"kraft_controller_epoch":"5"`), ErrWrongType, "kraft_controller_epoch"},
		badInput{"kraft_controller_epoch float", replace(t, g, `"kraft_controller_epoch":5`, `"kraft_controller_epoch":5.0`), ErrWrongType, "kraft_controller_epoch"},
		badInput{"kraft_controller_epoch bool", replace(t, g, `"kraft_controller_epoch":5`, `"kraft_controller_epoch":false`), ErrWrongType, "kraft_controller_epoch"},
		badInput{"kraft_controller_epoch null", replace(t, g, `"kraft_controller_epoch":5`, `"kraft_controller_epoch":null`), ErrWrongType, "kraft_controller_epoch"},
		badInput{"version missing", replace(t, g, `"version":0,`, ""), ErrMissingField, "version"},
		badInput{"version 1", replace(t, g, `"version":0`, `"version":1`), ErrUnknownVersion, "version"},
		badInput{"version -1", replace(t, g, `"version":0`, `"version":-1`), ErrUnknownVersion, "version"},
		badInput{"version 1 alone", []byte(`{"version":1}`), ErrUnknownVersion, "version"},
		badInput{"version 1 last", []byte(`{"kraft_metadata_offset":"x","version":1}`), ErrUnknownVersion, "version"},
		badInput{"version string", replace(t, g, `"version":0`, `"version":"0"`), ErrWrongType, "version"},
		badInput{"version float", replace(t, g, `"version":0`, `"version":0.0`), ErrWrongType, "version"},
		badInput{"version null", replace(t, g, `"version":0`, `"version":null`), ErrWrongType, "version"},
		badInput{"version 0 only", []byte(`{"version":0}`), ErrMissingField, "kraft_metadata_offset"},
		badInput{"wrong case key", replace(t, g, `"kraft_controller_id"`, `"KRAFT_CONTROLLER_ID"`), ErrMissingField, "kraft_controller_id"},
		badInput{"duplicate, last bad", []byte(g[:len(g)-1] + `,"kraft_metadata_epoch":1.5}`), ErrWrongType, "kraft_metadata_epoch"},
	)
	for _, in := range tests {
		got, err := DecodeMigration(in.data)
		if got != (Migration{}) {
			t.Errorf("%s: decoded %+v along with the error", in.name, got)
		}
		checkDecodeError(t, err, MigrationPath, in)
	}
}

func TestDecodeControllerBad(t *testing.T) {
	g := goldenController
	tests := commonBad(g, "brokerid")
	tests = append(tests, typeBad(t, g, "brokerid", "3000", tooBig32)...)
	ep := `"kraftControllerEpoch":5`
	epBad := func(name, v string, reason error) badInput {
		return badInput{"kraftControllerEpoch " + name, replace(t, g, ep, `"kraftControllerEpoch":`+v), reason, "kraftControllerEpoch"}
	}
	tests = append(tests,
		epBad("string", `"5"`, ErrWrongType),
		epBad("float", "5.0", ErrWrongType),
		epBad("exponent", "5e0", ErrWrongType),
		epBad("bool", "true", ErrWrongType),
		epBad("null", "null", ErrWrongType),
		epBad("too big", tooBig32, ErrOutOfRange),
		epBad("too small", "-2147483649", ErrOutOfRange),
	)
	for _, in := range tests {
		got, err := DecodeController(in.data)
		if got != (Controller{}) {
			t.Errorf("%s: decoded %+v along with the error", in.name, got)
		}
		checkDecodeError(t, err, ControllerPath, in)
	}
}

func TestDecodePartitionStateBad(t *testing.T) {
	g := goldenPartitionLRS
	tests := commonBad(g, "controller_epoch")
	tests = append(tests, typeBad(t, g, "controller_epoch", "2", tooBig32)...)
	tests = append(tests, typeBad(t, g, "leader", "1", tooBig32)...)
	tests = append(tests, typeBad(t, g, "leader_epoch", "0", tooBig32)...)
	isr := `"isr":[1,2,3]`
	isrBad := func(name, v string, reason error) badInput {
		return badInput{"isr " + name, replace(t, g, isr, `"isr":`+v), reason, "isr"}
	}
	lrs := `"leader_recovery_state":1`
	lrsBad := func(name, v string, reason error) badInput {
		return badInput{"leader_recovery_state " + name, replace(t, g, lrs, `"leader_recovery_state":`+v), reason, "leader_recovery_state"}
	}
	tests = append(tests,
		badInput{"isr missing", replace(t, g, `,`+isr, ""), ErrMissingField, "isr"},
		isrBad("null", "null", ErrWrongType),
		isrBad("string", `"1,2,3"`, ErrWrongType),
		isrBad("number", "1", ErrWrongType),
		isrBad("object", `{"0":1}`, ErrWrongType),
		isrBad("bool", "true", ErrWrongType),
		isrBad("string element", `[1,"2",3]`, ErrWrongType),
		isrBad("float element", `[1,2.0,3]`, ErrWrongType),
		isrBad("null element", `[1,null]`, ErrWrongType),
		isrBad("bool element", `[false]`, ErrWrongType),
		isrBad("array element", `[[1]]`, ErrWrongType),
		isrBad("element too big", `[1,`+tooBig32+`]`, ErrOutOfRange),
		isrBad("element too small", `[-2147483649]`, ErrOutOfRange),
		lrsBad("2", "2", ErrOutOfRange),
		lrsBad("-1", "-1", ErrOutOfRange),
		lrsBad("128", "128", ErrOutOfRange),
		lrsBad("huge", tooBig64, ErrOutOfRange),
		lrsBad("string", `"1"`, ErrWrongType),
		lrsBad("float", "1.0", ErrWrongType),
		lrsBad("bool", "true", ErrWrongType),
		lrsBad("null", "null", ErrWrongType),
	)
	for _, in := range tests {
		got, err := DecodePartitionState(in.data)
		if !got.Equal(PartitionState{}) {
			t.Errorf("%s: decoded %+v along with the error", in.name, got)
		}
		checkDecodeError(t, err, "/brokers/topics/<topic>/partitions/<partition>/state", in)
	}
}

func TestDecodeControllerEpochBad(t *testing.T) {
	bad := func(name, data string, reason error) badInput {
		return badInput{name, []byte(data), reason, ""}
	}
	tests := []badInput{
		{"null", nil, ErrNullData, ""},
		{"empty", []byte{}, ErrEmptyData, ""},
		bad("letters", "abc", ErrWrongType),
		bad("minus alone", "-", ErrWrongType),
		bad("double minus", "--1", ErrWrongType),
		bad("leading space", " 43", ErrWrongType),
		bad("trailing space", "43 ", ErrWrongType),
		bad("newline", "43\n", ErrWrongType),
		bad("NUL", "43\x00", ErrWrongType),
		bad("inner minus", "4-3", ErrWrongType),
		bad("fraction", "43.0", ErrWrongType),
		bad("exponent", "1e3", ErrWrongType),
		bad("hex", "0x2b", ErrWrongType),
		bad("underscore", "4_3", ErrWrongType),
		bad("JSON string", `"43"`, ErrWrongType),
		bad("JSON object", `{"epoch":43}`, ErrWrongType),
		bad("invalid UTF-8", "\xff", ErrWrongType),
		bad("too big", tooBig32, ErrOutOfRange),
		bad("too small", "-2147483649", ErrOutOfRange),
		bad("huge", strings.Repeat("9", 400), ErrOutOfRange),
	}
	for _, in := range tests {
		got, err := DecodeControllerEpoch(in.data)
		if got != 0 {
			t.Errorf("%s: decoded %d along with the error", in.name, got)
		}
		checkDecodeError(t, err, ControllerEpochPath, in)
	}
}
