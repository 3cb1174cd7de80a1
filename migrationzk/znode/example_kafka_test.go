package znode_test

import (
	"errors"
	"fmt"

	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

func ExampleConfig_Encode() {
	user := "alice@example.com"
	entity := znode.UserQuotaEntity(&user)
	c := znode.Config{}
	for key, v := range map[string]float64{
		znode.QuotaRequestPercentage:      58.58,
		znode.QuotaProducerByteRate:       1024,
		znode.QuotaConsumerByteRate:       2048,
		znode.QuotaControllerMutationRate: 10,
	} {
		s, err := znode.FormatQuota(key, v)
		if err != nil {
			fmt.Println(err)
			return
		}
		c[key] = s
	}
	fmt.Println(entity.Path())
	fmt.Printf("%s\n", c.Encode())
	fmt.Printf("%s\n", entity.Change().Encode())
	// Output:
	// /config/users/alice%40example.com
	// {"version":1,"config":{"request_percentage":"58.58","producer_byte_rate":"1024","consumer_byte_rate":"2048","controller_mutation_rate":"10.0"}}
	// {"version":2,"entity_path":"users/alice%40example.com"}
}

func ExampleDecodeConfig() {
	c, err := znode.DecodeConfig([]byte(`{"version":1,"config":{"retention.ms":"86400000","cleanup.policy":"compact"}}`))
	fmt.Println(c["retention.ms"], c["cleanup.policy"], err)
	_, err = znode.DecodeConfig([]byte(`{"version":1,"config":{"retention.ms":86400000}}`))
	fmt.Println(err)
	// Output:
	// 86400000 compact <nil>
	// decode /config/<type>/<name>: field "config.retention.ms": wrong type: got number, want string (data: "{\"version\":1,\"config\":{\"retention.ms\":86400000}}")
}

func ExampleConfigChange_Encode() {
	fmt.Printf("%s\n", znode.BrokerConfigEntity("").Change().Encode())
	fmt.Printf("%s\n", znode.TopicConfigEntity("orders").Change().Encode())
	// Output:
	// {"version":2,"entity_path":"brokers/<default>"}
	// {"version":2,"entity_path":"topics/orders"}
}

func ExampleDecodeConfigChange() {
	n, err := znode.DecodeConfigChange([]byte(`{"version":2,"entity_path":"brokers/1"}`))
	fmt.Println(n.EntityPath, err)
	// Output:
	// brokers/1 <nil>
}

func ExampleACLs_Encode() {
	acls := znode.ACLs{
		{Principal: "User:bob", PermissionType: znode.PermissionAllow, Operation: znode.OperationWrite, Host: "*"},
		{Principal: "User:alice", PermissionType: znode.PermissionAllow, Operation: znode.OperationRead, Host: "*"},
	}
	fmt.Println(znode.LiteralACLPath(znode.ResourceTopic, "orders"))
	fmt.Printf("%s\n", acls.Encode())
	fmt.Printf("%s\n", znode.LiteralACLChange{ResourceType: znode.ResourceTopic, Name: "orders"}.Encode())
	// Output:
	// /kafka-acl/Topic/orders
	// {"acls":[{"principal":"User:alice","permissionType":"Allow","host":"*","operation":"Read"},{"principal":"User:bob","permissionType":"Allow","host":"*","operation":"Write"}],"version":1}
	// TOPIC:orders
}

func ExampleDecodeACLs() {
	data := []byte(`{"version":1,"acls":[{"host":"*","operation":"Read","principal":"User:alice","permissionType":"Allow"}]}`)
	acls, err := znode.DecodeACLs(data)
	fmt.Printf("%+v %v\n", acls, err)
	_, err = znode.DecodeACLs([]byte(`{"version":1,"acls":[{"host":"*","operation":"Fly","principal":"User:alice","permissionType":"Allow"}]}`))
	fmt.Println(errors.Is(err, znode.ErrInvalidValue))
	// Output:
	// [{Principal:User:alice PermissionType:Allow Operation:Read Host:*}] <nil>
	// true
}

func ExampleDecodeLiteralACLChange() {
	n, err := znode.DecodeLiteralACLChange([]byte("TRANSACTIONAL_ID:tx-1"))
	fmt.Println(n.ResourceType, n.Name, err)
	// Output:
	// TransactionalId tx-1 <nil>
}

func ExampleExtendedACLChange_Encode() {
	n := znode.ExtendedACLChange{ResourceType: znode.ResourceTopic, Name: "orders-", PatternType: znode.PatternPrefixed}
	fmt.Println(znode.PrefixedACLPath(n.ResourceType, n.Name))
	fmt.Printf("%s\n", n.Encode())
	// Output:
	// /kafka-acl-extended/prefixed/Topic/orders-
	// {"version":1,"resourceType":"TOPIC","name":"orders-","patternType":"PREFIXED"}
}

func ExampleDecodeExtendedACLChange() {
	n, err := znode.DecodeExtendedACLChange([]byte(`{"version":1,"resourceType":"GROUP","name":"g-","patternType":"PREFIXED"}`))
	fmt.Printf("%+v %v\n", n, err)
	// Output:
	// {ResourceType:Group Name:g- PatternType:PREFIXED} <nil>
}

func ExampleScramCredential_Encode() {
	c := znode.ScramCredential{Salt: []byte("salt"), StoredKey: []byte("stored"), ServerKey: []byte("server"), Iterations: 4096}
	config := znode.Config{znode.ScramSHA256: string(c.Encode())}
	fmt.Printf("%s\n", config.Encode())
	// Output:
	// {"version":1,"config":{"SCRAM-SHA-256":"salt=c2FsdA==,stored_key=c3RvcmVk,server_key=c2VydmVy,iterations=4096"}}
}

func ExampleDecodeScramCredential() {
	c, err := znode.DecodeScramCredential([]byte("salt=c2FsdA==,stored_key=c3RvcmVk,server_key=c2VydmVy,iterations=8192"))
	fmt.Printf("%s %d %v\n", c.Salt, c.Iterations, err)
	// Output:
	// salt 8192 <nil>
}

func ExampleFormatQuota() {
	for _, q := range []struct {
		key   string
		value float64
	}{
		{znode.QuotaRequestPercentage, 58.58},
		{znode.QuotaControllerMutationRate, 1e7},
		{znode.QuotaConnectionCreationRate, 10},
		{znode.QuotaProducerByteRate, 1.5},
	} {
		s, err := znode.FormatQuota(q.key, q.value)
		fmt.Printf("%q %v\n", s, err)
	}
	// Output:
	// "58.58" <nil>
	// "1.0E7" <nil>
	// "10" <nil>
	// "" znode: quota producer_byte_rate must be an integer, got 1.5
}

func ExampleParseQuota() {
	fmt.Println(znode.ParseQuota(znode.QuotaControllerMutationRate, "1.0E7"))
	fmt.Println(znode.ParseQuota(znode.QuotaConsumerByteRate, "2048"))
	// Output:
	// 1e+07 <nil>
	// 2048 <nil>
}

func ExampleSanitize() {
	s := znode.Sanitize("User:alice@example.com *+")
	fmt.Println(s)
	fmt.Println(znode.Desanitize(s))
	// Output:
	// User%3Aalice%40example.com%20%2A%2B
	// User:alice@example.com *+ <nil>
}

func ExampleUserClientQuotaEntity() {
	user, client := "alice", "app 1"
	fmt.Println(znode.UserClientQuotaEntity(&user, &client).Path())
	fmt.Println(znode.UserClientQuotaEntity(nil, nil).EntityPath())
	fmt.Println(znode.ConfigPath(znode.EntityIPs, znode.Sanitize("10.0.0.1")))
	// Output:
	// /config/users/alice/clients/app%201
	// users/<default>/clients/<default>
	// /config/ips/10.0.0.1
}
