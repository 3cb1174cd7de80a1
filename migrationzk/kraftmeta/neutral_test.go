package kraftmeta_test

import (
	"encoding/base64"
	"slices"
	"sort"
	"strconv"

	"github.com/kraftmigration/zkwriter/internal/jvm"
	"github.com/kraftmigration/zkwriter/migrationzk/dualwrite"
	"github.com/kraftmigration/zkwriter/migrationzk/kraftmeta"
	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

// The fixtures' neutral JSON of Kafka's MetadataImage, written from a
// Result in the canonical form the fixtures' README defines: keys in its
// order, arrays sorted as it says, no whitespace, non-ASCII as it is,
// doubles as Java prints them.

// jw writes ordered JSON.
type jw struct{ b []byte }

func (w *jw) raw(s string) { w.b = append(w.b, s...) }

func (w *jw) str(s string) {
	w.b = append(w.b, '"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			w.b = append(w.b, '\\', c)
		case c == '\n':
			w.raw(`\n`)
		case c == '\t':
			w.raw(`\t`)
		case c == '\r':
			w.raw(`\r`)
		case c < 0x20:
			w.raw(`\u00` + string("0123456789abcdef"[c>>4]) + string("0123456789abcdef"[c&0xF]))
		default:
			w.b = append(w.b, c)
		}
	}
	w.b = append(w.b, '"')
}

func (w *jw) key(k string) { w.str(k); w.raw(":") }
func (w *jw) int(v int64)  { w.b = strconv.AppendInt(w.b, v, 10) }

func (w *jw) ints(a []int32) {
	w.raw("[")
	for i, v := range a {
		if i > 0 {
			w.raw(",")
		}
		w.int(int64(v))
	}
	w.raw("]")
}

// obj writes an object of fields, each written by its function.
func (w *jw) obj(fields ...any) {
	w.raw("{")
	for i := 0; i < len(fields); i += 2 {
		if i > 0 {
			w.raw(",")
		}
		w.key(fields[i].(string))
		fields[i+1].(func())()
	}
	w.raw("}")
}

// list writes n elements.
func (w *jw) list(n int, elem func(i int)) {
	w.raw("[")
	for i := 0; i < n; i++ {
		if i > 0 {
			w.raw(",")
		}
		elem(i)
	}
	w.raw("]")
}

// stringMap writes a map of strings, keys sorted.
func (w *jw) stringMap(m map[string]string) {
	keys := sortedKeys(m)
	w.raw("{")
	for i, k := range keys {
		if i > 0 {
			w.raw(",")
		}
		w.key(k)
		w.str(m[k])
	}
	w.raw("}")
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, jvm.CompareStrings)
	return keys
}

// Kafka's enum names by code.
var (
	configTypeNames   = map[int8]string{0: "UNKNOWN", 2: "TOPIC", 4: "BROKER", 8: "BROKER_LOGGER", 16: "CLIENT_METRICS"}
	resourceTypeNames = []string{"UNKNOWN", "ANY", "TOPIC", "GROUP", "CLUSTER", "TRANSACTIONAL_ID", "DELEGATION_TOKEN", "USER"}
	patternTypeNames  = []string{"UNKNOWN", "ANY", "MATCH", "LITERAL", "PREFIXED"}
	operationNames    = []string{"UNKNOWN", "ANY", "ALL", "READ", "WRITE", "CREATE", "DELETE", "ALTER", "DESCRIBE",
		"CLUSTER_ACTION", "DESCRIBE_CONFIGS", "ALTER_CONFIGS", "IDEMPOTENT_WRITE", "CREATE_TOKENS", "DESCRIBE_TOKENS"}
	permissionNames = []string{"UNKNOWN", "ANY", "DENY", "ALLOW"}
)

// neutralImage returns r's image in the fixtures' neutral JSON.
func neutralImage(r *kraftmeta.Result) []byte {
	b, _, _ := neutralSections(r)
	return b
}

// neutralSections returns r's image in the fixtures' neutral JSON, and
// its topics and configs arrays.
func neutralSections(r *kraftmeta.Result) (image, topics, configs []byte) {
	w := &jw{}
	var t0, t1, c0, c1 int
	w.obj(
		"provenance", func() {
			w.obj("offset", func() { w.int(r.Offset) }, "epoch", func() { w.int(int64(r.Epoch)) },
				"lastContainedLogTimeMs", func() { w.int(r.LastContainedLogTimeMs) })
		},
		"features", func() { writeFeatures(w, r) },
		"topics", func() { t0 = len(w.b); writeTopics(w, r); t1 = len(w.b) },
		"configs", func() { c0 = len(w.b); writeConfigs(w, r); c1 = len(w.b) },
		"clientQuotas", func() { writeQuotas(w, r) },
		"scram", func() { writeScram(w, r) },
		"acls", func() { writeACLs(w, r) },
		"delegationTokens", func() { writeTokens(w, r) },
		"producerIds", func() { w.obj("nextProducerId", func() { w.int(r.NextProducerID) }) },
		"highestOffsetAndEpoch", func() {
			w.obj("offset", func() { w.int(r.Offset) }, "epoch", func() { w.int(int64(r.Epoch)) })
		},
	)
	return w.b, w.b[t0:t1], w.b[c0:c1]
}

func writeFeatures(w *jw, r *kraftmeta.Result) {
	w.obj(
		"metadataVersion", func() { w.str(r.MetadataVersion.String()) },
		"metadataVersionLevel", func() { w.int(int64(r.MetadataVersion)) },
		"finalizedLevels", func() {
			w.raw("{")
			for i, k := range sortedKeys(r.Unmirrored.Features) {
				if i > 0 {
					w.raw(",")
				}
				w.key(k)
				w.int(int64(r.Unmirrored.Features[k]))
			}
			w.raw("}")
		},
		"zkMigrationState", func() { w.str(r.MigrationState.String()) },
		"zkMigrationStateValue", func() { w.int(int64(r.MigrationState)) },
	)
}

// writeTopics writes the topics array.
func writeTopics(w *jw, r *kraftmeta.Result) {
	names := sortedKeys(r.Image.Topics)
	w.list(len(names), func(i int) {
		t := r.Image.Topics[names[i]]
		ids := make([]int32, 0, len(t.Partitions))
		for id := range t.Partitions {
			ids = append(ids, id)
		}
		slices.Sort(ids)
		w.obj("name", func() { w.str(t.Name) }, "id", func() { w.str(t.ID.String()) }, "partitions", func() {
			w.list(len(ids), func(j int) {
				d, _ := r.Partition(t.Name, ids[j])
				writePartition(w, ids[j], d)
			})
		})
	})
}

func writePartition(w *jw, id int32, d kraftmeta.PartitionDetail) {
	w.raw(`{"partition":`)
	w.int(int64(id))
	for _, f := range []struct {
		key string
		a   []int32
	}{{"replicas", d.Replicas}, {"isr", d.State.ISR}, {"removingReplicas", d.RemovingReplicas}, {"addingReplicas", d.AddingReplicas}} {
		w.raw(`,"` + f.key + `":`)
		w.ints(f.a)
	}
	w.raw(`,"leader":`)
	w.int(int64(d.State.Leader))
	w.raw(`,"leaderRecoveryState":`)
	w.int(int64(d.State.LeaderRecoveryState))
	w.raw(`,"leaderEpoch":`)
	w.int(int64(d.State.LeaderEpoch))
	w.raw(`,"partitionEpoch":`)
	w.int(int64(d.PartitionEpoch))
	w.raw(`,"directories":[`)
	for i, dir := range d.Directories {
		if i > 0 {
			w.raw(",")
		}
		if dir.IsZero() {
			w.raw(`"AAAAAAAAAAAAAAAAAAAAAA"`)
		} else {
			w.str(dir.String())
		}
	}
	w.raw(`],"elr":`)
	w.ints(d.EligibleLeaderReplicas)
	w.raw(`,"lastKnownElr":`)
	w.ints(d.LastKnownELR)
	w.raw("}")
}

// configEntry is a config resource, of any type.
type configEntry struct {
	typ     int8
	name    string
	configs map[string]string
}

func writeConfigs(w *jw, r *kraftmeta.Result) {
	var all []configEntry
	for res, m := range r.Image.Configs {
		typ := int8(2)
		if res.Type == dualwrite.BrokerConfig {
			typ = 4
		}
		all = append(all, configEntry{typ, res.Name, m})
	}
	for _, c := range r.Unmirrored.Configs {
		all = append(all, configEntry{c.Type, c.Name, c.Configs})
	}
	sort.Slice(all, func(i, j int) bool {
		return all[i].typ < all[j].typ || all[i].typ == all[j].typ && jvm.CompareStrings(all[i].name, all[j].name) < 0
	})
	w.list(len(all), func(i int) {
		c := all[i]
		w.obj("resourceType", func() { w.str(configTypeNames[c.typ]) }, "resourceTypeValue", func() { w.int(int64(c.typ)) },
			"resourceName", func() { w.str(c.name) }, "configs", func() { w.stringMap(c.configs) })
	})
}

// quotaEntry is a quota entity in KRaft's terms.
type quotaEntry struct {
	entity map[string]*string
	quotas map[string]float64
}

func writeQuotas(w *jw, r *kraftmeta.Result) {
	var all []quotaEntry
	for e, q := range r.Image.ClientQuotas {
		m := map[string]*string{}
		for typ, name := range map[string]string{"user": e.User, "client-id": e.ClientID, "ip": e.IP} {
			switch name {
			case "":
			case znode.DefaultEntityName:
				m[typ] = nil
			default:
				n := name
				m[typ] = &n
			}
		}
		all = append(all, quotaEntry{m, q})
	}
	for _, u := range r.Unmirrored.ClientQuotas {
		all = append(all, quotaEntry{u.Entity, u.Quotas})
	}
	sort.Slice(all, func(i, j int) bool { return compareEntities(all[i].entity, all[j].entity) < 0 })
	w.list(len(all), func(i int) {
		q := all[i]
		w.obj("entity", func() { writeEntity(w, q.entity) }, "quotas", func() {
			w.raw("{")
			for k, key := range sortedKeys(q.quotas) {
				if k > 0 {
					w.raw(",")
				}
				w.key(key)
				w.raw(jvm.DoubleString(q.quotas[key]))
			}
			w.raw("}")
		})
	})
}

func writeEntity(w *jw, entity map[string]*string) {
	types := sortedKeys(entity)
	w.list(len(types), func(i int) {
		name := entity[types[i]]
		w.obj("entityType", func() { w.str(types[i]) }, "entityName", func() {
			if name == nil {
				w.raw("null")
			} else {
				w.str(*name)
			}
		})
	})
}

func writeScram(w *jw, r *kraftmeta.Result) {
	type cred struct {
		user, mech string
		c          znode.ScramCredential
	}
	var all []cred
	for user, m := range r.Image.Scram {
		for mech, c := range m {
			all = append(all, cred{user, mech, c})
		}
	}
	sort.Slice(all, func(i, j int) bool {
		return jvm.CompareStrings(all[i].user, all[j].user) < 0 || all[i].user == all[j].user && all[i].mech < all[j].mech
	})
	b64 := base64.StdEncoding.EncodeToString
	w.list(len(all), func(i int) {
		c := all[i]
		value := int64(1)
		if c.mech == znode.ScramSHA512 {
			value = 2
		}
		w.obj("user", func() { w.str(c.user) }, "mechanism", func() { w.str(c.mech) }, "mechanismValue", func() { w.int(value) },
			"salt", func() { w.str(b64(c.c.Salt)) }, "storedKey", func() { w.str(b64(c.c.StoredKey)) },
			"serverKey", func() { w.str(b64(c.c.ServerKey)) }, "iterations", func() { w.int(int64(c.c.Iterations)) })
	})
}

func writeACLs(w *jw, r *kraftmeta.Result) {
	acls := slices.Clone(r.ACLs)
	sort.Slice(acls, func(i, j int) bool { return acls[i].ID.String() < acls[j].ID.String() })
	w.list(len(acls), func(i int) {
		a := acls[i]
		w.obj("id", func() { w.str(a.ID.String()) },
			"resourceType", func() { w.str(resourceTypeNames[a.ResourceType]) }, "resourceTypeValue", func() { w.int(int64(a.ResourceType)) },
			"resourceName", func() { w.str(a.ResourceName) },
			"patternType", func() { w.str(patternTypeNames[a.PatternType]) }, "patternTypeValue", func() { w.int(int64(a.PatternType)) },
			"principal", func() { w.str(a.Principal) }, "host", func() { w.str(a.Host) },
			"operation", func() { w.str(operationNames[a.Operation]) }, "operationValue", func() { w.int(int64(a.Operation)) },
			"permissionType", func() { w.str(permissionNames[a.PermissionType]) }, "permissionTypeValue", func() { w.int(int64(a.PermissionType)) })
	})
}

func writeTokens(w *jw, r *kraftmeta.Result) {
	ids := sortedKeys(r.Image.DelegationTokens)
	w.list(len(ids), func(i int) {
		t := r.Image.DelegationTokens[ids[i]]
		w.obj("tokenId", func() { w.str(t.TokenID) }, "owner", func() { w.str(t.Owner) }, "requester", func() { w.str(t.TokenRequester) },
			"renewers", func() { w.list(len(t.Renewers), func(j int) { w.str(t.Renewers[j]) }) },
			"issueTimestamp", func() { w.int(t.IssueTimestamp) }, "maxTimestamp", func() { w.int(t.MaxTimestamp) },
			"expirationTimestamp", func() { w.int(t.ExpiryTimestamp) })
	})
}

// compareEntities orders entities by their entries, each by type then
// name, the default (null) name first.
func compareEntities(a, b map[string]*string) int {
	ta, tb := sortedKeys(a), sortedKeys(b)
	for i := 0; i < len(ta) && i < len(tb); i++ {
		if c := jvm.CompareStrings(ta[i], tb[i]); c != 0 {
			return c
		}
		na, nb := a[ta[i]], b[tb[i]]
		switch {
		case na == nil && nb == nil:
		case na == nil:
			return -1
		case nb == nil:
			return 1
		default:
			if c := jvm.CompareStrings(*na, *nb); c != 0 {
				return c
			}
		}
	}
	return len(ta) - len(tb)
}
