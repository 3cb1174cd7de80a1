package znode

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// Paths of ACL znodes and of their change notifications.
const (
	// LiteralACLRootPath holds /<Type>/<name> for each resource with
	// ACLs on its literal name.
	LiteralACLRootPath = "/kafka-acl"
	// PrefixedACLRootPath holds /<Type>/<prefix> for each resource
	// name prefix with ACLs.
	PrefixedACLRootPath = "/kafka-acl-extended/prefixed"
	// LiteralACLChangesPath holds the notifications of changed literal
	// ACLs, LiteralACLChangePrefix the path each is created at as a
	// persistent sequential znode.
	LiteralACLChangesPath  = "/kafka-acl-changes"
	LiteralACLChangePrefix = LiteralACLChangesPath + "/acl_changes_"
	// ExtendedACLChangesPath holds the notifications of changed prefixed
	// ACLs, ExtendedACLChangePrefix the path each is created at.
	ExtendedACLChangesPath  = "/kafka-acl-extended-changes"
	ExtendedACLChangePrefix = ExtendedACLChangesPath + "/acl_changes_"
)

// LiteralACLPath returns the path of the ACL znode of a resource,
// "/kafka-acl/<Type>/<name>". The name is used as is, as Kafka does; a
// name holding '/' therefore names a deeper znode.
func LiteralACLPath(t ResourceType, name string) string {
	return LiteralACLRootPath + "/" + string(t) + "/" + name
}

// PrefixedACLPath returns the path of the ACL znode of a resource name
// prefix, "/kafka-acl-extended/prefixed/<Type>/<prefix>", the prefix used
// as is.
func PrefixedACLPath(t ResourceType, prefix string) string {
	return PrefixedACLRootPath + "/" + string(t) + "/" + prefix
}

// LiteralACLChange is the content of /kafka-acl-changes/acl_changes_<n>,
// the notification that the ACLs of a literal resource changed.
type LiteralACLChange struct {
	ResourceType ResourceType
	Name         string
}

// literalACLChangePattern is the path reported by DecodeLiteralACLChange.
const literalACLChangePattern = LiteralACLChangePrefix + "<n>"

// Encode returns the encoding of n as Kafka writes it: not JSON but the
// UTF-8 text "<TYPE>:<name>" with the resource type's Java enum name, for
// example "TOPIC:foo" or "TRANSACTIONAL_ID:tx-1". The name is a Java
// string: an invalid UTF-8 byte is written as U+FFFD.
func (n LiteralACLChange) Encode() []byte {
	return n.AppendEncode(make([]byte, 0, len("DELEGATION_TOKEN:")+len(n.Name)))
}

// AppendEncode appends the encoding of n, as returned by Encode, to dst
// and returns the extended slice.
func (n LiteralACLChange) AppendEncode(dst []byte) []byte {
	dst = append(dst, n.ResourceType.EnumName()...)
	dst = append(dst, ':')
	return appendJavaUTF8(dst, n.Name)
}

// appendJavaUTF8 appends s with each invalid UTF-8 byte replaced by
// U+FFFD, as a Java string decoded from s holds it.
func appendJavaUTF8(dst []byte, s string) []byte {
	if utf8.ValidString(s) {
		return append(dst, s...)
	}
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		dst = utf8.AppendRune(dst, r)
		i += size
	}
	return dst
}

// DecodeLiteralACLChange decodes the content of a literal ACL change
// notification as Kafka 3.9's LiteralAclChangeStore.decode reads it:
// valid UTF-8, a known resource type's enum name in any case (as
// ResourceType.fromString upper-cases it), ':' and the resource name,
// which may be empty and may hold ':'.
//
// The Path of a returned *DecodeError is
// "/kafka-acl-changes/acl_changes_<n>", literally.
func DecodeLiteralACLChange(data []byte) (LiteralACLChange, error) {
	const path = literalACLChangePattern
	if err := checkData(path, data); err != nil {
		return LiteralACLChange{}, err
	}
	if !utf8.Valid(data) {
		return LiteralACLChange{}, newError(path, "", ErrInvalidValue, "invalid UTF-8", data)
	}
	typeName, name, ok := strings.Cut(string(data), ":")
	if !ok {
		return LiteralACLChange{}, newError(path, "", ErrInvalidValue, "no ':' after the resource type", data)
	}
	t, ok := resourceTypeOfEnumName(strings.ToUpper(typeName))
	if !ok {
		return LiteralACLChange{}, newError(path, "", ErrInvalidValue, "unknown resource type "+strconv.Quote(shorten(typeName)), data)
	}
	return LiteralACLChange{ResourceType: t, Name: name}, nil
}

// PatternType is the Java enum name of a resource pattern type, as
// extended ACL change notifications write it.
type PatternType string

// The pattern types ZooKeeper can store ACLs for. Kafka writes the
// notifications of literal patterns as LiteralACLChange, so an
// ExtendedACLChange names PatternPrefixed.
const (
	PatternLiteral  PatternType = "LITERAL"
	PatternPrefixed PatternType = "PREFIXED"
)

// Valid reports whether p is one of the constants.
func (p PatternType) Valid() bool { return p == PatternLiteral || p == PatternPrefixed }

// ExtendedACLChange is the content of
// /kafka-acl-extended-changes/acl_changes_<n>, the notification that the
// ACLs of a resource pattern other than a literal name changed.
type ExtendedACLChange struct {
	ResourceType ResourceType
	Name         string
	PatternType  PatternType
}

// extendedACLChangeVersion is the only known version of the notification.
const extendedACLChangeVersion = 1

// extendedACLChangePattern is the path reported by
// DecodeExtendedACLChange.
const extendedACLChangePattern = ExtendedACLChangePrefix + "<n>"

// Encode returns the JSON encoding of n as Kafka writes it, the resource
// and pattern types by their Java enum names, for example
//
//	{"version":1,"resourceType":"TOPIC","name":"foo","patternType":"PREFIXED"}
func (n ExtendedACLChange) Encode() []byte {
	const fixed = len(`{"version":1,"resourceType":"DELEGATION_TOKEN","name":"","patternType":""}`)
	return n.AppendEncode(make([]byte, 0, fixed+len(n.Name)+len(n.PatternType)+8))
}

// AppendEncode appends the encoding of n, as returned by Encode, to dst
// and returns the extended slice.
func (n ExtendedACLChange) AppendEncode(dst []byte) []byte {
	dst = append(dst, `{"version":1,"resourceType":`...)
	dst = appendString(dst, n.ResourceType.EnumName())
	dst = append(dst, `,"name":`...)
	dst = appendString(dst, n.Name)
	dst = append(dst, `,"patternType":`...)
	dst = appendString(dst, string(n.PatternType))
	return append(dst, '}')
}

// DecodeExtendedACLChange decodes the content of an extended ACL change
// notification. The version must be 1; resourceType, name and patternType
// are required strings and known enum names: the resource type in any
// case, as ResourceType.fromString upper-cases it, the pattern type as it
// is, as PatternType.fromString takes it.
//
// The Path of a returned *DecodeError is
// "/kafka-acl-extended-changes/acl_changes_<n>", literally.
func DecodeExtendedACLChange(data []byte) (ExtendedACLChange, error) {
	o := parseObject(extendedACLChangePattern, data)
	o.version(extendedACLChangeVersion)
	typeName, name, pattern := o.str("resourceType"), o.str("name"), o.str("patternType")
	t, ok := resourceTypeOfEnumName(strings.ToUpper(typeName))
	p := PatternType(pattern)
	switch {
	case o.failed():
	case !ok:
		o.fail("resourceType", ErrInvalidValue, "unknown resource type "+strconv.Quote(shorten(typeName)))
	case !p.Valid():
		o.fail("patternType", ErrInvalidValue, "unknown pattern type "+strconv.Quote(shorten(pattern)))
	}
	if o.failed() {
		return ExtendedACLChange{}, o.err()
	}
	return ExtendedACLChange{ResourceType: t, Name: name, PatternType: p}, nil
}
