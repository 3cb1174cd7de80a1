package dualwrite

import (
	"context"
	"fmt"
	"maps"
	"path"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/kraftmigration/zkwriter/migrationzk"
	"github.com/kraftmigration/zkwriter/migrationzk/passwordencoder"
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

// WriteConfigs applies [Batch.WriteConfigs] alone.
func (c *Client) WriteConfigs(ctx context.Context, s migrationzk.State, resource ConfigResource, configs map[string]string) (migrationzk.State, error) {
	return c.apply(ctx, s, c.Batch().WriteConfigs(resource, configs))
}

// DeleteConfigs applies [Batch.DeleteConfigs] alone.
func (c *Client) DeleteConfigs(ctx context.Context, s migrationzk.State, resource ConfigResource) (migrationzk.State, error) {
	return c.apply(ctx, s, c.Batch().DeleteConfigs(resource))
}

// WriteConfigs records the change that makes resource's config znode hold
// exactly configs, and notifies ZooKeeper-mode brokers (/config/changes)
// in the same transaction. Configs ZooKeeper holds already write nothing
// and notify nobody. Password configs are given in plain text: a Client
// built WithPasswordEncoder encodes them as Kafka does and compares them
// decoded; one without writes them as given, as Kafka without
// password.encoder.secret does. A password config whose value is
// RedactedValue is refused with a *SecretError before anything is sent.
func (b *Batch) WriteConfigs(resource ConfigResource, configs map[string]string) *Batch {
	e, err := resource.entity()
	if err == nil {
		err = checkConfigs(configs)
	}
	if err == nil {
		err = redactedPassword(e, configs)
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

// DeleteConfigs records the change that deletes resource's config znode,
// notifying ZooKeeper-mode brokers in the same transaction; a znode that
// is gone is no error and notifies nobody.
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

// brokerNameRule checks the name of a new broker config entity: empty
// (the default) or a broker id, a base-10 int32 that is not negative.
func brokerNameRule(name string) error {
	if name == "" {
		return nil
	}
	if id, err := strconv.ParseInt(name, 10, 32); err != nil || id < 0 {
		return invalidf("broker name %q: want a broker id, a base-10 number from 0 to %d", name, int32(1<<31-1))
	}
	return nil
}

// checkConfigs checks the keys and values of a config: valid UTF-8. A
// value is never printed, since it may be a password.
func checkConfigs(configs map[string]string) error {
	for _, key := range slices.Sorted(maps.Keys(configs)) {
		if err := checkUTF8("config key", key); err != nil {
			return err
		}
		if !utf8.ValidString(configs[key]) {
			return invalidf("config %q: the value is not valid UTF-8", key)
		}
	}
	return nil
}

// configs reads the configs of topics and brokers.
func (r *imageReader) configs(ctx context.Context) error {
	for typ, dir := range map[ConfigType]string{TopicConfig: znode.EntityTopics, BrokerConfig: znode.EntityBrokers} {
		zs, err := r.readChildren(ctx, path.Join(znode.ConfigRootPath, dir))
		if err != nil {
			return err
		}
		for name, z := range zs {
			cfg, ok := r.config(z.path, z.data)
			if !ok {
				continue
			}
			cfg, err := r.c.decodePasswords(cfg)
			if err != nil {
				r.bad(z.path, err)
				continue
			}
			if name == znode.DefaultEntityName && typ == BrokerConfig {
				name = ""
			}
			r.img.Configs[ConfigResource{Type: typ, Name: name}] = cfg
		}
	}
	return nil
}

// config decodes a config znode; null data holds none.
func (r *imageReader) config(p string, data []byte) (map[string]string, bool) {
	if data == nil {
		return nil, false
	}
	cfg, err := znode.DecodeConfig(data)
	if err != nil {
		r.bad(p, err)
		return nil, false
	}
	return cfg, true
}

// configs plans the topic and broker configs: written where they differ,
// deleted where desired has none (no config and an empty one are alike,
// as a topic's empty config znode and none are).
func (d *differ) configs(current, desired map[ConfigResource]map[string]string) {
	all := map[ConfigResource]bool{}
	for r := range current {
		all[r] = true
	}
	for r := range desired {
		all[r] = true
	}
	less := func(a, b ConfigResource) bool { return a.Type < b.Type || a.Type == b.Type && a.Name < b.Name }
	for _, r := range sortedKeys(all, less) {
		want, have := desired[r], current[r]
		replaced := r.Type == TopicConfig && d.replaced[r.Name]
		if replaced && len(want) == 0 || !replaced && maps.Equal(want, have) {
			continue // a replaced topic's config is deleted with it, and created empty
		}
		fieldsOf := fieldChanges
		if replaced {
			fieldsOf = rewrittenFields // every key is written again
		}
		fields := fieldsOf(nil, configValues(have), configValues(want))
		subject, path := fmt.Sprintf("%s %q", r.Type, r.Name), ""
		if e, err := r.entity(); err == nil {
			subject, path = e.EntityPath(), e.Path()
		}
		if len(want) == 0 {
			d.add(Change{Kind: ChangeDeleteConfigs, Subject: subject, Fields: fields, add: func(b *Batch) { b.DeleteConfigs(r) }}, path)
			continue
		}
		d.add(Change{Kind: ChangeWriteConfigs, Subject: subject, Fields: fields, add: func(b *Batch) { b.WriteConfigs(r, want) }}, path)
	}
}

// configValues are the values of a config; password configs are secret.
func configValues(cfg map[string]string) []fieldValue {
	vs := make([]fieldValue, 0, len(cfg))
	for _, k := range sortedKeys(cfg, stringLess) {
		vs = append(vs, fieldValue{name: k, value: cfg[k], secret: passwordencoder.IsPasswordConfig(k)})
	}
	return vs
}
