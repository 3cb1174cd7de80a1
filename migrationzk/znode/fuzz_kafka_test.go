package znode

import (
	"bytes"
	"math"
	"strings"
	"testing"
	"unicode/utf8"
)

// kafkaSeeds returns inputs for the fuzz targets of the config, ACL and
// SCRAM decoders: the shared JSON seeds and near misses of each format.
func kafkaSeeds() []string {
	return append(jsonSeeds(),
		goldenConfig,
		goldenConfigChange,
		goldenACLs,
		goldenExtendedACLChange,
		goldenScram,
		`{"version":1,"config":{}}`,
		`{"version":1,"config":{"a":1}}`,
		`{"version":1,"config":{"\ud83d\ude00":"\u2028","a":"\u0000"}}`,
		`{"version":1,"config":{"a":"1","a":"2"}}`,
		`{"version":2,"entity_path":"users/alice%40x/clients/c1"}`,
		`{"acls":[],"version":1}`,
		`{"acls":[{"principal":"User:a","permissionType":"Deny","host":"*","operation":"All"},{"principal":"User:a","permissionType":"Deny","host":"*","operation":"All"}],"version":1}`,
		`{"acls":[{"principal":"a","permissionType":"Allow","host":"*","operation":"Read"}],"version":1}`,
		`{"acls":[null],"version":1}`,
		`{"version":1,"resourceType":"TRANSACTIONAL_ID","name":"","patternType":"LITERAL"}`,
		`{"version":1,"resourceType":"Topic","name":"foo","patternType":"MATCH"}`,
		"TOPIC:foo",
		"GROUP:a:b",
		"USER:",
		"Topic:foo",
		"salt=,stored_key=,server_key=,iterations=0",
		"salt=c2FsdA,stored_key=c3RvcmVk,server_key=c2VydmVy,iterations=-1",
		"salt=c2FsdA==,salt=c2FsdA==",
	)
}

func FuzzDecodeConfig(f *testing.F) {
	for _, s := range kafkaSeeds() {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := DecodeConfig(data)
		if err != nil {
			checkFuzzError(t, err, configPattern, data)
			if c != nil {
				t.Fatalf("decoded %v along with error %v", c, err)
			}
			return
		}
		checkAccepted(t, data)
		enc := c.Encode()
		c2, err := DecodeConfig(enc)
		if err != nil || !mapsEqual(c2, c) {
			t.Fatalf("decode(encode(%q)) = %q, %v", c, c2, err)
		}
		if enc2 := c2.Encode(); !bytes.Equal(enc2, enc) {
			t.Fatalf("encoding not stable: %s then %s", enc, enc2)
		}
	})
}

// splitFuzzStrings cuts fuzz input into valid UTF-8 strings at NUL bytes.
func splitFuzzStrings(data []byte) []string {
	return strings.Split(strings.ToValidUTF8(string(data), "\uFFFD"), "\x00")
}

func FuzzConfigRoundTrip(f *testing.F) {
	f.Add([]byte("request_percentage\x0058.58\x00producer_byte_rate\x001024"))
	f.Add([]byte("\x00\x00a\x00\"\\\u2028\x00😀\x00\x7f"))
	f.Add([]byte("AaAa\x001\x00BBBB\x002\x00AaBB\x003\x00BBAa\x004"))
	f.Fuzz(func(t *testing.T, data []byte) {
		parts := splitFuzzStrings(data)
		c := Config{}
		for i := 0; i+1 < len(parts); i += 2 {
			c[parts[i]] = parts[i+1]
		}
		enc := c.Encode()
		got, err := DecodeConfig(enc)
		if err != nil || !mapsEqual(got, c) {
			t.Fatalf("decode(encode(%q)) = %q, %v (%s)", c, got, err, enc)
		}
	})
}

func FuzzDecodeConfigChange(f *testing.F) {
	for _, s := range kafkaSeeds() {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		n, err := DecodeConfigChange(data)
		if err != nil {
			checkFuzzError(t, err, configChangePattern, data)
			if n != (ConfigChange{}) {
				t.Fatalf("decoded %+v along with error %v", n, err)
			}
			return
		}
		checkAccepted(t, data)
		enc := n.Encode()
		n2, err := DecodeConfigChange(enc)
		if err != nil || n2 != n {
			t.Fatalf("decode(encode(%+v)) = %+v, %v", n, n2, err)
		}
	})
}

func FuzzDecodeACLs(f *testing.F) {
	for _, s := range kafkaSeeds() {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		a, err := DecodeACLs(data)
		if err != nil {
			checkFuzzError(t, err, aclsPattern, data)
			if a != nil {
				t.Fatalf("decoded %+v along with error %v", a, err)
			}
			return
		}
		checkAccepted(t, data)
		for _, e := range a {
			if !e.PermissionType.Valid() || !e.Operation.Valid() || !strings.Contains(e.Principal, ":") {
				t.Fatalf("decoded invalid entry %+v", e)
			}
		}
		enc := a.Encode()
		a2, err := DecodeACLs(enc)
		if err != nil || !a2.Equal(a) || len(a2) != len(a) {
			t.Fatalf("decode(encode(%+v)) = %+v, %v", a, a2, err)
		}
		if enc2 := a2.Encode(); !bytes.Equal(enc2, enc) {
			t.Fatalf("encoding not stable: %s then %s", enc, enc2)
		}
	})
}

func FuzzACLsRoundTrip(f *testing.F) {
	f.Add([]byte("User:alice\x00*\x00User:bob\x0010.0.0.1"), uint64(0x1234))
	f.Add([]byte("User:a\x00*\x00User:a\x00*"), uint64(0))
	f.Fuzz(func(t *testing.T, data []byte, choices uint64) {
		ops := []Operation{OperationAll, OperationRead, OperationWrite, OperationCreate, OperationDelete, OperationAlter,
			OperationDescribe, OperationClusterAction, OperationDescribeConfigs, OperationAlterConfigs,
			OperationIdempotentWrite, OperationCreateTokens, OperationDescribeTokens}
		parts := splitFuzzStrings(data)
		var a ACLs
		for i := 0; i+1 < len(parts); i += 2 {
			e := ACLEntry{Principal: "User:" + parts[i], PermissionType: PermissionAllow, Operation: ops[choices%uint64(len(ops))], Host: parts[i+1]}
			if choices>>4&1 == 1 {
				e.PermissionType = PermissionDeny
			}
			choices = choices>>5 | choices<<59
			a = append(a, e)
		}
		got, err := DecodeACLs(a.Encode())
		if err != nil || !got.Equal(a) {
			t.Fatalf("decode(encode(%+v)) = %+v, %v", a, got, err)
		}
	})
}

func FuzzDecodeLiteralACLChange(f *testing.F) {
	for _, s := range kafkaSeeds() {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		n, err := DecodeLiteralACLChange(data)
		if err != nil {
			checkFuzzError(t, err, literalACLChangePattern, data)
			if n != (LiteralACLChange{}) {
				t.Fatalf("decoded %+v along with error %v", n, err)
			}
			return
		}
		if !n.ResourceType.Valid() {
			t.Fatalf("decoded resource type %q", n.ResourceType)
		}
		typeName, name, _ := strings.Cut(string(data), ":")
		if enc := n.Encode(); string(enc) != strings.ToUpper(typeName)+":"+name {
			t.Fatalf("encode(decode(%q)) = %q", data, enc)
		}
	})
}

func FuzzDecodeExtendedACLChange(f *testing.F) {
	for _, s := range kafkaSeeds() {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		n, err := DecodeExtendedACLChange(data)
		if err != nil {
			checkFuzzError(t, err, extendedACLChangePattern, data)
			if n != (ExtendedACLChange{}) {
				t.Fatalf("decoded %+v along with error %v", n, err)
			}
			return
		}
		checkAccepted(t, data)
		if !n.ResourceType.Valid() || !n.PatternType.Valid() {
			t.Fatalf("decoded %+v", n)
		}
		n2, err := DecodeExtendedACLChange(n.Encode())
		if err != nil || n2 != n {
			t.Fatalf("decode(encode(%+v)) = %+v, %v", n, n2, err)
		}
	})
}

func FuzzDecodeScramCredential(f *testing.F) {
	for _, s := range kafkaSeeds() {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := DecodeScramCredential(data)
		if err != nil {
			checkFuzzError(t, err, scramPattern, data)
			if !c.Equal(ScramCredential{}) || c.Salt != nil || c.StoredKey != nil || c.ServerKey != nil {
				t.Fatalf("decoded %+v along with error %v", c, err)
			}
			return
		}
		enc := c.Encode()
		c2, err := DecodeScramCredential(enc)
		if err != nil || !c2.Equal(c) {
			t.Fatalf("decode(encode(%+v)) = %+v, %v", c, c2, err)
		}
	})
}

func FuzzScramRoundTrip(f *testing.F) {
	f.Add([]byte("salt"), []byte("stored"), []byte("server"), int32(4096))
	f.Add([]byte{}, []byte{0}, []byte{0xff, 0xfe}, int32(-2147483648))
	f.Fuzz(func(t *testing.T, salt, stored, server []byte, iterations int32) {
		c := ScramCredential{Salt: salt, StoredKey: stored, ServerKey: server, Iterations: iterations}
		got, err := DecodeScramCredential(c.Encode())
		if err != nil || !got.Equal(c) {
			t.Fatalf("decode(encode(%+v)) = %+v, %v", c, got, err)
		}
	})
}

func FuzzQuota(f *testing.F) {
	for _, v := range []float64{58.58, 10, 1e7, 1024, 0, -0.5, 1.5, 2147483647, 0x1p63, 1e-320, math.MaxFloat64} {
		f.Add(v, "58.58")
	}
	f.Add(1.0, "1e400")
	f.Add(1.0, "-1.5E-3")
	f.Fuzz(func(t *testing.T, v float64, text string) {
		for _, key := range []string{QuotaRequestPercentage, QuotaControllerMutationRate, QuotaProducerByteRate, QuotaConsumerByteRate, QuotaConnectionCreationRate} {
			if _, err := ParseQuota(key, text); err != nil {
				checkFuzzError(t, err, configPattern, []byte(text))
			}
			s, err := FormatQuota(key, v)
			if err != nil {
				continue
			}
			back, err := ParseQuota(key, s)
			switch {
			case err != nil:
				t.Fatalf("ParseQuota(%s, FormatQuota(%v) = %q): %v", key, v, s, err)
			case quotaKindOf(key) == quotaDouble && back != v && !(math.IsNaN(v) && math.IsNaN(back)):
				t.Fatalf("ParseQuota(%s, %q) = %v, want %v", key, s, back, v)
			case quotaKindOf(key) != quotaDouble && !math.IsNaN(v) && math.Abs(back-v) > 1e-6 && back != math.Trunc(v+1e-6):
				t.Fatalf("ParseQuota(%s, %q) = %v, far from %v", key, s, back, v)
			}
		}
	})
}

func FuzzDesanitize(f *testing.F) {
	for _, s := range []string{"", "User:alice@example.com", "a b*c+d", "%", "%zz", "%C3%A9", "%+1", "é😀", "\xff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if _, err := Desanitize(s); err != nil {
			checkFuzzError(t, err, "", []byte(s))
		}
		if !utf8.ValidString(s) {
			return
		}
		enc := Sanitize(s)
		if strings.ContainsAny(enc, "*+ ") {
			t.Fatalf("Sanitize(%q) = %q", s, enc)
		}
		if got, err := Desanitize(enc); err != nil || got != s {
			t.Fatalf("Desanitize(Sanitize(%q)) = %q, %v", s, got, err)
		}
	})
}
