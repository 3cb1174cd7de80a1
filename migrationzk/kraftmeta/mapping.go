package kraftmeta

import (
	"slices"
	"sort"

	"github.com/kraftmigration/zkwriter/migrationzk/dualwrite"
	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

// Kafka's names of the quota entity types.
const (
	entityUser     = "user"
	entityClientID = "client-id"
	entityIP       = "ip"
)

// fill sets r's Image, ACLs and Unmirrored from s, which the replay no
// longer changes: topics and config maps are handed over, not copied.
func (s *state) fill(r *Result) {
	img := s.topics
	img.Configs = map[dualwrite.ConfigResource]map[string]string{}
	img.ClientQuotas = map[dualwrite.QuotaEntity]map[string]float64{}
	img.Scram = map[string]map[string]znode.ScramCredential{}
	img.ACLs = map[dualwrite.ResourcePattern][]znode.ACLEntry{}
	img.DelegationTokens = s.tokens
	if s.nextProducerID != -1 {
		b := znode.MigrationProducerIDBlock(s.nextProducerID)
		img.ProducerIDBlock = &b
	}
	s.fillConfigs(&img, &r.Unmirrored)
	s.fillQuotas(&img, &r.Unmirrored)
	s.fillScram(&img, &r.Unmirrored)
	r.ACLs = s.fillACLs(&img, &r.Unmirrored)
	r.Unmirrored.Features = s.features
	s.countRare(&r.Unmirrored)
	r.Image = img
	r.MetadataVersion, r.MigrationState, r.NextProducerID = s.mv, s.migration, s.nextProducerID
	r.topics = make(map[string]*topicMeta, len(s.byID))
	for _, t := range s.byID {
		r.topics[t.name] = t
	}
}

// fillConfigs maps TOPIC (2) and BROKER (4) configs; the others are not
// mirrored.
func (s *state) fillConfigs(img *dualwrite.Image, u *Unmirrored) {
	for k, m := range s.configs {
		switch k.typ {
		case 2:
			img.Configs[dualwrite.ConfigResource{Type: dualwrite.TopicConfig, Name: k.name}] = m
		case 4:
			img.Configs[dualwrite.ConfigResource{Type: dualwrite.BrokerConfig, Name: k.name}] = m
		default:
			u.Configs = append(u.Configs, ResourceConfigs{Type: k.typ, Name: k.name, Configs: m})
		}
	}
	sort.Slice(u.Configs, func(i, j int) bool {
		a, b := u.Configs[i], u.Configs[j]
		return a.Type < b.Type || a.Type == b.Type && a.Name < b.Name
	})
}

// fillQuotas maps the entities ZooKeeper can name.
func (s *state) fillQuotas(img *dualwrite.Image, u *Unmirrored) {
	keys := make([]string, 0, len(s.quotas))
	for k := range s.quotas {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		q := s.quotas[k]
		if e, ok := quotaEntity(q.entity); ok {
			img.ClientQuotas[e] = q.quotas
		} else {
			u.ClientQuotas = append(u.ClientQuotas, EntityQuotas{Entity: q.entity, Quotas: q.quotas})
		}
	}
}

// quotaEntity maps a KRaft entity to ZooKeeper's: a user, a client id,
// both, or an IP; a nil name is the default entity.
func quotaEntity(entity map[string]*string) (dualwrite.QuotaEntity, bool) {
	var e dualwrite.QuotaEntity
	for typ, name := range entity {
		n := znode.DefaultEntityName
		if name != nil {
			if *name == "" || *name == znode.DefaultEntityName {
				return dualwrite.QuotaEntity{}, false
			}
			n = *name
		}
		switch typ {
		case entityUser:
			e.User = n
		case entityClientID:
			e.ClientID = n
		case entityIP:
			e.IP = n
		default:
			return dualwrite.QuotaEntity{}, false
		}
	}
	ok := e.IP != "" && e.User == "" && e.ClientID == "" || e.IP == "" && (e.User != "" || e.ClientID != "")
	return e, ok
}

// fillScram maps SCRAM-SHA-256 and SCRAM-SHA-512 credentials.
func (s *state) fillScram(img *dualwrite.Image, u *Unmirrored) {
	for k, c := range s.scram {
		mech := scramMechanismName(k.mechanism)
		if mech == "" {
			u.Scram = append(u.Scram, ScramID{User: k.user, Mechanism: k.mechanism})
			continue
		}
		m := img.Scram[k.user]
		if m == nil {
			m = map[string]znode.ScramCredential{}
			img.Scram[k.user] = m
		}
		m[mech] = c
	}
	sort.Slice(u.Scram, func(i, j int) bool {
		a, b := u.Scram[i], u.Scram[j]
		return a.User < b.User || a.User == b.User && a.Mechanism < b.Mechanism
	})
}

// fillACLs maps KRaft's ACLs, by id, to ZooKeeper's sets by resource
// pattern, equal entries once; it returns them all by id.
func (s *state) fillACLs(img *dualwrite.Image, u *Unmirrored) []ACL {
	all := make([]ACL, 0, len(s.acls))
	for _, a := range s.acls {
		all = append(all, a)
	}
	slices.SortFunc(all, func(a, b ACL) int { return compareUuids(a.ID, b.ID) })
	for _, a := range all {
		p, e, ok := aclEntry(a)
		if !ok {
			u.ACLs = append(u.ACLs, a)
			continue
		}
		if !slices.Contains(img.ACLs[p], e) {
			img.ACLs[p] = append(img.ACLs[p], e)
		}
	}
	return all
}

// compareUuids orders ids as Kafka's Uuid.compareTo does.
func compareUuids(a, b znode.Uuid) int {
	switch {
	case a.MostSignificantBits != b.MostSignificantBits:
		return cmpInt(a.MostSignificantBits, b.MostSignificantBits)
	default:
		return cmpInt(a.LeastSignificantBits, b.LeastSignificantBits)
	}
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// aclEntry maps an ACL to its resource pattern and entry in ZooKeeper,
// whose znodes hold Kafka's enums by name: resource types 2 to 7
// (TOPIC to USER), LITERAL (3) and PREFIXED (4), operations 2 to 14 (ALL
// to DESCRIBE_TOKENS), DENY (2) and ALLOW (3).
func aclEntry(a ACL) (dualwrite.ResourcePattern, znode.ACLEntry, bool) {
	resourceTypes := [...]znode.ResourceType{2: znode.ResourceTopic, 3: znode.ResourceGroup, 4: znode.ResourceCluster,
		5: znode.ResourceTransactionalID, 6: znode.ResourceDelegationToken, 7: znode.ResourceUser}
	operations := [...]znode.Operation{2: znode.OperationAll, 3: znode.OperationRead, 4: znode.OperationWrite,
		5: znode.OperationCreate, 6: znode.OperationDelete, 7: znode.OperationAlter, 8: znode.OperationDescribe,
		9: znode.OperationClusterAction, 10: znode.OperationDescribeConfigs, 11: znode.OperationAlterConfigs,
		12: znode.OperationIdempotentWrite, 13: znode.OperationCreateTokens, 14: znode.OperationDescribeTokens}
	var p dualwrite.ResourcePattern
	var e znode.ACLEntry
	switch a.PatternType {
	case 3:
		p.PatternType = znode.PatternLiteral
	case 4:
		p.PatternType = znode.PatternPrefixed
	}
	switch a.PermissionType {
	case 2:
		e.PermissionType = znode.PermissionDeny
	case 3:
		e.PermissionType = znode.PermissionAllow
	}
	if a.ResourceType >= 2 && int(a.ResourceType) < len(resourceTypes) {
		p.Type = resourceTypes[a.ResourceType]
	}
	if a.Operation >= 2 && int(a.Operation) < len(operations) {
		e.Operation = operations[a.Operation]
	}
	if p.Type == "" || p.PatternType == "" || e.Operation == "" || e.PermissionType == "" {
		return dualwrite.ResourcePattern{}, znode.ACLEntry{}, false
	}
	p.Name, e.Principal, e.Host = a.ResourceName, a.Principal, a.Host
	return p, e, true
}

// countRare counts the partitions with directories and eligible leader
// replicas. A partition's extras are set only while it exists: those of
// a partition a transaction created and its abort removed are zero.
func (s *state) countRare(u *Unmirrored) {
	count := func(r *partRare) {
		if r.dirs != nil {
			u.Directories++
		}
		if r.elr != nil || r.lastKnownElr != nil {
			u.EligibleLeaderReplicas++
		}
	}
	for _, t := range s.byID {
		for _, r := range t.rare {
			count(r)
		}
	}
}

// scramMechanismName returns the mechanism's name in ZooKeeper, "" for
// one it does not hold.
func scramMechanismName(m int8) string {
	switch m {
	case 1:
		return znode.ScramSHA256
	case 2:
		return znode.ScramSHA512
	}
	return ""
}
