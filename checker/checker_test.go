package checker

import (
	"errors"
	"strings"
	"testing"

	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

// maxDepth is the deepest nesting of arrays and objects that JSON accepts,
// as its doc comment says.
const maxDepth = 10000

const (
	migration   = `{"version":0,"kraft_metadata_offset":1234,"kraft_controller_id":3000,"kraft_metadata_epoch":7,"kraft_controller_epoch":5}`
	partition   = `{"controller_epoch":2,"leader":1,"version":1,"leader_epoch":0,"isr":[1,2,3]}`
	partitionRS = `{"controller_epoch":2,"leader":1,"version":1,"leader_recovery_state":1,"leader_epoch":0,"isr":[1,2,3]}`
)

// outcome is what a checker is expected to report.
type outcome int

const (
	isLanded    outcome = iota // true, nil
	notLanded                  // false, nil
	badCurrent                 // false, *znode.DecodeError with the reason
	badIntended                // false, ErrIntended wrapping *znode.DecodeError with the reason
)

type landedTest struct {
	name              string
	intended, current []byte
	want              outcome
	reason            error // for badCurrent and badIntended
}

func b(s string) []byte { return []byte(s) }

func runLanded(t *testing.T, c Checker, tests []landedTest) {
	t.Helper()
	for _, tt := range tests {
		got, err := c.Landed(tt.intended, tt.current)
		switch tt.want {
		case isLanded, notLanded:
			if err != nil || got != (tt.want == isLanded) {
				t.Errorf("%s: Landed = %v, %v; want %v, nil", tt.name, got, err, tt.want == isLanded)
			}
			continue
		}
		if got || err == nil {
			t.Errorf("%s: Landed = %v, %v; want false and an error", tt.name, got, err)
			continue
		}
		var de *znode.DecodeError
		if !errors.As(err, &de) {
			t.Errorf("%s: error %T %v does not wrap a *znode.DecodeError", tt.name, err, err)
			continue
		}
		if !errors.Is(err, tt.reason) {
			t.Errorf("%s: error %v is not %v", tt.name, err, tt.reason)
		}
		isIntended := errors.Is(err, ErrIntended)
		hasPrefix := strings.HasPrefix(err.Error(), "intended data: ")
		switch tt.want {
		case badCurrent:
			if isIntended || hasPrefix {
				t.Errorf("%s: error %v blames the intended data", tt.name, err)
			}
			if err != error(de) {
				t.Errorf("%s: current's decode error is wrapped: %v", tt.name, err)
			}
		case badIntended:
			if !isIntended || !hasPrefix {
				t.Errorf("%s: error %v does not blame the intended data", tt.name, err)
			}
		}
	}
}

func TestFunc(t *testing.T) {
	var calls int
	var c Checker = Func(func(intended, current []byte) (bool, error) {
		calls++
		if string(intended) == "err" {
			return false, errors.New("boom")
		}
		return string(intended) == string(current), nil
	})
	if ok, err := c.Landed(b("a"), b("a")); !ok || err != nil {
		t.Errorf("Landed(a, a) = %v, %v", ok, err)
	}
	if ok, err := c.Landed(b("a"), b("b")); ok || err != nil {
		t.Errorf("Landed(a, b) = %v, %v", ok, err)
	}
	if ok, err := c.Landed(b("err"), nil); ok || err == nil || err.Error() != "boom" {
		t.Errorf("Landed(err, nil) = %v, %v", ok, err)
	}
	if calls != 3 {
		t.Errorf("function called %d times, want 3", calls)
	}
}

func TestBytes(t *testing.T) {
	tests := []struct {
		intended, current []byte
		want              bool
	}{
		{b("abc"), b("abc"), true},
		{b(migration), b(migration), true},
		{b("abc"), b("abd"), false},
		{b("abc"), b("ab"), false},
		{b(`{"a":1,"b":2}`), b(`{"b":2,"a":1}`), false},
		{b(`{"a":1}`), b(`{ "a":1}`), false},
		{nil, nil, true},
		{[]byte{}, []byte{}, true},
		{nil, []byte{}, false},
		{[]byte{}, nil, false},
		{nil, b("x"), false},
		{b("x"), nil, false},
		{b("\xff"), b("\xff"), true},
	}
	for _, tt := range tests {
		got, err := Bytes{}.Landed(tt.intended, tt.current)
		if err != nil || got != tt.want {
			t.Errorf("Landed(%q, %q) = %v, %v; want %v", tt.intended, tt.current, got, err, tt.want)
		}
	}
}

func TestMigrationState(t *testing.T) {
	runLanded(t, MigrationState{}, []landedTest{
		{"equal", b(migration), b(migration), isLanded, nil},
		{"key order", b(migration), b(`{"kraft_controller_epoch":5,"kraft_metadata_epoch":7,"kraft_controller_id":3000,"kraft_metadata_offset":1234,"version":0}`), isLanded, nil},
		{"extra key", b(migration), b(`{"version":0,"kraft_metadata_offset":1234,"kraft_controller_id":3000,"kraft_metadata_epoch":7,"kraft_controller_epoch":5,"extra":[]}`), isLanded, nil},
		{"spaces", b(migration), b(" { \"version\" : 0 , \"kraft_metadata_offset\" : 1234 , \"kraft_controller_id\" : 3000 , \"kraft_metadata_epoch\" : 7 , \"kraft_controller_epoch\" : 5 }\n"), isLanded, nil},
		{"different offset", b(migration), b(strings.Replace(migration, "1234", "1235", 1)), notLanded, nil},
		{"different controller id", b(migration), b(strings.Replace(migration, "3000", "3001", 1)), notLanded, nil},
		{"different metadata epoch", b(migration), b(strings.Replace(migration, `"kraft_metadata_epoch":7`, `"kraft_metadata_epoch":8`, 1)), notLanded, nil},
		{"different controller epoch", b(migration), b(strings.Replace(migration, `"kraft_controller_epoch":5`, `"kraft_controller_epoch":6`, 1)), notLanded, nil},
		{"initial", b(migration), znode.InitialMigration().Encode(), notLanded, nil},
		{"current null", b(migration), nil, badCurrent, znode.ErrNullData},
		{"current empty", b(migration), []byte{}, badCurrent, znode.ErrEmptyData},
		{"current garbage", b(migration), b("{"), badCurrent, znode.ErrInvalidJSON},
		{"current float", b(migration), b(strings.Replace(migration, "1234", "1234.0", 1)), badCurrent, znode.ErrWrongType},
		{"current unknown version", b(migration), b(strings.Replace(migration, `"version":0`, `"version":1`, 1)), badCurrent, znode.ErrUnknownVersion},
		{"intended null", nil, b(migration), badIntended, znode.ErrNullData},
		{"intended missing field", b(`{"version":0}`), b(migration), badIntended, znode.ErrMissingField},
		{"both bad", b("x"), b("y"), badIntended, znode.ErrInvalidJSON},
	})
}

func TestLeaderAndIsr(t *testing.T) {
	runLanded(t, LeaderAndIsr{}, []landedTest{
		{"equal", b(partition), b(partition), isLanded, nil},
		{"equal recovering", b(partitionRS), b(partitionRS), isLanded, nil},
		{"key order", b(partitionRS), b(`{"isr":[1,2,3],"leader_epoch":0,"leader_recovery_state":1,"version":1,"leader":1,"controller_epoch":2}`), isLanded, nil},
		{"extra key", b(partition), b(`{"controller_epoch":2,"leader":1,"version":1,"leader_epoch":0,"isr":[1,2,3],"partition_epoch":9}`), isLanded, nil},
		{"spaces", b(partition), b(`{ "controller_epoch" : 2, "leader" : 1, "version" : 1, "leader_epoch" : 0, "isr" : [ 1, 2, 3 ] }`), isLanded, nil},
		{"explicit recovered", b(partition), b(`{"controller_epoch":2,"leader":1,"version":1,"leader_recovery_state":0,"leader_epoch":0,"isr":[1,2,3]}`), isLanded, nil},
		{"different controller epoch", b(partition), b(strings.Replace(partition, `"controller_epoch":2`, `"controller_epoch":3`, 1)), notLanded, nil},
		{"different leader", b(partition), b(strings.Replace(partition, `"leader":1`, `"leader":2`, 1)), notLanded, nil},
		{"different leader epoch", b(partition), b(strings.Replace(partition, `"leader_epoch":0`, `"leader_epoch":1`, 1)), notLanded, nil},
		{"different recovery state", b(partition), b(partitionRS), notLanded, nil},
		{"ISR order", b(partition), b(strings.Replace(partition, "[1,2,3]", "[3,2,1]", 1)), notLanded, nil},
		{"ISR shorter", b(partition), b(strings.Replace(partition, "[1,2,3]", "[1,2]", 1)), notLanded, nil},
		{"ISR empty", b(partition), b(strings.Replace(partition, "[1,2,3]", "[]", 1)), notLanded, nil},
		{"current null", b(partition), nil, badCurrent, znode.ErrNullData},
		{"current null ISR", b(partition), b(strings.Replace(partition, "[1,2,3]", "null", 1)), badCurrent, znode.ErrWrongType},
		{"current missing leader", b(partition), b(strings.Replace(partition, `"leader":1,`, "", 1)), badCurrent, znode.ErrMissingField},
		{"intended bad recovery state", b(strings.Replace(partitionRS, `"leader_recovery_state":1`, `"leader_recovery_state":2`, 1)), b(partition), badIntended, znode.ErrOutOfRange},
	})
}

func TestControllerEpoch(t *testing.T) {
	runLanded(t, ControllerEpoch{}, []landedTest{
		{"equal", b("43"), b("43"), isLanded, nil},
		{"leading zero", b("43"), b("043"), isLanded, nil},
		{"minus zero", b("0"), b("-0"), isLanded, nil},
		{"different", b("43"), b("44"), notLanded, nil},
		{"negative", b("1"), b("-1"), notLanded, nil},
		{"current null", b("43"), nil, badCurrent, znode.ErrNullData},
		{"current empty", b("43"), []byte{}, badCurrent, znode.ErrEmptyData},
		{"current newline", b("43"), b("43\n"), badCurrent, znode.ErrWrongType},
		{"current overflow", b("43"), b("2147483648"), badCurrent, znode.ErrOutOfRange},
		{"intended garbage", b("x"), b("43"), badIntended, znode.ErrWrongType},
	})
}

func TestJSON(t *testing.T) {
	runLanded(t, JSON{}, []landedTest{
		{"equal", b(migration), b(migration), isLanded, nil},
		{"key order", b(`{"a":1,"b":2}`), b(`{"b":2,"a":1}`), isLanded, nil},
		{"spaces", b(`{"a":[1,2],"b":{"c":null}}`), b(" {\n\t\"a\" : [ 1 , 2 ] ,\r\n \"b\" : { \"c\" : null } } "), isLanded, nil},
		{"nested key order", b(`{"o":{"x":1,"y":2}}`), b(`{"o":{"y":2,"x":1}}`), isLanded, nil},
		{"extra key", b(`{"a":1}`), b(`{"a":1,"b":2}`), notLanded, nil},
		{"missing key", b(`{"a":1,"b":2}`), b(`{"a":1}`), notLanded, nil},
		{"different key", b(`{"a":1}`), b(`{"b":1}`), notLanded, nil},
		{"different value", b(`{"a":1}`), b(`{"a":2}`), notLanded, nil},
		{"array order", b(`[1,2]`), b(`[2,1]`), notLanded, nil},
		{"array length", b(`[1,2]`), b(`[1,2,2]`), notLanded, nil},
		{"duplicate keys, last wins", b(`{"a":1,"a":2}`), b(`{"a":2}`), isLanded, nil},
		{"duplicate keys, first ignored", b(`{"a":1,"a":2}`), b(`{"a":1}`), notLanded, nil},
		{"1 and 1.0", b(`1`), b(`1.0`), isLanded, nil},
		{"1 and 1e0", b(`1`), b(`1e0`), isLanded, nil},
		{"1 and 10e-1", b(`1`), b(`10e-1`), isLanded, nil},
		{"100 and 1E+2", b(`100`), b(`1E+2`), isLanded, nil},
		{"0.5 and 5e-1", b(`0.5`), b(`5e-1`), isLanded, nil},
		{"0 and -0", b(`0`), b(`-0.0e7`), isLanded, nil},
		{"1 and -1", b(`1`), b(`-1`), notLanded, nil},
		{"10 and 1", b(`10`), b(`1`), notLanded, nil},
		{"0.1 and 0.01", b(`0.1`), b(`0.01`), notLanded, nil},
		{"large exponents", b(`1e1000000000000000000000`), b(`10e999999999999999999999`), isLanded, nil},
		{"large exponents differ", b(`1e1000000000000000000000`), b(`1e1000000000000000000001`), notLanded, nil},
		{"exponent with zeros", b(`2e0000000000000000000000000000001`), b(`20`), isLanded, nil},
		{"beyond float64 precision", b(`9007199254740993`), b(`9007199254740992`), notLanded, nil},
		{"beyond float64 range", b(`1e400`), b(`1e401`), notLanded, nil},
		{"tiny", b(`1e-400`), b(`0`), notLanded, nil},
		{"number and string", b(`1`), b(`"1"`), notLanded, nil},
		{"null and false", b(`null`), b(`false`), notLanded, nil},
		{"true and false", b(`true`), b(`false`), notLanded, nil},
		{"empty array and object", b(`[]`), b(`{}`), notLanded, nil},
		{"escaped string", b(`"é\n/"`), b(`"\u00e9\u000a\/"`), isLanded, nil},
		{"surrogate pair", b(`"😀"`), b(`"\ud83d\ude00"`), isLanded, nil},
		{"lone surrogate", b(`"\ud800"`), b(`"\ufffd"`), badIntended, znode.ErrInvalidJSON},
		{"lone surrogates", b(`"\ud800"`), b(`"\udc00"`), badIntended, znode.ErrInvalidJSON},
		{"lone surrogate itself", b(`"\ud800x"`), b(`"\uD800x"`), badIntended, znode.ErrInvalidJSON},
		{"high then not low", b(`"\ud800\u0041"`), b(`"\ud800A"`), badIntended, znode.ErrInvalidJSON},
		{"escaped key", b(`{"a":1}`), b(`{"\u0061":1}`), isLanded, nil},
		{"strings differ", b(`"a"`), b(`"b"`), notLanded, nil},
		{"current null", b(`{}`), nil, badCurrent, znode.ErrNullData},
		{"current empty", b(`{}`), []byte{}, badCurrent, znode.ErrEmptyData},
		{"current truncated", b(`{}`), b(`{"a":`), badCurrent, znode.ErrInvalidJSON},
		{"current trailing", b(`{}`), b(`{} {}`), badCurrent, znode.ErrInvalidJSON},
		{"current spaces only", b(`{}`), b(` `), badCurrent, znode.ErrInvalidJSON},
		{"current leading zero", b(`1`), b(`01`), badCurrent, znode.ErrInvalidJSON},
		{"current bare fraction", b(`1`), b(`1.`), badCurrent, znode.ErrInvalidJSON},
		{"current plus", b(`1`), b(`+1`), badCurrent, znode.ErrInvalidJSON},
		{"current NaN", b(`1`), b(`NaN`), badCurrent, znode.ErrInvalidJSON},
		{"current invalid UTF-8", b(`"a"`), b("\"\xff\""), badCurrent, znode.ErrInvalidJSON},
		{"current control character", b(`"a"`), b("\"\n\""), badCurrent, znode.ErrInvalidJSON},
		{"current bad escape", b(`"a"`), b(`"\x"`), badCurrent, znode.ErrInvalidJSON},
		{"current short unicode escape", b(`"a"`), b(`"\u12"`), badCurrent, znode.ErrInvalidJSON},
		{"current single quotes", b(`"a"`), b(`'a'`), badCurrent, znode.ErrInvalidJSON},
		{"current trailing comma", b(`[1]`), b(`[1,]`), badCurrent, znode.ErrInvalidJSON},
		{"current unquoted key", b(`{"a":1}`), b(`{a:1}`), badCurrent, znode.ErrInvalidJSON},
		{"current too deep", b(`[]`), b(strings.Repeat("[", maxDepth+1) + strings.Repeat("]", maxDepth+1)), badCurrent, znode.ErrInvalidJSON},
		{"intended garbage", b(`{`), b(`{}`), badIntended, znode.ErrInvalidJSON},
		{"intended null", nil, b(`{}`), badIntended, znode.ErrNullData},
	})
	deep := b(strings.Repeat(`{"a":[`, maxDepth/2) + strings.Repeat("]}", maxDepth/2))
	if ok, err := (JSON{}).Landed(deep, deep); !ok || err != nil {
		t.Errorf("nesting %d levels deep: Landed = %v, %v", maxDepth, ok, err)
	}
}

func TestJSONErrorDetail(t *testing.T) {
	_, err := JSON{}.Landed(b(`{}`), b(`{"a" 1}`))
	var de *znode.DecodeError
	if !errors.As(err, &de) {
		t.Fatalf("error %v is not a *znode.DecodeError", err)
	}
	if de.Path != "" || de.Field != "" || string(de.Data) != `{"a" 1}` {
		t.Errorf("DecodeError = %+v", de)
	}
	want := `decode: invalid JSON: invalid character '1' after object key at offset 5 (data: "{\"a\" 1}")`
	if err.Error() != want {
		t.Errorf("Error() = %s, want %s", err, want)
	}
	_, err = JSON{}.Landed(b(`{`), b(`{}`))
	want = `intended data: decode: invalid JSON: unexpected end of data (data: "{")`
	if err == nil || err.Error() != want {
		t.Errorf("Error() = %v, want %s", err, want)
	}
}

func TestJSONSurrogates(t *testing.T) {
	runLanded(t, JSON{}, []landedTest{
		{"pair", b(`"\ud83d\ude00"`), b(`"😀"`), isLanded, nil},
		{"pair in capitals", b(`"\uD83D\uDE00"`), b(`"😀"`), isLanded, nil},
		{"pair in a key", b(`{"\ud83d\ude00":1}`), b(`{"😀":1}`), isLanded, nil},
		{"pairs in a row", b(`"\ud83d\ude00\udbff\udfff"`), b("\"😀\U0010ffff\""), isLanded, nil},
		{"not surrogates", b(`"\ud7ff\ue000"`), b("\"\ud7ff\ue000\""), isLanded, nil},
		{"escaped backslash", b(`"\\ud800"`), b(`"\u005cud800"`), isLanded, nil},
		{"escaped backslash, pair", b(`"\\\ud83d\ude00"`), b(`"\\😀"`), isLanded, nil},
		{"escaped backslashes", b(`"\\\\ud800"`), b(`"\\\\ud800"`), isLanded, nil},
		{"escaped quote", b(`"\"\ud83d\ude00"`), b(`"\"😀"`), isLanded, nil},
		{"current high alone", b(`"a"`), b(`"\ud800"`), badCurrent, znode.ErrInvalidJSON},
		{"current high at the end", b(`"a"`), b(`"a\udbff"`), badCurrent, znode.ErrInvalidJSON},
		{"current low alone", b(`"a"`), b(`"\udc00"`), badCurrent, znode.ErrInvalidJSON},
		{"current low in capitals", b(`"a"`), b(`"\uDFFF"`), badCurrent, znode.ErrInvalidJSON},
		{"current high then text", b(`"a"`), b(`"\ud83dx"`), badCurrent, znode.ErrInvalidJSON},
		{"current high then other escape", b(`"a"`), b(`"\ud83d\n"`), badCurrent, znode.ErrInvalidJSON},
		{"current high then not low", b(`"a"`), b(`"\ud83d\u0041"`), badCurrent, znode.ErrInvalidJSON},
		{"current high then high", b(`"a"`), b(`"\ud83d\ud83d\ude00"`), badCurrent, znode.ErrInvalidJSON},
		{"current high then escaped backslash", b(`"a"`), b(`"\ud83d\\ude00"`), badCurrent, znode.ErrInvalidJSON},
		{"current reversed pair", b(`"a"`), b(`"\ude00\ud83d"`), badCurrent, znode.ErrInvalidJSON},
		{"current low then low", b(`"a"`), b(`"\udc00\udfff"`), badCurrent, znode.ErrInvalidJSON},
		{"current pair split", b(`"a"`), b(`["\ud83d","\ude00"]`), badCurrent, znode.ErrInvalidJSON},
		{"current escaped backslash, then lone", b(`"a"`), b(`"\\\ud800"`), badCurrent, znode.ErrInvalidJSON},
		{"current lone in a key", b(`{"a":1}`), b(`{"\udc00":1}`), badCurrent, znode.ErrInvalidJSON},
		{"current lone and U+FFFD", b(`"\ufffd"`), b(`"\ud800"`), badCurrent, znode.ErrInvalidJSON},
		{"intended lone", b(`["\udfff"]`), b(`["\ufffd"]`), badIntended, znode.ErrInvalidJSON},
	})
}

func TestJSONHugeExponents(t *testing.T) {
	nines, zeros := strings.Repeat("9", 100000), strings.Repeat("0", 100000)
	runLanded(t, JSON{}, []landedTest{
		{"1e400", b(`1e400`), b(`1e400`), isLanded, nil},
		{"1e400 and 10e399", b(`1e400`), b(`10e399`), isLanded, nil},
		{"1e400 and 1e401", b(`1e400`), b(`1e401`), notLanded, nil},
		{"1e999999999", b(`1e999999999`), b(`100e999999997`), isLanded, nil},
		{"1e999999999 and 1e999999998", b(`1e999999999`), b(`1e999999998`), notLanded, nil},
		{"1e-999999999", b(`1e-999999999`), b(`0.001e-999999996`), isLanded, nil},
		{"1e-999999999 and 1e-999999998", b(`1e-999999999`), b(`1e-999999998`), notLanded, nil},
		{"1e-999999999 and 0", b(`1e-999999999`), b(`0`), notLanded, nil},
		{"1e999999999 and -1e999999999", b(`1e999999999`), b(`-1e999999999`), notLanded, nil},
		{"past int64", b(`1e9223372036854775808`), b(`10e9223372036854775807`), isLanded, nil},
		{"past int64, fraction", b(`0.5e9223372036854775808`), b(`5e9223372036854775807`), isLanded, nil},
		{"past int64, negative", b(`-0.1e-9223372036854775808`), b(`-1E-9223372036854775809`), isLanded, nil},
		{"past int64, differ", b(`1e9223372036854775808`), b(`1e9223372036854775807`), notLanded, nil},
		{"carry into a new digit", b(`10e` + nines), b(`1e1` + zeros), isLanded, nil},
		{"borrow from every digit", b(`0.1e1` + zeros), b(`1e` + nines), isLanded, nil},
		{"negative, carry into a new digit", b(`0.1e-` + nines), b(`1e-1` + zeros), isLanded, nil},
		{"negative, borrow from every digit", b(`10e-1` + zeros), b(`1E-` + nines), isLanded, nil},
		{"long exponents differ", b(`1e` + nines), b(`1e` + nines[1:] + "8"), notLanded, nil},
		{"zero with a huge exponent", b(`0e999999999999999999999`), b(`-0.0E-999999999999999999999`), isLanded, nil},
	})
}

func TestJSONInvalidUTF8(t *testing.T) {
	runLanded(t, JSON{}, []landedTest{
		{"current in a string", b(`"a"`), b("\"a\xff\""), badCurrent, znode.ErrInvalidJSON},
		{"current in a key", b(`{"a":1}`), b("{\"\xc3\":1}"), badCurrent, znode.ErrInvalidJSON},
		{"current overlong", b(`"/"`), b("\"\xc0\xaf\""), badCurrent, znode.ErrInvalidJSON},
		{"current encoded surrogate", b(`"a"`), b("\"\xed\xa0\x80\""), badCurrent, znode.ErrInvalidJSON},
		{"current against U+FFFD", b(`"\ufffd"`), b("\"\xff\""), badCurrent, znode.ErrInvalidJSON},
		{"current between values", b(`[1]`), b("[1,\xff]"), badCurrent, znode.ErrInvalidJSON},
		{"intended", b("\"\xff\""), b(`"\ufffd"`), badIntended, znode.ErrInvalidJSON},
		{"U+FFFD itself", b("\"\ufffd\""), b(`"\ufffd"`), isLanded, nil},
	})
}

func TestJSONDuplicateKeys(t *testing.T) {
	runLanded(t, JSON{}, []landedTest{
		{"last wins", b(`{"a":1,"b":0,"a":2}`), b(`{"b":0,"a":2}`), isLanded, nil},
		{"first ignored", b(`{"a":1,"b":0,"a":2}`), b(`{"b":0,"a":1}`), notLanded, nil},
		{"escaped duplicate", b(`{"a":1,"\u0061":2}`), b(`{"a":2}`), isLanded, nil},
		{"nested", b(`[{"a":{"x":1},"a":{"y":2}}]`), b(`[{"a":{"y":2}}]`), isLanded, nil},
		{"both sides", b(`{"a":1,"a":3}`), b(`{"a":2,"a":3}`), isLanded, nil},
		{"different last", b(`{"a":1,"a":3}`), b(`{"a":3,"a":1}`), notLanded, nil},
	})
}

func TestJSONTrailingData(t *testing.T) {
	runLanded(t, JSON{}, []landedTest{
		{"whitespace", b(`{}`), b(" {} \t\r\n"), isLanded, nil},
		{"current second value", b(`1`), b(`1 2`), badCurrent, znode.ErrInvalidJSON},
		{"current letter after a number", b(`1`), b(`1x`), badCurrent, znode.ErrInvalidJSON},
		{"current closing bracket", b(`[1]`), b(`[1]]`), badCurrent, znode.ErrInvalidJSON},
		{"current second string", b(`"a"`), b(`"a""b"`), badCurrent, znode.ErrInvalidJSON},
		{"current comma", b(`null`), b(`null,`), badCurrent, znode.ErrInvalidJSON},
		{"current NUL", b(`{}`), b("{}\x00"), badCurrent, znode.ErrInvalidJSON},
		{"current after a literal", b(`true`), b(`truex`), badCurrent, znode.ErrInvalidJSON},
		{"intended second object", b(`{} {}`), b(`{}`), badIntended, znode.ErrInvalidJSON},
	})
}

func TestJSONInvalidDataDetail(t *testing.T) {
	for _, tt := range []struct{ data, detail string }{
		{`{} x`, `unexpected 'x' at offset 3 after the top-level value`},
		{`"ab\u00e9\udc00"`, `lone surrogate \udc00 at offset 9`},
		{"\"\xff\"", `invalid UTF-8`},
		{"  ", `no value, only whitespace`},
		{`[1,]`, `invalid character ']' looking for beginning of value at offset 3`},
		{strings.Repeat("[", maxDepth+1), `invalid character '[' exceeded max depth at offset 10000`},
	} {
		_, err := JSON{}.Landed(b(`{}`), b(tt.data))
		var de *znode.DecodeError
		if !errors.As(err, &de) || de.Reason != znode.ErrInvalidJSON || de.Path != "" || de.Field != "" {
			t.Errorf("%q: error %v, want an invalid JSON *znode.DecodeError", tt.data, err)
			continue
		}
		if de.Detail != tt.detail || string(de.Data) != tt.data {
			t.Errorf("%q: Detail %q, Data %q; want %q", tt.data, de.Detail, de.Data, tt.detail)
		}
	}
}
