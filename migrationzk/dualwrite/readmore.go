package dualwrite

import (
	"context"
	"path"

	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

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

// childZnode is a child's data as read.
type childZnode struct {
	path string
	data []byte
}

// readChildren reads every child of p, by name.
func (r *imageReader) readChildren(ctx context.Context, p string) (map[string]childZnode, error) {
	names, err := r.children(ctx, p)
	if err != nil || len(names) == 0 {
		return nil, err
	}
	paths := make([]string, len(names))
	for i, n := range names {
		paths[i] = p + "/" + n
	}
	zs, err := r.read(ctx, paths...)
	if err != nil {
		return nil, err
	}
	out := make(map[string]childZnode, len(names))
	for i, z := range zs {
		if z.Exists {
			out[names[i]] = childZnode{path: z.Path, data: z.Data}
		}
	}
	return out, nil
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

// acls reads the ACLs of literal and prefixed resource patterns.
func (r *imageReader) acls(ctx context.Context) error {
	for pt, root := range map[znode.PatternType]string{znode.PatternLiteral: znode.LiteralACLRootPath, znode.PatternPrefixed: znode.PrefixedACLRootPath} {
		types, err := r.children(ctx, root)
		if err != nil {
			return err
		}
		for _, typ := range types {
			zs, err := r.readChildren(ctx, root+"/"+typ)
			if err != nil {
				return err
			}
			for name, z := range zs {
				acls, err := znode.DecodeACLs(z.data)
				if err != nil {
					r.bad(z.path, err)
					continue
				}
				r.img.ACLs[ResourcePattern{Type: znode.ResourceType(typ), Name: name, PatternType: pt}] = acls
			}
		}
	}
	return nil
}

// tokens reads the delegation tokens.
func (r *imageReader) tokens(ctx context.Context) error {
	zs, err := r.readChildren(ctx, znode.DelegationTokensPath)
	if err != nil {
		return err
	}
	for id, z := range zs {
		tok, err := znode.DecodeDelegationToken(z.data)
		if err != nil {
			r.bad(z.path, err)
			continue
		}
		r.img.DelegationTokens[id] = tok
	}
	return nil
}

// producerID reads /latest_producer_id_block; null data holds no block.
func (r *imageReader) producerID(ctx context.Context) error {
	zs, err := r.read(ctx, znode.ProducerIDBlockPath)
	if err != nil {
		return err
	}
	if !zs[0].Exists || zs[0].Data == nil {
		return nil
	}
	block, err := znode.DecodeProducerIDBlock(zs[0].Data)
	if err != nil {
		r.bad(zs[0].Path, err)
		return nil
	}
	r.img.ProducerIDBlock = &block
	return nil
}
