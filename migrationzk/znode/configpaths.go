package znode

// Paths and names of config znodes.
const (
	// ConfigRootPath holds a directory per entity type.
	ConfigRootPath = "/config"
	// ConfigChangesPath holds the config change notifications.
	ConfigChangesPath = ConfigRootPath + "/changes"
	// ConfigChangePrefix is the path a notification is created at, as a
	// persistent sequential znode: ZooKeeper appends ten digits.
	ConfigChangePrefix = ConfigChangesPath + "/config_change_"
	// DefaultEntityName is the name of the default entity of a type:
	// the default broker config, the default user or client quota.
	DefaultEntityName = "<default>"
)

// Entity types: the directories under /config.
const (
	EntityTopics  = "topics"
	EntityBrokers = "brokers"
	EntityUsers   = "users"
	EntityClients = "clients"
	EntityIPs     = "ips"
)

// ConfigPath returns the path of the config znode of an entity,
// "/config/<entityType>/<name>". name is used as is: it must already be
// in the form Kafka stores it (see ConfigEntity).
func ConfigPath(entityType, name string) string {
	return ConfigRootPath + "/" + entityType + "/" + name
}

// ConfigEntity names the entity of a config znode: Type is its directory
// under /config and Name the rest of its path, in the form Kafka stores
// it. The functions returning a ConfigEntity apply Kafka's naming rules.
type ConfigEntity struct {
	Type string
	Name string
}

// Path returns the path of the entity's config znode.
func (e ConfigEntity) Path() string { return ConfigPath(e.Type, e.Name) }

// EntityPath returns "<type>/<name>", the entity as a config change
// notification names it.
func (e ConfigEntity) EntityPath() string { return e.Type + "/" + e.Name }

// Change returns the config change notification for the entity.
func (e ConfigEntity) Change() ConfigChange { return ConfigChange{EntityPath: e.EntityPath()} }

// TopicConfigEntity returns the entity of a topic's configs. The name is
// not sanitized.
func TopicConfigEntity(topic string) ConfigEntity {
	return ConfigEntity{Type: EntityTopics, Name: resourceConfigName(topic)}
}

// BrokerConfigEntity returns the entity of a broker's configs, broker
// being its id in decimal, or "" for the cluster-wide default configs,
// which are stored as <default>. The name is not sanitized.
func BrokerConfigEntity(broker string) ConfigEntity {
	return ConfigEntity{Type: EntityBrokers, Name: resourceConfigName(broker)}
}

// resourceConfigName is the znode name Kafka's migration gives a config
// resource: "" becomes <default>, other names are kept as they are.
func resourceConfigName(name string) string {
	if name == "" {
		return DefaultEntityName
	}
	return name
}

// quotaName is the znode name of a quota entity's component: nil, the
// default entity, becomes <default>; a name is sanitized.
func quotaName(name *string) string {
	if name == nil {
		return DefaultEntityName
	}
	return Sanitize(*name)
}

// UserQuotaEntity returns the entity holding a user's quotas and SCRAM
// credentials: users/<user>, the name sanitized, nil for the default user.
func UserQuotaEntity(user *string) ConfigEntity {
	return ConfigEntity{Type: EntityUsers, Name: quotaName(user)}
}

// UserClientQuotaEntity returns the entity holding the quotas of a client
// of a user: users/<user>/clients/<client>, both sanitized, nil for a
// default.
func UserClientQuotaEntity(user, clientID *string) ConfigEntity {
	return ConfigEntity{Type: EntityUsers, Name: quotaName(user) + "/" + EntityClients + "/" + quotaName(clientID)}
}

// ClientQuotaEntity returns the entity holding a client's quotas:
// clients/<client>, sanitized, nil for the default client.
func ClientQuotaEntity(clientID *string) ConfigEntity {
	return ConfigEntity{Type: EntityClients, Name: quotaName(clientID)}
}

// IPQuotaEntity returns the entity holding an IP's connection quota:
// ips/<ip>, sanitized as Kafka's migration does (an IPv6 address's colons
// become %3A), nil for the default IP.
func IPQuotaEntity(ip *string) ConfigEntity {
	return ConfigEntity{Type: EntityIPs, Name: quotaName(ip)}
}
