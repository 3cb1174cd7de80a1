package znode

import (
	"errors"
	"math"
	"slices"
	"testing"

	"github.com/kraftmigration/zkwriter/internal/jvm"
)

const (
	goldenConfig            = `{"version":1,"config":{"request_percentage":"58.58","producer_byte_rate":"1024","consumer_byte_rate":"2048","controller_mutation_rate":"10.0"}}`
	goldenConfigChange      = `{"version":2,"entity_path":"brokers/1"}`
	goldenACLs              = `{"acls":[{"principal":"User:alice","permissionType":"Allow","host":"*","operation":"Read"}],"version":1}`
	goldenExtendedACLChange = `{"version":1,"resourceType":"TOPIC","name":"foo","patternType":"PREFIXED"}`
	goldenScram             = `salt=c2FsdA==,stored_key=c3RvcmVk,server_key=c2VydmVy,iterations=4096`
)

func TestConfigGolden(t *testing.T) {
	c := Config{"producer_byte_rate": "1024", "consumer_byte_rate": "2048", "request_percentage": "58.58", "controller_mutation_rate": "10.0"}
	if got := string(c.Encode()); got != goldenConfig {
		t.Errorf("Encode =\n%s\nwant\n%s", got, goldenConfig)
	}
	got, err := DecodeConfig([]byte(goldenConfig))
	if err != nil || !mapsEqual(got, c) {
		t.Errorf("DecodeConfig = %v, %v", got, err)
	}
	for _, empty := range []Config{nil, {}} {
		if got := string(empty.Encode()); got != `{"version":1,"config":{}}` {
			t.Errorf("empty Encode = %s", got)
		}
	}
	got, err = DecodeConfig([]byte(` {"config" : {} , "version":1, "x":[1]} `))
	if err != nil || got == nil || len(got) != 0 {
		t.Errorf("DecodeConfig(empty) = %#v, %v", got, err)
	}
	if got := string(append([]byte("x"), c.AppendEncode(nil)...)); got != "x"+goldenConfig {
		t.Errorf("AppendEncode = %s", got)
	}
}

func mapsEqual(a, b Config) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

func TestConfigChangeGolden(t *testing.T) {
	n := BrokerConfigEntity("1").Change()
	if got := string(n.Encode()); got != goldenConfigChange {
		t.Errorf("Encode = %s", got)
	}
	if got, err := DecodeConfigChange([]byte(`{"entity_path":"brokers/1","version":2}`)); err != nil || got != n {
		t.Errorf("DecodeConfigChange = %+v, %v", got, err)
	}
	// Kafka's test echoes its argument verbatim, a leading slash included.
	n = ConfigChange{EntityPath: "/config/topics/topic1"}
	if got := string(n.Encode()); got != `{"version":2,"entity_path":"/config/topics/topic1"}` {
		t.Errorf("Encode = %s", got)
	}
}

func TestConfigEntities(t *testing.T) {
	alice, c1, ip6 := "alice@x", "c 1*", "::1"
	tests := []struct {
		e          ConfigEntity
		path, name string
	}{
		{TopicConfigEntity("foo"), "/config/topics/foo", "topics/foo"},
		{BrokerConfigEntity("1"), "/config/brokers/1", "brokers/1"},
		{BrokerConfigEntity(""), "/config/brokers/<default>", "brokers/<default>"},
		{UserQuotaEntity(&alice), "/config/users/alice%40x", "users/alice%40x"},
		{UserQuotaEntity(nil), "/config/users/<default>", "users/<default>"},
		{UserClientQuotaEntity(&alice, &c1), "/config/users/alice%40x/clients/c%201%2A", "users/alice%40x/clients/c%201%2A"},
		{UserClientQuotaEntity(nil, nil), "/config/users/<default>/clients/<default>", "users/<default>/clients/<default>"},
		{ClientQuotaEntity(&c1), "/config/clients/c%201%2A", "clients/c%201%2A"},
		{IPQuotaEntity(&ip6), "/config/ips/%3A%3A1", "ips/%3A%3A1"},
		{IPQuotaEntity(nil), "/config/ips/<default>", "ips/<default>"},
	}
	for _, tt := range tests {
		if got := tt.e.Path(); got != tt.path {
			t.Errorf("%+v.Path() = %q, want %q", tt.e, got, tt.path)
		}
		if got := tt.e.EntityPath(); got != tt.name {
			t.Errorf("%+v.EntityPath() = %q, want %q", tt.e, got, tt.name)
		}
	}
	if got := ConfigPath(EntityTopics, "a/b"); got != "/config/topics/a/b" {
		t.Errorf("ConfigPath = %q", got)
	}
}

func TestACLsGolden(t *testing.T) {
	a := ACLs{{Principal: "User:alice", PermissionType: PermissionAllow, Operation: OperationRead, Host: "*"}}
	if got := string(a.Encode()); got != goldenACLs {
		t.Errorf("Encode = %s", got)
	}
	got, err := DecodeACLs([]byte(goldenACLs))
	if err != nil || !got.Equal(a) {
		t.Errorf("DecodeACLs = %+v, %v", got, err)
	}
	if got := string(ACLs(nil).Encode()); got != `{"acls":[],"version":1}` {
		t.Errorf("empty Encode = %s", got)
	}
}

func TestACLKeyOrdersAreHashMapOrders(t *testing.T) {
	// Kafka puts the keys in this order; the encoder hard-codes the
	// iteration order of a java.util.HashMap holding them.
	if got, want := jvm.HashMapOrder([]string{"version", "acls"}), []string{"acls", "version"}; !slices.Equal(got, want) {
		t.Errorf("outer order %q, encoder writes %q", got, want)
	}
	entry := []string{"principal", "permissionType", "operation", "host"}
	if got, want := jvm.HashMapOrder(entry), []string{"principal", "permissionType", "host", "operation"}; !slices.Equal(got, want) {
		t.Errorf("entry order %q, encoder writes %q", got, want)
	}
}

func TestACLsSet(t *testing.T) {
	read := ACLEntry{Principal: "User:bob", PermissionType: PermissionAllow, Operation: OperationRead, Host: "*"}
	write := ACLEntry{Principal: "User:alice", PermissionType: PermissionDeny, Operation: OperationWrite, Host: "10.0.0.1"}
	a, b := ACLs{read, write, read}, ACLs{write, read}
	if !a.Equal(b) || !b.Equal(a) {
		t.Error("order or duplicates matter to Equal")
	}
	if a.Equal(ACLs{read}) || (ACLs{}).Equal(ACLs{read}) || !(ACLs{}).Equal(nil) {
		t.Error("Equal of different sets")
	}
	if string(a.Encode()) != string(b.Encode()) {
		t.Errorf("Encode depends on order:\n%s\n%s", a.Encode(), b.Encode())
	}
	// Written sorted by principal: alice first.
	want := `{"acls":[{"principal":"User:alice","permissionType":"Deny","host":"10.0.0.1","operation":"Write"},{"principal":"User:bob","permissionType":"Allow","host":"*","operation":"Read"}],"version":1}`
	if got := string(a.Encode()); got != want {
		t.Errorf("Encode =\n%s\nwant\n%s", got, want)
	}
	got, err := DecodeACLs([]byte(`{"version":1,"acls":[` + want[9:len(want)-14] + `,{"host":"*","operation":"Read","principal":"User:bob","permissionType":"Allow","x":1}]}`))
	if err != nil || len(got) != 2 || !got.Equal(a) {
		t.Errorf("DecodeACLs with a duplicate = %+v, %v", got, err)
	}
}

func TestResourceTypes(t *testing.T) {
	for rt, enum := range map[ResourceType]string{ResourceTopic: "TOPIC", ResourceGroup: "GROUP", ResourceCluster: "CLUSTER",
		ResourceTransactionalID: "TRANSACTIONAL_ID", ResourceDelegationToken: "DELEGATION_TOKEN", ResourceUser: "USER"} {
		if rt.EnumName() != enum || !rt.Valid() {
			t.Errorf("%s.EnumName() = %q, want %q", rt, rt.EnumName(), enum)
		}
	}
	for _, bad := range []ResourceType{"", "topic", "TOPIC", "Any", "Unknown"} {
		if bad.Valid() || bad.EnumName() != "" {
			t.Errorf("%q is valid", bad)
		}
	}
	if got := LiteralACLPath(ResourceTransactionalID, "tx-1"); got != "/kafka-acl/TransactionalId/tx-1" {
		t.Errorf("LiteralACLPath = %q", got)
	}
	if got := PrefixedACLPath(ResourceTopic, "orders-"); got != "/kafka-acl-extended/prefixed/Topic/orders-" {
		t.Errorf("PrefixedACLPath = %q", got)
	}
}

func TestACLChangesGolden(t *testing.T) {
	lit := LiteralACLChange{ResourceType: ResourceTopic, Name: "foo"}
	if got := string(lit.Encode()); got != "TOPIC:foo" {
		t.Errorf("Encode = %q", got)
	}
	for in, want := range map[string]LiteralACLChange{
		"TOPIC:foo":             lit,
		"GROUP:a:b":             {ResourceGroup, "a:b"},
		"CLUSTER:kafka-cluster": {ResourceCluster, "kafka-cluster"},
		"TRANSACTIONAL_ID:":     {ResourceTransactionalID, ""},
		"DELEGATION_TOKEN:tök":  {ResourceDelegationToken, "tök"},
		"USER:User:alice":       {ResourceUser, "User:alice"},
	} {
		got, err := DecodeLiteralACLChange([]byte(in))
		if err != nil || got != want {
			t.Errorf("DecodeLiteralACLChange(%q) = %+v, %v", in, got, err)
		}
		if string(got.Encode()) != in {
			t.Errorf("Encode = %q, want %q", got.Encode(), in)
		}
	}
	if got := string((LiteralACLChange{ResourceTopic, "a\xffb"}).Encode()); got != "TOPIC:a\uFFFDb" {
		t.Errorf("invalid UTF-8 Encode = %q", got)
	}
	ext := ExtendedACLChange{ResourceType: ResourceTopic, Name: "foo", PatternType: PatternPrefixed}
	if got := string(ext.Encode()); got != goldenExtendedACLChange {
		t.Errorf("Encode = %s", got)
	}
	got, err := DecodeExtendedACLChange([]byte(`{"patternType":"PREFIXED","name":"foo","resourceType":"TOPIC","version":1}`))
	if err != nil || got != ext {
		t.Errorf("DecodeExtendedACLChange = %+v, %v", got, err)
	}
}

func TestScramGolden(t *testing.T) {
	c := ScramCredential{Salt: []byte("salt"), StoredKey: []byte("stored"), ServerKey: []byte("server"), Iterations: 4096}
	if got := string(c.Encode()); got != goldenScram {
		t.Errorf("Encode = %s", got)
	}
	for _, in := range []string{goldenScram, "iterations=4096,server_key=c2VydmVy,stored_key=c3RvcmVk,salt=c2FsdA", "salt=c2FsdA==,stored_key=c3RvcmVk,server_key=c2VydmVy,iterations=04096"} {
		got, err := DecodeScramCredential([]byte(in))
		if err != nil || !got.Equal(c) {
			t.Errorf("DecodeScramCredential(%q) = %+v, %v", in, got, err)
		}
	}
	empty := ScramCredential{Iterations: 8192}
	if got := string(empty.Encode()); got != "salt=,stored_key=,server_key=,iterations=8192" {
		t.Errorf("empty Encode = %s", got)
	}
	if got, err := DecodeScramCredential(empty.Encode()); err != nil || !got.Equal(empty) || got.Salt == nil {
		t.Errorf("empty decode = %#v, %v", got, err)
	}
}

func TestFormatQuota(t *testing.T) {
	tests := []struct {
		key  string
		v    float64
		want string
	}{
		{QuotaRequestPercentage, 58.58, "58.58"},
		{QuotaControllerMutationRate, 10, "10.0"},
		{QuotaControllerMutationRate, 1e7, "1.0E7"},
		{QuotaRequestPercentage, math.NaN(), "NaN"},
		{QuotaProducerByteRate, 1024, "1024"},
		{QuotaConsumerByteRate, 2048.0000004, "2048"},
		{QuotaConsumerByteRate, 2047.9999995, "2048"},
		{QuotaProducerByteRate, 0, "0"},
		{QuotaProducerByteRate, -5e-7, "0"},
		{QuotaProducerByteRate, 1e15, "1000000000000000"},
		{QuotaProducerByteRate, 0x1p63, "9223372036854775807"},
		{QuotaProducerByteRate, math.NaN(), "0"},
		{QuotaConnectionCreationRate, 10, "10"},
		{QuotaConnectionCreationRate, math.MaxInt32, "2147483647"},
	}
	for _, tt := range tests {
		got, err := FormatQuota(tt.key, tt.v)
		if err != nil || got != tt.want {
			t.Errorf("FormatQuota(%s, %v) = %q, %v; want %q", tt.key, tt.v, got, err, tt.want)
		}
	}
	for _, bad := range []struct {
		key string
		v   float64
	}{
		{"unknown", 1}, {"", 1}, {QuotaProducerByteRate, 1.5}, {QuotaProducerByteRate, -1}, {QuotaProducerByteRate, 1.00001},
		{QuotaProducerByteRate, math.Inf(1)}, {QuotaProducerByteRate, 1e19}, {QuotaConnectionCreationRate, 3e9},
		{QuotaConnectionCreationRate, 0.5}, {QuotaConnectionCreationRate, math.Inf(-1)},
	} {
		if got, err := FormatQuota(bad.key, bad.v); err == nil {
			t.Errorf("FormatQuota(%s, %v) = %q, want an error", bad.key, bad.v, got)
		}
	}
}

func TestParseQuota(t *testing.T) {
	for _, tt := range []struct {
		key, in string
		want    float64
	}{
		{QuotaRequestPercentage, "58.58", 58.58}, {QuotaRequestPercentage, "1.0E7", 1e7}, {QuotaRequestPercentage, "50", 50},
		{QuotaControllerMutationRate, "-0.0", 0}, {QuotaControllerMutationRate, "1e400", math.Inf(1)}, {QuotaRequestPercentage, "Infinity", math.Inf(1)},
		{QuotaProducerByteRate, "1024", 1024}, {QuotaConnectionCreationRate, "-1", -1}, {QuotaConsumerByteRate, "9223372036854775807", 0x1p63},
		// Kafka's migration reads every quota with Double.parseDouble.
		{QuotaRequestPercentage, "1.", 1}, {QuotaRequestPercentage, ".5", 0.5}, {QuotaRequestPercentage, "+1", 1},
		{QuotaRequestPercentage, " 1\t", 1}, {QuotaRequestPercentage, "1.5d", 1.5}, {QuotaRequestPercentage, "2F", 2},
		{QuotaRequestPercentage, "0x1.8p1", 3}, {QuotaRequestPercentage, "-NaN", math.NaN()}, {QuotaRequestPercentage, "+Infinity", math.Inf(1)},
		{QuotaProducerByteRate, "1.5", 1.5}, {QuotaProducerByteRate, "1e3", 1000}, {QuotaProducerByteRate, tooBig64, 0x1p63},
		{QuotaConnectionCreationRate, "1024.0", 1024},
	} {
		got, err := ParseQuota(tt.key, tt.in)
		if err != nil || got != tt.want && !(math.IsNaN(got) && math.IsNaN(tt.want)) {
			t.Errorf("ParseQuota(%s, %q) = %v, %v; want %v", tt.key, tt.in, got, err, tt.want)
		}
	}
	for _, tt := range []struct {
		key, in string
		reason  error
	}{
		{"unknown", "1", ErrInvalidValue}, {QuotaRequestPercentage, "", ErrWrongType}, {QuotaRequestPercentage, " ", ErrWrongType},
		{QuotaRequestPercentage, "0x10", ErrWrongType}, {QuotaRequestPercentage, "nan", ErrWrongType}, {QuotaRequestPercentage, "1e", ErrWrongType},
		{QuotaRequestPercentage, ".", ErrWrongType}, {QuotaRequestPercentage, "1_0", ErrWrongType}, {QuotaRequestPercentage, "1,5", ErrWrongType},
		{QuotaProducerByteRate, "", ErrWrongType}, {QuotaProducerByteRate, "Inf", ErrWrongType}, {QuotaProducerByteRate, "1e3x", ErrWrongType},
	} {
		_, err := ParseQuota(tt.key, tt.in)
		var de *DecodeError
		if !errors.Is(err, tt.reason) || !errors.As(err, &de) || de.Field != tt.key || de.Path != "/config/<type>/<name>" {
			t.Errorf("ParseQuota(%s, %q) error %v, want %v", tt.key, tt.in, err, tt.reason)
		}
	}
}

func TestSanitizeGolden(t *testing.T) {
	for in, want := range map[string]string{
		"":                       "",
		"alice":                  "alice",
		"User:alice@example.com": "User%3Aalice%40example.com",
		"a b":                    "a%20b",
		"a*b":                    "a%2Ab",
		"a+b":                    "a%2Bb",
		"a~b/c":                  "a%7Eb%2Fc",
		"é😀":                     "%C3%A9%F0%9F%98%80",
		"._-":                    "._-",
	} {
		if got := Sanitize(in); got != want {
			t.Errorf("Sanitize(%q) = %q, want %q", in, got, want)
		}
		if got, err := Desanitize(want); err != nil || got != in {
			t.Errorf("Desanitize(%q) = %q, %v", want, got, err)
		}
	}
	for in, want := range map[string]string{"a+b": "a b", "%c3%a9": "é", "é%20": "é ", "<default>": "<default>"} {
		if got, err := Desanitize(in); err != nil || got != want {
			t.Errorf("Desanitize(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"%", "a%2", "%zz", "%+1", "%-1", "%C3", "%FF", "%ED%A0%80", "\xff"} {
		_, err := Desanitize(bad)
		var de *DecodeError
		if !errors.Is(err, ErrInvalidValue) || !errors.As(err, &de) || string(de.Data) != bad {
			t.Errorf("Desanitize(%q) error %v", bad, err)
		}
	}
}
