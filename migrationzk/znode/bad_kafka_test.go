package znode

import (
	"strings"
	"testing"
)

// stringBad returns inputs where the string field key of golden, written
// there as "key":value, has a wrong type or is missing; field is the name
// errors report it under.
func stringBad(t *testing.T, golden, key, value, field string) []badInput {
	t.Helper()
	kv := `"` + key + `":` + value
	in := func(name, v string) badInput {
		return badInput{field + " " + name, replace(t, golden, kv, `"`+key+`":`+v), ErrWrongType, field}
	}
	return []badInput{
		in("number", "1"),
		in("bool", "true"),
		in("null", "null"),
		in("array", "["+value+"]"),
		in("object", "{}"),
	}
}

// versionBad returns the inputs about the version field of golden, whose
// version is v.
func versionBad(t *testing.T, golden, v string) []badInput {
	t.Helper()
	kv := `"version":` + v
	in := func(name, nv string, reason error) badInput {
		return badInput{"version " + name, replace(t, golden, kv, `"version":`+nv), reason, "version"}
	}
	return []badInput{
		in("0", "0", ErrUnknownVersion),
		in("3", "3", ErrUnknownVersion),
		in("-1", "-1", ErrUnknownVersion),
		in("too big", tooBig64, ErrUnknownVersion),
		in("string", `"`+v+`"`, ErrWrongType),
		in("float", v+".0", ErrWrongType),
		in("null", "null", ErrWrongType),
		{"version alone", []byte(`{"version":7}`), ErrUnknownVersion, "version"},
	}
}

func TestDecodeConfigBad(t *testing.T) {
	g := goldenConfig
	tests := commonBad(g, "config")
	tests = append(tests, stringBad(t, g, "producer_byte_rate", `"1024"`, "config.producer_byte_rate")...)
	tests = append(tests,
		badInput{"config missing", []byte(`{"version":1}`), ErrMissingField, "config"},
		badInput{"config null", []byte(`{"version":1,"config":null}`), ErrWrongType, "config"},
		badInput{"config array", []byte(`{"version":1,"config":[]}`), ErrWrongType, "config"},
		badInput{"config string", []byte(`{"version":1,"config":"a=b"}`), ErrWrongType, "config"},
		badInput{"number value", []byte(`{"version":1,"config":{"a":"x","retention.ms":1000}}`), ErrWrongType, "config.retention.ms"},
		badInput{"first bad value in order", []byte(`{"version":1,"config":{"b":2,"a":1}}`), ErrWrongType, "config.b"},
		badInput{"duplicate, last bad", []byte(`{"version":1,"config":{"a":"1","a":1}}`), ErrWrongType, "config.a"},
	)
	for _, in := range tests {
		got, err := DecodeConfig(in.data)
		if got != nil {
			t.Errorf("%s: decoded %v along with the error", in.name, got)
		}
		checkDecodeError(t, err, "/config/<type>/<name>", in)
	}
}

func TestDecodeConfigChangeBad(t *testing.T) {
	g := goldenConfigChange
	tests := commonBad(g, "version")
	tests = append(tests, versionBad(t, g, "2")...)
	tests = append(tests, stringBad(t, g, "entity_path", `"brokers/1"`, "entity_path")...)
	tests = append(tests,
		badInput{"entity_path missing", []byte(`{"version":2}`), ErrMissingField, "entity_path"},
	)
	for _, in := range tests {
		got, err := DecodeConfigChange(in.data)
		if got != (ConfigChange{}) {
			t.Errorf("%s: decoded %+v along with the error", in.name, got)
		}
		checkDecodeError(t, err, "/config/changes/config_change_<n>", in)
	}
}

func TestDecodeACLsBad(t *testing.T) {
	g := goldenACLs
	tests := commonBad(g, "version")
	tests = append(tests, versionBad(t, g, "1")...)
	for _, f := range [][2]string{{"principal", `"User:alice"`}, {"permissionType", `"Allow"`}, {"operation", `"Read"`}, {"host", `"*"`}} {
		tests = append(tests, stringBad(t, g, f[0], f[1], "acls."+f[0])...)
		tests = append(tests, badInput{f[0] + " missing", []byte(strings.Replace(strings.Replace(g, `"`+f[0]+`":`+f[1]+`,`, "", 1), `,"`+f[0]+`":`+f[1], "", 1)), ErrMissingField, "acls." + f[0]})
	}
	entry := `{"principal":"User:alice","permissionType":"Allow","host":"*","operation":"Read"}`
	acls := func(entries ...string) []byte {
		return []byte(`{"acls":[` + strings.Join(entries, ",") + `],"version":1}`)
	}
	tests = append(tests,
		badInput{"acls missing", []byte(`{"version":1}`), ErrMissingField, "acls"},
		badInput{"acls null", []byte(`{"version":1,"acls":null}`), ErrWrongType, "acls"},
		badInput{"acls object", []byte(`{"version":1,"acls":{}}`), ErrWrongType, "acls"},
		badInput{"acls string", []byte(`{"version":1,"acls":"x"}`), ErrWrongType, "acls"},
		badInput{"entry string", acls(entry, `"User:bob"`), ErrWrongType, "acls"},
		badInput{"entry null", acls(`null`), ErrWrongType, "acls"},
		badInput{"entry array", acls(`[]`), ErrWrongType, "acls"},
		badInput{"unknown operation", acls(strings.Replace(entry, `"Read"`, `"Fly"`, 1)), ErrInvalidValue, "acls.operation"},
		badInput{"operation Any", acls(strings.Replace(entry, `"Read"`, `"Any"`, 1)), ErrInvalidValue, "acls.operation"},
		badInput{"unknown permission", acls(entry, strings.Replace(entry, `"Allow"`, `"Maybe"`, 1)), ErrInvalidValue, "acls.permissionType"},
		badInput{"permission Any", acls(strings.Replace(entry, `"Allow"`, `"Any"`, 1)), ErrInvalidValue, "acls.permissionType"},
		badInput{"principal without type", acls(strings.Replace(entry, `"User:alice"`, `"alice"`, 1)), ErrInvalidValue, "acls.principal"},
		badInput{"principal empty", acls(strings.Replace(entry, `"User:alice"`, `""`, 1)), ErrInvalidValue, "acls.principal"},
	)
	for _, in := range tests {
		got, err := DecodeACLs(in.data)
		if got != nil {
			t.Errorf("%s: decoded %+v along with the error", in.name, got)
		}
		checkDecodeError(t, err, "/kafka-acl/<Type>/<name>", in)
	}
}

func TestDecodeExtendedACLChangeBad(t *testing.T) {
	g := goldenExtendedACLChange
	tests := commonBad(g, "version")
	tests = append(tests, versionBad(t, g, "1")...)
	tests = append(tests, stringBad(t, g, "resourceType", `"TOPIC"`, "resourceType")...)
	tests = append(tests, stringBad(t, g, "name", `"foo"`, "name")...)
	tests = append(tests, stringBad(t, g, "patternType", `"PREFIXED"`, "patternType")...)
	tests = append(tests,
		badInput{"resourceType missing", replace(t, g, `"resourceType":"TOPIC",`, ""), ErrMissingField, "resourceType"},
		badInput{"name missing", replace(t, g, `"name":"foo",`, ""), ErrMissingField, "name"},
		badInput{"patternType missing", replace(t, g, `,"patternType":"PREFIXED"`, ""), ErrMissingField, "patternType"},
		badInput{"resourceType ANY", replace(t, g, `"TOPIC"`, `"ANY"`), ErrInvalidValue, "resourceType"},
		badInput{"patternType MATCH", replace(t, g, `"PREFIXED"`, `"MATCH"`), ErrInvalidValue, "patternType"},
		badInput{"patternType lower case", replace(t, g, `"PREFIXED"`, `"prefixed"`), ErrInvalidValue, "patternType"},
	)
	for _, in := range tests {
		got, err := DecodeExtendedACLChange(in.data)
		if got != (ExtendedACLChange{}) {
			t.Errorf("%s: decoded %+v along with the error", in.name, got)
		}
		checkDecodeError(t, err, "/kafka-acl-extended-changes/acl_changes_<n>", in)
	}
}

func TestDecodeLiteralACLChangeBad(t *testing.T) {
	bad := func(name, data string) badInput { return badInput{name, []byte(data), ErrInvalidValue, ""} }
	tests := []badInput{
		{"null", nil, ErrNullData, ""},
		{"empty", []byte{}, ErrEmptyData, ""},
		bad("no colon", "TOPIC"),
		bad("type ANY", "ANY:foo"),
		bad("empty type", ":foo"),
		bad("space", " TOPIC:foo"),
		bad("JSON", `{"resourceType":"TOPIC","name":"foo"}`),
		bad("invalid UTF-8", "TOPIC:\xff"),
	}
	for _, in := range tests {
		got, err := DecodeLiteralACLChange(in.data)
		if got != (LiteralACLChange{}) {
			t.Errorf("%s: decoded %+v along with the error", in.name, got)
		}
		checkDecodeError(t, err, "/kafka-acl-changes/acl_changes_<n>", in)
	}
}

func TestDecodeScramCredentialBad(t *testing.T) {
	g := goldenScram
	in := func(name, data string, reason error, field string) badInput {
		return badInput{name, []byte(data), reason, field}
	}
	tests := []badInput{
		{"null", nil, ErrNullData, ""},
		{"empty", []byte{}, ErrEmptyData, ""},
		in("no equals", "salt", ErrInvalidValue, ""),
		in("empty token", strings.Replace(g, ",", ",,", 1), ErrInvalidValue, ""),
		in("only commas", ",,", ErrInvalidValue, ""),
		in("line break in Base64", strings.Replace(g, "c2FsdA==", "c2Fs\ndA==", 1), ErrInvalidValue, "salt"),
		in("empty key", "="+g, ErrInvalidValue, ""),
		in("spaces", strings.ReplaceAll(g, ",", ", "), ErrInvalidValue, " stored_key"),
		in("unknown key", g+",pepper=eA==", ErrInvalidValue, "pepper"),
		in("upper-case key", strings.Replace(g, "salt=", "SALT=", 1), ErrInvalidValue, "SALT"),
		in("salt missing", strings.Replace(g, "salt=c2FsdA==,", "", 1), ErrMissingField, "salt"),
		in("stored_key missing", strings.Replace(g, "stored_key=c3RvcmVk,", "", 1), ErrMissingField, "stored_key"),
		in("server_key missing", strings.Replace(g, "server_key=c2VydmVy,", "", 1), ErrMissingField, "server_key"),
		in("iterations missing", strings.Replace(g, ",iterations=4096", "", 1), ErrMissingField, "iterations"),
		in("salt not Base64", strings.Replace(g, "c2FsdA==", "c2Fs!A==", 1), ErrInvalidValue, "salt"),
		in("salt URL alphabet", strings.Replace(g, "c2FsdA==", "_-__", 1), ErrInvalidValue, "salt"),
		in("salt bad padding", strings.Replace(g, "c2FsdA==", "c2FsdA=", 1), ErrInvalidValue, "salt"),
		in("stored_key one char", strings.Replace(g, "c3RvcmVk", "c", 1), ErrInvalidValue, "stored_key"),
		in("iterations empty", strings.Replace(g, "4096", "", 1), ErrWrongType, "iterations"),
		in("iterations float", strings.Replace(g, "4096", "4096.0", 1), ErrWrongType, "iterations"),
		in("iterations hex", strings.Replace(g, "4096", "0x1000", 1), ErrWrongType, "iterations"),
		in("iterations too big", strings.Replace(g, "4096", tooBig32, 1), ErrOutOfRange, "iterations"),
		in("iterations too small", strings.Replace(g, "4096", "-2147483649", 1), ErrOutOfRange, "iterations"),
	}
	for _, in := range tests {
		got, err := DecodeScramCredential(in.data)
		if !got.Equal(ScramCredential{}) || got.Salt != nil {
			t.Errorf("%s: decoded %+v along with the error", in.name, got)
		}
		checkDecodeError(t, err, "/config/users/<user>", in)
	}
}
