package dualwrite

import (
	"context"
	"maps"

	"github.com/kraftmigration/zkwriter/migrationzk"
	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

// ConfigType is the type of a config resource KRaft mirrors.
type ConfigType string

// Config resource types: Kafka's migration writes topic and broker
// configs only.
const (
	TopicConfig  ConfigType = "topic"
	BrokerConfig ConfigType = "broker"
)

// ConfigResource names a topic or a broker whose configs change; an empty
// Name is the cluster-wide default (<default>).
type ConfigResource struct {
	Type ConfigType
	Name string
}

// nameRule checks r's name against Kafka's rule for a new resource's
// name, and returns the znodes of r's entity that, when one exists, make
// the name not new.
func (r ConfigResource) nameRule() (paths []string, err error) {
	switch r.Type {
	case TopicConfig:
		return []string{znode.TopicConfigEntity(r.Name).Path(), znode.TopicPath(r.Name)}, topicNameRule(r.Name)
	case BrokerConfig:
		return []string{znode.BrokerConfigEntity(r.Name).Path()}, brokerNameRule(r.Name)
	}
	return nil, nil
}

// entity returns the config entity of r.
func (r ConfigResource) entity() (znode.ConfigEntity, error) {
	switch r.Type {
	case TopicConfig:
		return znode.TopicConfigEntity(r.Name), checkName("topic", r.Name)
	case BrokerConfig:
		if r.Name == "" {
			return znode.BrokerConfigEntity(r.Name), nil
		}
		return znode.BrokerConfigEntity(r.Name), checkName("broker", r.Name)
	}
	return znode.ConfigEntity{}, invalidf("config resource type %q: want %q or %q", r.Type, TopicConfig, BrokerConfig)
}

// QuotaEntity names the client-quota entity of a change, as Kafka's
// ClientQuotaEntity: a user, a client id, a user and client id, or an IP.
// An empty component is not part of the entity; znode.DefaultEntityName
// ("<default>") is the default entity of its kind. Names are sanitized
// into znode names as Kafka does.
type QuotaEntity struct {
	User, ClientID, IP string
}

// configEntity returns the config entity of q.
func (q QuotaEntity) configEntity() (znode.ConfigEntity, error) {
	if err := checkQuotaEntity(q); err != nil {
		return znode.ConfigEntity{}, err
	}
	name := func(s string) *string {
		if s == znode.DefaultEntityName {
			return nil
		}
		return &s
	}
	switch {
	case q.IP != "" && q.User == "" && q.ClientID == "":
		return znode.IPQuotaEntity(name(q.IP)), nil
	case q.IP != "":
		return znode.ConfigEntity{}, invalidf("quota entity %+v: an IP entity has no user or client id", q)
	case q.User != "" && q.ClientID != "":
		return znode.UserClientQuotaEntity(name(q.User), name(q.ClientID)), nil
	case q.User != "":
		return znode.UserQuotaEntity(name(q.User)), nil
	case q.ClientID != "":
		return znode.ClientQuotaEntity(name(q.ClientID)), nil
	}
	return znode.ConfigEntity{}, invalidf("empty quota entity")
}

// WriteConfigs makes resource's config znode hold exactly configs, and
// notifies ZooKeeper-mode brokers (/config/changes) in the same
// transaction. Configs ZooKeeper holds already write nothing and notify
// nobody. Password configs are given in plain text: a Client built
// WithPasswordEncoder encodes them as Kafka does and compares them
// decoded; one without writes them as given, as Kafka without
// password.encoder.secret does.
func (c *Client) WriteConfigs(ctx context.Context, s migrationzk.State, resource ConfigResource, configs map[string]string) (migrationzk.State, error) {
	return c.apply(ctx, s, c.Batch().WriteConfigs(resource, configs))
}

// DeleteConfigs deletes resource's config znode, notifying ZooKeeper-mode
// brokers in the same transaction; a znode that is gone is no error and
// notifies nobody.
func (c *Client) DeleteConfigs(ctx context.Context, s migrationzk.State, resource ConfigResource) (migrationzk.State, error) {
	return c.apply(ctx, s, c.Batch().DeleteConfigs(resource))
}

// WriteClientQuotas makes entity's config znode hold the quotas (Kafka's
// quota names, formatted as Kafka formats each) and, for a user, its SCRAM
// credentials by mechanism, notifying ZooKeeper-mode brokers in the same
// transaction. An entity without quotas or credentials keeps a znode with
// an empty config, as Kafka keeps it.
func (c *Client) WriteClientQuotas(ctx context.Context, s migrationzk.State, entity QuotaEntity, quotas map[string]float64, scram map[string]znode.ScramCredential) (migrationzk.State, error) {
	return c.apply(ctx, s, c.Batch().WriteClientQuotas(entity, quotas, scram))
}

// WriteConfigs records WriteConfigs' change.
func (b *Batch) WriteConfigs(resource ConfigResource, configs map[string]string) *Batch {
	e, err := resource.entity()
	if err == nil {
		err = checkConfigs(configs)
	}
	paths, nameErr := resource.nameRule()
	want := znode.Config(maps.Clone(configs))
	stored := want
	if err == nil {
		stored, err = b.c.encodePasswords(want)
	}
	data := stored.Encode()
	return b.add(func(v *view, _ migrationzk.State) bool {
		return v.admitName(nameErr, paths...) && v.putConfigAs(e, want, data, b.c.decodePasswords)
	}, err)
}

// DeleteConfigs records DeleteConfigs' change.
func (b *Batch) DeleteConfigs(resource ConfigResource) *Batch {
	e, err := resource.entity()
	return b.add(func(v *view, _ migrationzk.State) bool {
		exists, known := v.exists(e.Path())
		if !known || !exists {
			return known
		}
		return v.remove(e.Path()) && v.notify(znode.ConfigChangePrefix, e.Change().Encode())
	}, err)
}

// WriteClientQuotas records WriteClientQuotas' change.
func (b *Batch) WriteClientQuotas(entity QuotaEntity, quotas map[string]float64, scram map[string]znode.ScramCredential) *Batch {
	e, err := entity.configEntity()
	var want znode.Config
	if err == nil {
		want, err = quotaConfig(entity, quotas, scram)
	}
	return b.add(func(v *view, _ migrationzk.State) bool { return v.putConfig(e, want) }, err)
}

// quotaConfig is the config a quota entity's znode holds.
func quotaConfig(entity QuotaEntity, quotas map[string]float64, scram map[string]znode.ScramCredential) (znode.Config, error) {
	if len(scram) > 0 && (entity.User == "" || entity.ClientID != "") {
		return nil, invalidf("quota entity %+v: SCRAM credentials belong to a user entity", entity)
	}
	cfg := znode.Config{}
	for key, value := range quotas {
		if err := checkQuotaValue(key, value); err != nil {
			return nil, err
		}
		text, err := znode.FormatQuota(key, value)
		if err != nil {
			return nil, invalidf("quota entity %+v: %v", entity, err)
		}
		cfg[key] = text
	}
	for mechanism, cred := range scram {
		if mechanism != znode.ScramSHA256 && mechanism != znode.ScramSHA512 {
			return nil, invalidf("SCRAM mechanism %q", mechanism)
		}
		cfg[mechanism] = string(cred.Encode())
	}
	return cfg, nil
}

// putConfig plans e's config znode to hold want, with a change
// notification when it changes. A znode holding null data, as Kafka leaves
// an entity it created as a parent, holds no config.
func (v *view) putConfig(e znode.ConfigEntity, want znode.Config) bool {
	return v.putConfigAs(e, want, want.Encode(), nil)
}

// putConfigAs is putConfig for a znode that is to hold data, the stored
// form of want: decode, when not nil, turns a stored config into its plain
// values (password configs decoded) for the comparison with want.
func (v *view) putConfigAs(e znode.ConfigEntity, want znode.Config, data []byte, decode func(map[string]string) (map[string]string, error)) bool {
	changed, known := v.put(e.Path(), data, func(cur []byte) (bool, error) {
		if cur == nil {
			return false, nil
		}
		got, err := znode.DecodeConfig(cur)
		if err == nil && decode != nil {
			got, err = decode(got)
		}
		return err == nil && maps.Equal(got, want), err
	})
	if changed {
		return v.notify(znode.ConfigChangePrefix, e.Change().Encode()) && known
	}
	return known
}
