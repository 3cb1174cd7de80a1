package znode

import (
	"bytes"
	"cmp"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
)

// ResourceType is the type of a resource ACLs protect, as written in ACL
// znode paths: "Topic", "TransactionalId".
type ResourceType string

// The resource types whose ACLs ZooKeeper stores.
const (
	ResourceTopic           ResourceType = "Topic"
	ResourceGroup           ResourceType = "Group"
	ResourceCluster         ResourceType = "Cluster"
	ResourceTransactionalID ResourceType = "TransactionalId"
	ResourceDelegationToken ResourceType = "DelegationToken"
	ResourceUser            ResourceType = "User"
)

// resourceTypes lists each resource type with its Java enum name.
func resourceTypes() [][2]string {
	return [][2]string{
		{string(ResourceTopic), "TOPIC"},
		{string(ResourceGroup), "GROUP"},
		{string(ResourceCluster), "CLUSTER"},
		{string(ResourceTransactionalID), "TRANSACTIONAL_ID"},
		{string(ResourceDelegationToken), "DELEGATION_TOKEN"},
		{string(ResourceUser), "USER"},
	}
}

// EnumName returns the Java enum name of t, as ACL change notifications
// write it: "TOPIC", "TRANSACTIONAL_ID"; "" when t is not one of the
// constants.
func (t ResourceType) EnumName() string {
	for _, rt := range resourceTypes() {
		if rt[0] == string(t) {
			return rt[1]
		}
	}
	return ""
}

// Valid reports whether t is one of the constants.
func (t ResourceType) Valid() bool { return t.EnumName() != "" }

// resourceTypeOfEnumName returns the resource type whose Java enum name is
// name.
func resourceTypeOfEnumName(name string) (ResourceType, bool) {
	for _, rt := range resourceTypes() {
		if rt[1] == name {
			return ResourceType(rt[0]), true
		}
	}
	return "", false
}

// Operation is what an ACL allows or denies, as ACL znodes write it.
type Operation string

// The operations an ACL can name.
const (
	OperationAll             Operation = "All"
	OperationRead            Operation = "Read"
	OperationWrite           Operation = "Write"
	OperationCreate          Operation = "Create"
	OperationDelete          Operation = "Delete"
	OperationAlter           Operation = "Alter"
	OperationDescribe        Operation = "Describe"
	OperationClusterAction   Operation = "ClusterAction"
	OperationDescribeConfigs Operation = "DescribeConfigs"
	OperationAlterConfigs    Operation = "AlterConfigs"
	OperationIdempotentWrite Operation = "IdempotentWrite"
	OperationCreateTokens    Operation = "CreateTokens"
	OperationDescribeTokens  Operation = "DescribeTokens"
)

// Valid reports whether o is one of the constants.
func (o Operation) Valid() bool {
	return slices.Contains(allOperations(), o)
}

// PermissionType says whether an ACL allows or denies.
type PermissionType string

// The permission types.
const (
	PermissionAllow PermissionType = "Allow"
	PermissionDeny  PermissionType = "Deny"
)

// Valid reports whether p is one of the constants.
func (p PermissionType) Valid() bool { return p == PermissionAllow || p == PermissionDeny }

// ACLEntry is one access control entry of a resource.
type ACLEntry struct {
	// Principal is "<type>:<name>", for example "User:alice".
	Principal      string
	PermissionType PermissionType
	Operation      Operation
	// Host is the client host the entry applies to, "*" for any.
	Host string
}

// compareACLEntries orders entries by principal, host, operation and
// permission type, comparing bytes.
func compareACLEntries(a, b ACLEntry) int {
	return cmp.Or(
		strings.Compare(a.Principal, b.Principal),
		strings.Compare(a.Host, b.Host),
		strings.Compare(string(a.Operation), string(b.Operation)),
		strings.Compare(string(a.PermissionType), string(b.PermissionType)),
	)
}

// ACLs is the content of an ACL znode, /kafka-acl/<Type>/<name> for a
// literal resource name and /kafka-acl-extended/prefixed/<Type>/<name> for
// a prefix: the set of entries of one resource pattern. It is a set:
// order and duplicates do not matter (see Equal).
type ACLs []ACLEntry

// aclsVersion is the only known version of an ACL znode.
const aclsVersion = 1

// aclsPattern is the path reported by DecodeACLs.
const aclsPattern = LiteralACLRootPath + "/<Type>/<name>"

// canonical returns the entries of a sorted by compareACLEntries, without
// duplicates, in a new slice.
func (a ACLs) canonical() ACLs {
	c := slices.Clone(a)
	slices.SortFunc(c, compareACLEntries)
	return slices.Compact(c)
}

// Equal reports whether a and b hold the same entries, in any order and
// with any duplicates.
func (a ACLs) Equal(b ACLs) bool {
	return slices.Equal(a.canonical(), b.canonical())
}

// Encode returns the JSON encoding of a, for example
//
//	{"acls":[{"principal":"User:alice","permissionType":"Allow","host":"*","operation":"Read"}],"version":1}
//
// The keys come in the order of the java.util.HashMaps Kafka writes. Kafka
// writes the entries in an order that depends on identity hash codes of
// the JVM that writes them, which nothing can reproduce, so Encode writes
// them sorted by principal, host, operation and permission type, comparing
// bytes, without duplicates. Strings are Java strings: an invalid UTF-8
// byte is written as U+FFFD.
func (a ACLs) Encode() []byte {
	n := len(`{"acls":[],"version":1}`)
	for _, e := range a {
		n += len(`{"principal":"","permissionType":"","host":"","operation":""},`) + len(e.Principal) + len(e.Host) + 20
	}
	return a.AppendEncode(make([]byte, 0, n))
}

// AppendEncode appends the encoding of a, as returned by Encode, to dst
// and returns the extended slice.
func (a ACLs) AppendEncode(dst []byte) []byte {
	// The key orders of a java.util.HashMap holding these keys; a test
	// checks them against jvm.HashMapOrder.
	dst = append(dst, `{"acls":[`...)
	for i, e := range a.canonical() {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, `{"principal":`...)
		dst = appendString(dst, e.Principal)
		dst = append(dst, `,"permissionType":`...)
		dst = appendString(dst, string(e.PermissionType))
		dst = append(dst, `,"host":`...)
		dst = appendString(dst, e.Host)
		dst = append(dst, `,"operation":`...)
		dst = appendString(dst, string(e.Operation))
		dst = append(dst, '}')
	}
	return append(dst, `],"version":1}`...)
}

// DecodeACLs decodes the content of an ACL znode as Kafka 3.9's
// AclEntry.fromBytes reads it. The version must be 1 and acls an array of
// objects, each with the string fields principal (holding a ':'),
// permissionType, operation and host. Permission types and operations are
// looked up as Kafka's SecurityUtils does, by their names or their names
// in upper case ("Read", "READ", "read"), and returned as the constants;
// ANY, UNKNOWN and other names are refused. The entries are returned
// sorted and without duplicates, as Encode writes them; an empty array
// decodes as an empty, non-nil ACLs.
//
// The Path of a returned *DecodeError is "/kafka-acl/<Type>/<name>",
// literally, also for a prefixed pattern's znode, and a bad entry is
// reported as field "acls.<key>" with the entry's index in the detail.
func DecodeACLs(data []byte) (ACLs, error) {
	o := parseObject(aclsPattern, data)
	o.version(aclsVersion)
	elems := o.elems("acls")
	acls := make(ACLs, 0, len(elems))
	for i, raw := range elems {
		acls = append(acls, o.aclEntry(i, raw))
		if o.failed() {
			withElement(o.err(), i)
			break
		}
	}
	if o.failed() {
		return nil, o.err()
	}
	return acls.canonical(), nil
}

// aclEntry decodes element i of the acls array.
func (o *object) aclEntry(i int, raw json.RawMessage) ACLEntry {
	entry := o.elemObject("acls", i, raw)
	e := ACLEntry{Principal: entry.str("principal"), Host: entry.str("host")}
	permission, operation := entry.str("permissionType"), entry.str("operation")
	e.PermissionType = PermissionType(kafkaEnumName(permission, PermissionAllow, PermissionDeny))
	e.Operation = Operation(kafkaEnumName(operation, allOperations()...))
	switch {
	case entry.failed():
	case !strings.Contains(e.Principal, ":"):
		entry.fail("principal", ErrInvalidValue, "no ':' in "+strconv.Quote(shorten(e.Principal)))
	case e.PermissionType == "":
		entry.fail("permissionType", ErrInvalidValue, "unknown permission type "+strconv.Quote(shorten(permission)))
	case e.Operation == "":
		entry.fail("operation", ErrInvalidValue, "unknown operation "+strconv.Quote(shorten(operation)))
	}
	return e
}

// kafkaEnumName returns the one of names that name stands for as Kafka's
// SecurityUtils looks it up: the name itself, or its upper case, which may
// also be given in any case. It returns "" when none matches.
func kafkaEnumName[T ~string](name string, names ...T) T {
	upper := strings.ToUpper(name)
	for _, n := range names {
		if name == string(n) || upper == strings.ToUpper(string(n)) {
			return n
		}
	}
	return ""
}

// allOperations returns the operations an ACL can name.
func allOperations() []Operation {
	return []Operation{
		OperationAll, OperationRead, OperationWrite, OperationCreate, OperationDelete, OperationAlter,
		OperationDescribe, OperationClusterAction, OperationDescribeConfigs, OperationAlterConfigs,
		OperationIdempotentWrite, OperationCreateTokens, OperationDescribeTokens,
	}
}

// elemObject decodes element i of the array field as an object whose
// fields are reported as "field.key".
func (o *object) elemObject(field string, i int, raw json.RawMessage) *object {
	raw = bytes.TrimSpace(raw)
	if k := kind(raw); k != "object" {
		o.fail(field, ErrWrongType, "element "+strconv.Itoa(i)+": got "+k+", want object")
		return &object{d: o.d, prefix: o.prefix + field + "."}
	}
	return o.d.object(o.prefix, field, raw)
}

// withElement prefixes the detail of a *DecodeError with the index of the
// array element at fault.
func withElement(err error, i int) error {
	if de, ok := err.(*DecodeError); ok {
		de.Detail = strings.TrimSuffix("element "+strconv.Itoa(i)+": "+de.Detail, ": ")
	}
	return err
}
