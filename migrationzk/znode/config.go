package znode

import (
	"maps"
	"slices"
	"strconv"

	"github.com/kraftmigration/zkwriter/internal/jvm"
)

// Config is the content of /config/<type>/<name>: the configuration of a
// topic, a broker, or the quotas and SCRAM credentials of a user, client
// or IP, as property name to value.
type Config map[string]string

// configPattern is the path reported by DecodeConfig.
const configPattern = ConfigRootPath + "/<type>/<name>"

// Encode returns the JSON encoding of c as Kafka 3.9 writes it during a
// migration, for example
//
//	{"version":1,"config":{"request_percentage":"58.58","producer_byte_rate":"1024","consumer_byte_rate":"2048","controller_mutation_rate":"10.0"}}
//
// version comes first. The properties come in the order Kafka's path
// gives them: its image's java.util.HashMap, filled in ascending key order
// (String.compareTo), copied into a java.util.Properties by iterating it,
// which Jackson then iterates (JDK 9 or later; see jvm.PropertiesOrder).
// An empty or nil Config is written as "config":{}. Keys and values are
// Java strings: an invalid UTF-8 byte is written as U+FFFD.
func (c Config) Encode() []byte {
	n := len(`{"version":1,"config":{}}`)
	for k, v := range c {
		n += len(k) + len(v) + 6
	}
	return c.AppendEncode(make([]byte, 0, n))
}

// AppendEncode appends the encoding of c, as returned by Encode, to dst
// and returns the extended slice.
func (c Config) AppendEncode(dst []byte) []byte {
	dst = append(dst, `{"version":1,"config":{`...)
	for i, k := range c.keyOrder() {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendString(dst, k)
		dst = append(dst, ':')
		dst = appendString(dst, c[k])
	}
	return append(dst, "}}"...)
}

// keyOrder returns the keys of c in the order Kafka writes them.
func (c Config) keyOrder() []string {
	keys := slices.SortedFunc(maps.Keys(c), jvm.CompareStrings)
	return jvm.PropertiesOrder(jvm.HashMapOrder(keys))
}

// DecodeConfig decodes the content of a config znode as Kafka 3.9's
// ConfigEntityZNode.decode reads it: only config is read, an object whose
// values are all strings; keys come in any order and the version is never
// read. An empty config decodes as an empty, non-nil Config. Where Kafka
// would read an empty config from data without a config object, DecodeConfig
// refuses it.
//
// The Path of a returned *DecodeError is "/config/<type>/<name>",
// literally, and a bad value is reported as field "config.<key>".
func DecodeConfig(data []byte) (Config, error) {
	o := parseObject(configPattern, data)
	props := o.sub("config")
	c := make(Config, len(props.members))
	for _, m := range props.members {
		c[m.key] = props.str(m.key)
	}
	if o.failed() {
		return nil, o.err()
	}
	return c, nil
}

// ConfigChange is the content of /config/changes/config_change_<n>, the
// notification that tells ZooKeeper-mode brokers to reread an entity's
// config znode.
type ConfigChange struct {
	// EntityPath is "<type>/<name>" without a leading slash, as returned
	// by ConfigEntity.EntityPath: "topics/foo", "brokers/<default>",
	// "users/alice%40x/clients/c1".
	EntityPath string
}

// configChangeVersion is the version of the notifications Kafka writes.
const configChangeVersion = 2

// configChangePattern is the path reported by DecodeConfigChange.
const configChangePattern = ConfigChangePrefix + "<n>"

// Encode returns the JSON encoding of n as Kafka writes it, for example
//
//	{"version":2,"entity_path":"brokers/1"}
func (n ConfigChange) Encode() []byte {
	return n.AppendEncode(make([]byte, 0, len(`{"version":2,"entity_path":""}`)+len(n.EntityPath)+8))
}

// AppendEncode appends the encoding of n, as returned by Encode, to dst
// and returns the extended slice.
func (n ConfigChange) AppendEncode(dst []byte) []byte {
	dst = append(dst, `{"version":2,"entity_path":`...)
	dst = appendString(dst, n.EntityPath)
	return append(dst, '}')
}

// DecodeConfigChange decodes the content of a config change notification
// as Kafka 3.9's ZkConfigManager reads it. Version 2 holds entity_path, a
// string. Version 1, written by Kafka before 0.10.1, holds entity_type,
// "topics" or "clients", and entity_name, strings, and decodes as the
// EntityPath "<entity_type>/<entity_name>".
//
// The Path of a returned *DecodeError is
// "/config/changes/config_change_<n>", literally.
func DecodeConfigChange(data []byte) (ConfigChange, error) {
	o := parseObject(configChangePattern, data)
	var n ConfigChange
	switch o.version(1, configChangeVersion) {
	case 1:
		entityType, name := o.str("entity_type"), o.str("entity_name")
		if !o.failed() && entityType != EntityTopics && entityType != EntityClients {
			o.fail("entity_type", ErrInvalidValue, strconv.Quote(shorten(entityType))+" is neither topics nor clients")
		}
		n.EntityPath = entityType + "/" + name
	case configChangeVersion:
		n.EntityPath = o.str("entity_path")
	}
	if o.failed() {
		return ConfigChange{}, o.err()
	}
	return n, nil
}
