package dualwrite

import (
	"context"
	"fmt"
	"maps"
	"path"
	"strconv"

	"github.com/kraftmigration/zkwriter/migrationzk"
	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

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

// WriteClientQuotas applies [Batch.WriteClientQuotas] alone.
func (c *Client) WriteClientQuotas(ctx context.Context, s migrationzk.State, entity QuotaEntity, quotas map[string]float64, scram map[string]znode.ScramCredential) (migrationzk.State, error) {
	return c.apply(ctx, s, c.Batch().WriteClientQuotas(entity, quotas, scram))
}

// WriteClientQuotas records the change that makes entity's config znode
// hold the quotas (Kafka's quota names, formatted as Kafka formats each)
// and, for a user, its SCRAM credentials by mechanism, notifying
// ZooKeeper-mode brokers in the same transaction. An entity without quotas
// or credentials keeps a znode with an empty config, as Kafka keeps it. A
// credential without a salt, a stored key or a server key is refused
// before anything is sent, and one whose iteration count Kafka refuses
// unless ZooKeeper holds it already, each with a *SecretError.
func (b *Batch) WriteClientQuotas(entity QuotaEntity, quotas map[string]float64, scram map[string]znode.ScramCredential) *Batch {
	e, err := entity.configEntity()
	var want znode.Config
	if err == nil {
		want, err = quotaConfig(entity, quotas, scram)
	}
	var refused []*SecretError
	if err == nil {
		refused, err = checkScram(e, scram)
	}
	return b.add(func(v *view, _ migrationzk.State) bool {
		return v.admitCredentials(e, scram, refused) && v.putConfig(e, want)
	}, err)
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

// checkQuotaEntity checks the names of a quota entity: valid UTF-8.
func checkQuotaEntity(q QuotaEntity) error {
	for _, f := range [][2]string{{"quota entity user", q.User}, {"quota entity client id", q.ClientID}, {"quota entity IP", q.IP}} {
		if err := checkUTF8(f[0], f[1]); err != nil {
			return err
		}
	}
	return nil
}

// checkQuotaValue checks a quota's value as Kafka's controller does:
// greater than 0 (NaN passes, as it passes there).
func checkQuotaValue(key string, value float64) error {
	if value <= 0 {
		return invalidf("quota %s: value %v, want one greater than 0", key, value)
	}
	return nil
}

// quotas reads the quotas of users, users' clients, clients and IPs, and
// users' SCRAM credentials.
func (r *imageReader) quotas(ctx context.Context) error {
	users, err := r.readChildren(ctx, path.Join(znode.ConfigRootPath, znode.EntityUsers))
	if err != nil {
		return err
	}
	for name, z := range users {
		r.quotaEntity(z, QuotaEntity{User: name}, true)
		clients, err := r.readChildren(ctx, z.path+"/"+znode.EntityClients)
		if err != nil {
			return err
		}
		for client, cz := range clients {
			r.quotaEntity(cz, QuotaEntity{User: name, ClientID: client}, false)
		}
	}
	for _, dir := range []string{znode.EntityClients, znode.EntityIPs} {
		zs, err := r.readChildren(ctx, path.Join(znode.ConfigRootPath, dir))
		if err != nil {
			return err
		}
		for name, z := range zs {
			if dir == znode.EntityClients {
				r.quotaEntity(z, QuotaEntity{ClientID: name}, false)
			} else {
				r.quotaEntity(z, QuotaEntity{IP: name}, false)
			}
		}
	}
	return nil
}

// quotaEntity decodes the config znode of e, whose names are still
// sanitized: quotas, and for a user its SCRAM credentials.
func (r *imageReader) quotaEntity(z childZnode, e QuotaEntity, user bool) {
	cfg, ok := r.config(z.path, z.data)
	if !ok {
		return
	}
	e, err := desanitizeEntity(e)
	if err != nil {
		r.bad(z.path, err)
		return
	}
	quotas, scram, err := splitQuotaConfig(cfg, user)
	if err != nil {
		r.bad(z.path, err)
		return
	}
	r.img.ClientQuotas[e] = quotas
	if len(scram) > 0 {
		r.img.Scram[e.User] = scram
	}
}

// desanitizeEntity turns e's znode names back into names.
func desanitizeEntity(e QuotaEntity) (QuotaEntity, error) {
	for _, s := range []*string{&e.User, &e.ClientID, &e.IP} {
		if *s == "" || *s == znode.DefaultEntityName {
			continue
		}
		name, err := znode.Desanitize(*s)
		if err != nil {
			return e, err
		}
		*s = name
	}
	return e, nil
}

// splitQuotaConfig parses a quota entity's config into quotas and, for a
// user, SCRAM credentials.
func splitQuotaConfig(cfg map[string]string, user bool) (map[string]float64, map[string]znode.ScramCredential, error) {
	quotas := map[string]float64{}
	scram := map[string]znode.ScramCredential{}
	for k, v := range cfg {
		if user && (k == znode.ScramSHA256 || k == znode.ScramSHA512) {
			cred, err := znode.DecodeScramCredential([]byte(v))
			if err != nil {
				return nil, nil, err
			}
			scram[k] = cred
			continue
		}
		q, err := znode.ParseQuota(k, v)
		if err != nil {
			return nil, nil, err
		}
		quotas[k] = q
	}
	return quotas, scram, nil
}

// quotas plans the client quotas and SCRAM credentials, which share the
// znodes of their entities. An entity ZooKeeper holds that desired lacks
// keeps its znode with an empty config, as Kafka's full sync keeps it.
func (d *differ) quotas(current, desired Image) {
	entities := map[QuotaEntity]bool{}
	for _, img := range []Image{current, desired} {
		for e := range img.ClientQuotas {
			entities[e] = true
		}
		for u := range img.Scram {
			entities[QuotaEntity{User: u}] = true
		}
	}
	less := func(a, b QuotaEntity) bool { return fmt.Sprint(a) < fmt.Sprint(b) }
	for _, e := range sortedKeys(entities, less) {
		want, wantScram := desired.ClientQuotas[e], scramOf(desired, e)
		if maps.Equal(want, current.ClientQuotas[e]) && sameScram(wantScram, scramOf(current, e)) {
			continue
		}
		subject, path := fmt.Sprintf("%+v", e), ""
		if ze, err := e.configEntity(); err == nil {
			subject, path = ze.EntityPath(), ze.Path()
		}
		fields := fieldChanges(nil, quotaValues(current.ClientQuotas[e], scramOf(current, e)), quotaValues(want, wantScram))
		d.add(Change{Kind: ChangeWriteClientQuotas, Subject: subject, Fields: fields, add: func(b *Batch) { b.WriteClientQuotas(e, want, wantScram) }}, path)
	}
}

// scramOf returns the SCRAM credentials img holds for a user entity.
func scramOf(img Image, e QuotaEntity) map[string]znode.ScramCredential {
	if e.User == "" || e.ClientID != "" {
		return nil
	}
	return img.Scram[e.User]
}

// sameScram compares two users' credentials by mechanism.
func sameScram(a, b map[string]znode.ScramCredential) bool {
	return maps.EqualFunc(a, b, znode.ScramCredential.Equal)
}

// quotaValues are the quotas and SCRAM credentials of an entity; the
// credentials are secret.
func quotaValues(quotas map[string]float64, scram map[string]znode.ScramCredential) []fieldValue {
	vs := make([]fieldValue, 0, len(quotas)+len(scram))
	for _, k := range sortedKeys(quotas, stringLess) {
		vs = append(vs, fieldValue{name: k, value: strconv.FormatFloat(quotas[k], 'f', -1, 64)})
	}
	for _, m := range sortedKeys(scram, stringLess) {
		c := scram[m]
		vs = append(vs, fieldValue{name: m, value: fmt.Sprintf("%x/%x/%x/%d", c.Salt, c.StoredKey, c.ServerKey, c.Iterations), secret: true})
	}
	return vs
}
