package kraftmeta

import (
	"sort"
	"strings"

	"github.com/kraftmigration/zkwriter/internal/kraftlog"
	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

// applyConfig sets or, with a null value, deletes a config key; a
// resource left without keys is no more, as in Kafka's image.
func (s *state) applyConfig(r *kraftlog.ConfigRecord) {
	key, name := configKey{typ: configType(r.ResourceType), name: r.ResourceName}, r.Name
	if s.txn != nil {
		s.undoConfig(key, name)
	}
	s.setConfig(key, name, r.Value)
}

// undoConfig records how to restore a config key as it is now.
func (s *state) undoConfig(key configKey, name string) {
	old, had := s.configs[key][name]
	s.onUndo(func() {
		if had {
			s.setConfig(key, name, &old)
		} else {
			s.setConfig(key, name, nil)
		}
	})
}

// setConfig sets a key, or deletes it for a nil value.
func (s *state) setConfig(key configKey, name string, value *string) {
	m := s.configs[key]
	if value == nil {
		delete(m, name)
		if len(m) == 0 {
			delete(s.configs, key)
		}
		return
	}
	if m == nil {
		m = map[string]string{}
		s.configs[key] = m
	}
	m[name] = *value
}

// applyQuota sets or removes a quota of an entity; an entity left
// without quotas is no more.
func (s *state) applyQuota(r *kraftlog.ClientQuotaRecord) {
	entity := map[string]*string{}
	for _, e := range r.Entity {
		entity[e.EntityType] = e.EntityName
	}
	key, name := quotaKey(entity), r.Key
	var old float64
	var had bool
	if q := s.quotas[key]; q != nil {
		old, had = q.quotas[name]
	}
	s.onUndo(func() { s.setQuota(key, entity, name, old, !had) })
	s.setQuota(key, entity, name, r.Value, r.Remove)
}

// setQuota sets a quota, or removes it.
func (s *state) setQuota(key string, entity map[string]*string, name string, value float64, remove bool) {
	q := s.quotas[key]
	if remove {
		if q != nil {
			delete(q.quotas, name)
			if len(q.quotas) == 0 {
				delete(s.quotas, key)
			}
		}
		return
	}
	if q == nil {
		q = &quotaEntry{entity: entity, quotas: map[string]float64{}}
		s.quotas[key] = q
	}
	q.quotas[name] = value
}

// quotaKey returns a map key of an entity: its types in order, each with
// its name or none.
func quotaKey(entity map[string]*string) string {
	types := make([]string, 0, len(entity))
	for t := range entity {
		types = append(types, t)
	}
	sort.Strings(types)
	var b strings.Builder
	for _, t := range types {
		b.WriteString(t)
		if n := entity[t]; n != nil {
			b.WriteString("\x00=")
			b.WriteString(*n)
		}
		b.WriteString("\x00;")
	}
	return b.String()
}

// scramMechanism returns a mechanism as Kafka's ScramMechanism reads it:
// 1 or 2, 0 (UNKNOWN) for any other.
func scramMechanism(m int8) int8 {
	if m == 1 || m == 2 {
		return m
	}
	return 0
}

func (s *state) applyScram(r *kraftlog.UserScramCredentialRecord) {
	key := scramKey{user: r.Name, mechanism: scramMechanism(r.Mechanism)}
	s.setScram(key, &znode.ScramCredential{Salt: r.Salt, StoredKey: r.StoredKey, ServerKey: r.ServerKey, Iterations: r.Iterations})
}

func (s *state) removeScram(r *kraftlog.RemoveUserScramCredentialRecord) {
	s.setScram(scramKey{user: r.Name, mechanism: scramMechanism(r.Mechanism)}, nil)
}

// setScram sets a credential, or removes it for nil.
func (s *state) setScram(key scramKey, c *znode.ScramCredential) {
	old, had := s.scram[key]
	s.onUndo(func() {
		if had {
			s.scram[key] = old
		} else {
			delete(s.scram, key)
		}
	})
	if c == nil {
		delete(s.scram, key)
	} else {
		s.scram[key] = *c
	}
}

// applyACL adds an ACL, its codes read as Kafka's enums read them.
func (s *state) applyACL(r *kraftlog.AccessControlEntryRecord) {
	acl := ACL{
		ID:             r.ID,
		ResourceType:   enumCode(r.ResourceType, 7),
		ResourceName:   r.ResourceName,
		PatternType:    enumCode(r.PatternType, 4),
		Principal:      r.Principal,
		Host:           r.Host,
		Operation:      enumCode(r.Operation, 14),
		PermissionType: enumCode(r.PermissionType, 3),
	}
	old, had := s.acls[acl.ID]
	s.onUndo(func() {
		if had {
			s.acls[acl.ID] = old
		} else {
			delete(s.acls, acl.ID)
		}
	})
	s.acls[acl.ID] = acl
}

// enumCode returns code as Kafka's fromCode reads it: a code above max,
// or negative, is UNKNOWN (0).
func enumCode(code, max int8) int8 {
	if code < 0 || code > max {
		return 0
	}
	return code
}

// removeACL removes an ACL by id; one that does not exist is refused, as
// Kafka's AclsDelta refuses it.
func (s *state) removeACL(id znode.Uuid, offset int64) error {
	old, had := s.acls[id]
	if !had {
		return inconsistent(offset, "RemoveAccessControlEntryRecord of ACL %s, which does not exist", id)
	}
	delete(s.acls, id)
	s.onUndo(func() { s.acls[id] = old })
	return nil
}

// applyToken sets a delegation token; its principals must read as
// principalType:principalName, as Kafka parses them.
func (s *state) applyToken(r *kraftlog.DelegationTokenRecord, offset int64) error {
	for _, p := range append([]string{r.Owner, r.Requester}, r.Renewers...) {
		if !strings.Contains(p, ":") {
			return inconsistent(offset, "DelegationTokenRecord %s: principal %q is not principalType:principalName", r.TokenID, p)
		}
	}
	s.setToken(r.TokenID, &znode.DelegationToken{
		TokenID: r.TokenID, Owner: r.Owner, TokenRequester: r.Requester, Renewers: r.Renewers,
		IssueTimestamp: r.IssueTimestamp, MaxTimestamp: r.MaxTimestamp, ExpiryTimestamp: r.ExpirationTimestamp,
	})
	return nil
}

func (s *state) removeToken(id string) { s.setToken(id, nil) }

// setToken sets a token, or removes it for nil.
func (s *state) setToken(id string, t *znode.DelegationToken) {
	old, had := s.tokens[id]
	s.onUndo(func() {
		if had {
			s.tokens[id] = old
		} else {
			delete(s.tokens, id)
		}
	})
	if t == nil {
		delete(s.tokens, id)
	} else {
		s.tokens[id] = *t
	}
}

func (s *state) setProducerID(next int64) {
	old := s.nextProducerID
	s.onUndo(func() { s.nextProducerID = old })
	s.nextProducerID = next
}

// applyFeature sets a feature's level: metadata.version must be a level
// Kafka 3.9 knows; another feature at level 0 is removed.
func (s *state) applyFeature(r *kraftlog.FeatureLevelRecord, offset int64) error {
	if r.Name == metadataVersionFeature {
		mv := MetadataVersion(r.FeatureLevel)
		if !mv.Valid() {
			return inconsistent(offset, "FeatureLevelRecord: metadata.version level %d is not one Kafka 3.9 knows", r.FeatureLevel)
		}
		old := s.mv
		s.onUndo(func() { s.mv = old })
		s.mv = mv
		return nil
	}
	name := r.Name
	old, had := s.features[name]
	s.onUndo(func() {
		if had {
			s.features[name] = old
		} else {
			delete(s.features, name)
		}
	})
	if r.FeatureLevel == 0 {
		delete(s.features, name)
	} else {
		s.features[name] = r.FeatureLevel
	}
	return nil
}

// metadataVersionFeature is the feature name of metadata.version.
const metadataVersionFeature = "metadata.version"

func (s *state) applyMigrationState(v int8, offset int64) error {
	if v < 0 || MigrationState(v) > maxMigrationState {
		return inconsistent(offset, "ZkMigrationStateRecord: state %d is not valid", v)
	}
	old := s.migration
	s.onUndo(func() { s.migration = old })
	s.migration = MigrationState(v)
	return nil
}
