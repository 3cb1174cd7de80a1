package dualwrite

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

// ImageSchemaVersion is the schema_version WriteJSON writes, and the
// newest one ReadImageJSON reads. It changes only when a field is removed
// or changes meaning; fields and domains may be added within a version,
// and ReadImageJSON skips those it does not know.
//
// Version 2 holds a topic's Unassigned partitions in its
// "unassigned_partitions"; version 1 wrote them among its "partitions"
// with "replicas": null, which ReadImageJSON still reads as Unassigned.
//
// Version 3 records the form of the image's secrets (Image.Secrets):
// "redacted", true for a redacted image, and "passwords", "plain" or
// "encoded" for one that is not, null when it is redacted or its form is
// not recorded. These are a new version rather than added fields so that
// a reader of version 2, which would skip them, refuses a redacted image
// instead of taking it for a backup. Versions 1 and 2 read as
// SecretsUnrecorded; what was redacted in them is still never written
// (see SecretError).
const ImageSchemaVersion = 3

// oldestImageSchemaVersion is the oldest schema_version ReadImageJSON
// reads.
const oldestImageSchemaVersion = 1

// The JSON form of an Image's elements. Lists that may be absent in the
// Image (a partition's adding and removing replicas) are pointers, so that
// a missing list and an empty one survive a round trip.
type (
	topicJSON struct {
		Name string `json:"name"`
		// ID is the topic id, "" for none.
		ID         string          `json:"id,omitempty"`
		Partitions []partitionJSON `json:"partitions"`
		// Unassigned are the partition znodes outside the assignment,
		// by id; omitted when there are none.
		Unassigned []unassignedJSON `json:"unassigned_partitions,omitempty"`
	}
	unassignedJSON struct {
		ID *int32 `json:"id"`
		// State is null for a partition ZooKeeper holds no state for.
		State *stateJSON `json:"state"`
	}
	partitionJSON struct {
		ID               *int32   `json:"id"`
		Replicas         []int32  `json:"replicas"`
		AddingReplicas   *[]int32 `json:"adding_replicas,omitempty"`
		RemovingReplicas *[]int32 `json:"removing_replicas,omitempty"`
		// State is null for a partition ZooKeeper holds no state for.
		State *stateJSON `json:"state"`
	}
	stateJSON struct {
		Leader              int32   `json:"leader"`
		LeaderEpoch         int32   `json:"leader_epoch"`
		ISR                 []int32 `json:"isr"`
		LeaderRecoveryState int8    `json:"leader_recovery_state"`
	}
	configJSON struct {
		Type    ConfigType        `json:"type"`
		Name    string            `json:"name"`
		Configs map[string]string `json:"configs"`
	}
	entityJSON struct {
		User     string `json:"user,omitempty"`
		ClientID string `json:"client_id,omitempty"`
		IP       string `json:"ip,omitempty"`
	}
	quotaJSON struct {
		Entity entityJSON         `json:"entity"`
		Quotas map[string]float64 `json:"quotas"`
	}
	scramJSON struct {
		User        string                       `json:"user"`
		Credentials map[string]scramCredentialJS `json:"credentials"`
	}
	scramCredentialJS struct {
		Salt       []byte `json:"salt"`
		StoredKey  []byte `json:"stored_key"`
		ServerKey  []byte `json:"server_key"`
		Iterations int32  `json:"iterations"`
	}
	aclJSON struct {
		PatternType  znode.PatternType  `json:"pattern_type"`
		ResourceType znode.ResourceType `json:"resource_type"`
		Name         string             `json:"name"`
		Entries      []aclEntryJSON     `json:"entries"`
	}
	aclEntryJSON struct {
		Principal      string               `json:"principal"`
		PermissionType znode.PermissionType `json:"permission_type"`
		Operation      znode.Operation      `json:"operation"`
		Host           string               `json:"host"`
	}
	tokenJSON struct {
		ID string `json:"id"`
		// TokenID is the token's own id when it is not ID.
		TokenID         *string  `json:"token_id,omitempty"`
		Owner           string   `json:"owner"`
		TokenRequester  string   `json:"token_requester"`
		Renewers        []string `json:"renewers"`
		IssueTimestamp  int64    `json:"issue_timestamp"`
		MaxTimestamp    int64    `json:"max_timestamp"`
		ExpiryTimestamp int64    `json:"expiry_timestamp"`
	}
	producerIDJSON struct {
		BrokerID   int32 `json:"broker_id"`
		BlockStart int64 `json:"block_start"`
		BlockEnd   int64 `json:"block_end"`
	}
	undecodableJSON struct {
		Path  string `json:"path"`
		Error string `json:"error"`
	}
)

// The keys of the top-level object, in the order WriteJSON writes them.
const (
	keySchemaVersion    = "schema_version"
	keyRedacted         = "redacted"
	keyPasswords        = "passwords"
	keyTopics           = "topics"
	keyConfigs          = "configs"
	keyClientQuotas     = "client_quotas"
	keyScram            = "scram"
	keyACLs             = "acls"
	keyDelegationTokens = "delegation_tokens"
	keyProducerIDBlock  = "producer_id_block"
	keyUndecodable      = "undecodable"
)

// WriteJSON writes img to w as one JSON object: "schema_version" first
// (ImageSchemaVersion), then "redacted" and "passwords" (img.Secrets, see
// ImageSchemaVersion), "topics", "configs", "client_quotas", "scram",
// "acls", "delegation_tokens", "producer_id_block" and "undecodable".
// Each domain is a list sorted by its key (topic name,
// partition id, config resource, quota entity, user, resource pattern,
// token id, path), an ACL set's entries sorted too, one element a line, so
// that two exports of the same Image are byte-identical. Elements are
// encoded and written one at a time: the whole JSON is never held in
// memory. A write error, or a quota JSON cannot hold (NaN, infinity), is
// returned, w holding a prefix of the object; a Secrets that is none of
// the SecretForms is refused before anything is written. Password configs and SCRAM
// credentials are written as img holds them; write img.Redacted() where
// the JSON is shown (migrationzk export does unless asked for secrets).
func (img Image) WriteJSON(w io.Writer) error {
	switch img.Secrets {
	case SecretsUnrecorded, SecretsPlain, SecretsEncoded, SecretsRedacted:
	default:
		return fmt.Errorf("dualwrite: write image JSON: Secrets %q is no SecretForm", img.Secrets)
	}
	jw := newJSONWriter(w)
	jw.raw(fmt.Sprintf("{\n  %q: %d", keySchemaVersion, ImageSchemaVersion))
	jw.raw(fmt.Sprintf(",\n  %q: %t,\n  %q: ", keyRedacted, img.Secrets == SecretsRedacted, keyPasswords))
	if img.Secrets == SecretsPlain || img.Secrets == SecretsEncoded {
		jw.raw(fmt.Sprintf("%q", img.Secrets))
	} else {
		jw.raw("null")
	}
	writeList(jw, keyTopics, sortedKeys(img.Topics, stringLess), func(name string) any { return topicToJSON(name, img.Topics[name]) })
	writeList(jw, keyConfigs, sortedKeys(img.Configs, configLess), func(r ConfigResource) any {
		return configJSON{Type: r.Type, Name: r.Name, Configs: img.Configs[r]}
	})
	writeList(jw, keyClientQuotas, sortedKeys(img.ClientQuotas, entityLess), func(e QuotaEntity) any {
		return quotaJSON{Entity: entityJSON(e), Quotas: img.ClientQuotas[e]}
	})
	writeList(jw, keyScram, sortedKeys(img.Scram, stringLess), func(user string) any { return scramToJSON(user, img.Scram[user]) })
	writeList(jw, keyACLs, sortedKeys(img.ACLs, patternLess), func(p ResourcePattern) any { return aclsToJSON(p, img.ACLs[p]) })
	writeList(jw, keyDelegationTokens, sortedKeys(img.DelegationTokens, stringLess), func(id string) any {
		return tokenToJSON(id, img.DelegationTokens[id])
	})
	jw.raw(fmt.Sprintf(",\n  %q: ", keyProducerIDBlock))
	if b := img.ProducerIDBlock; b != nil {
		jw.value(producerIDJSON{BrokerID: b.BrokerID, BlockStart: b.BlockStart, BlockEnd: b.BlockEnd})
	} else {
		jw.raw("null")
	}
	writeList(jw, keyUndecodable, sortedUndecodable(img.Undecodable), func(u UndecodableZnode) any { return undecodableToJSON(u) })
	jw.raw("\n}\n")
	return jw.flush()
}

// jsonWriter writes JSON through a buffer, keeping the first error.
type jsonWriter struct {
	w   *bufio.Writer
	buf bytes.Buffer
	enc *json.Encoder
	err error
	key string // the list being written, for errors
}

func newJSONWriter(w io.Writer) *jsonWriter {
	jw := &jsonWriter{w: bufio.NewWriter(w)}
	jw.enc = json.NewEncoder(&jw.buf)
	jw.enc.SetEscapeHTML(false) // "<default>" stays readable
	return jw
}

// raw writes s.
func (jw *jsonWriter) raw(s string) {
	if jw.err == nil {
		_, jw.err = jw.w.WriteString(s)
	}
}

// value writes v as compact JSON.
func (jw *jsonWriter) value(v any) {
	if jw.err != nil {
		return
	}
	jw.buf.Reset()
	if err := jw.enc.Encode(v); err != nil {
		jw.err = fmt.Errorf("dualwrite: write image JSON: %s: %w", jw.key, err)
		return
	}
	_, jw.err = jw.w.Write(bytes.TrimSuffix(jw.buf.Bytes(), []byte("\n")))
}

// flush flushes the buffer and returns the first error.
func (jw *jsonWriter) flush() error {
	if jw.err == nil {
		jw.err = jw.w.Flush()
	}
	return jw.err
}

// writeList writes the top-level key and a list of elem(k) for each key,
// one element a line.
func writeList[K any](jw *jsonWriter, key string, keys []K, elem func(K) any) {
	jw.key = key
	jw.raw(fmt.Sprintf(",\n  %q: [", key))
	for i, k := range keys {
		if i > 0 {
			jw.raw(",")
		}
		jw.raw("\n    ")
		jw.value(elem(k))
	}
	if len(keys) > 0 {
		jw.raw("\n  ")
	}
	jw.raw("]")
}

// topicToJSON is the JSON form of topic name, its partitions by id.
func topicToJSON(name string, t Topic) topicJSON {
	out := topicJSON{Name: name, Partitions: make([]partitionJSON, 0, len(t.Partitions))}
	if !t.ID.IsZero() {
		out.ID = t.ID.String()
	}
	for _, id := range sortedIDs(t.Partitions) {
		p := t.Partitions[id]
		pj := partitionJSON{ID: &id, Replicas: p.Replicas}
		if p.AddingReplicas != nil {
			pj.AddingReplicas = &p.AddingReplicas
		}
		if p.RemovingReplicas != nil {
			pj.RemovingReplicas = &p.RemovingReplicas
		}
		if !p.noState {
			pj.State = stateToJSON(p.State)
		}
		out.Partitions = append(out.Partitions, pj)
	}
	for _, id := range sortedIDs(t.Unassigned) {
		uj := unassignedJSON{ID: &id}
		if s := t.Unassigned[id].State; s != nil {
			uj.State = stateToJSON(*s)
		}
		out.Unassigned = append(out.Unassigned, uj)
	}
	return out
}

// stateToJSON is the JSON form of a partition state.
func stateToJSON(s PartitionState) *stateJSON {
	return &stateJSON{Leader: s.Leader, LeaderEpoch: s.LeaderEpoch, ISR: s.ISR, LeaderRecoveryState: s.LeaderRecoveryState}
}

// scramToJSON is the JSON form of a user's credentials.
func scramToJSON(user string, creds map[string]znode.ScramCredential) scramJSON {
	out := scramJSON{User: user}
	if creds != nil {
		out.Credentials = make(map[string]scramCredentialJS, len(creds))
	}
	for m, c := range creds {
		out.Credentials[m] = scramCredentialJS(c)
	}
	return out
}

// aclsToJSON is the JSON form of a pattern's ACL set, its entries sorted.
func aclsToJSON(p ResourcePattern, entries []znode.ACLEntry) aclJSON {
	out := aclJSON{PatternType: p.PatternType, ResourceType: p.Type, Name: p.Name}
	if entries != nil {
		out.Entries = make([]aclEntryJSON, len(entries))
	}
	for i, e := range entries {
		out.Entries[i] = aclEntryJSON(e)
	}
	slices.SortStableFunc(out.Entries, func(a, b aclEntryJSON) int {
		return cmp.Or(strings.Compare(a.Principal, b.Principal), strings.Compare(a.Host, b.Host),
			strings.Compare(string(a.Operation), string(b.Operation)), strings.Compare(string(a.PermissionType), string(b.PermissionType)))
	})
	return out
}

// tokenToJSON is the JSON form of the token with id.
func tokenToJSON(id string, t znode.DelegationToken) tokenJSON {
	out := tokenJSON{ID: id, Owner: t.Owner, TokenRequester: t.TokenRequester, Renewers: t.Renewers,
		IssueTimestamp: t.IssueTimestamp, MaxTimestamp: t.MaxTimestamp, ExpiryTimestamp: t.ExpiryTimestamp}
	if t.TokenID != id {
		out.TokenID = &t.TokenID
	}
	return out
}

// undecodableToJSON is the JSON form of an undecodable znode.
func undecodableToJSON(u UndecodableZnode) undecodableJSON {
	out := undecodableJSON{Path: u.Path}
	if u.Err != nil {
		out.Error = u.Err.Error()
	}
	return out
}

// sortedUndecodable returns the undecodable znodes by path, then error.
func sortedUndecodable(us []UndecodableZnode) []UndecodableZnode {
	out := slices.Clone(us)
	slices.SortStableFunc(out, func(a, b UndecodableZnode) int {
		return cmp.Or(strings.Compare(a.Path, b.Path), strings.Compare(undecodableToJSON(a).Error, undecodableToJSON(b).Error))
	})
	return out
}

func configLess(a, b ConfigResource) bool {
	return a.Type < b.Type || a.Type == b.Type && a.Name < b.Name
}

func entityLess(a, b QuotaEntity) bool {
	return cmp.Or(strings.Compare(a.User, b.User), strings.Compare(a.ClientID, b.ClientID), strings.Compare(a.IP, b.IP)) < 0
}

func patternLess(a, b ResourcePattern) bool {
	return cmp.Or(strings.Compare(string(a.PatternType), string(b.PatternType)),
		strings.Compare(string(a.Type), string(b.Type)), strings.Compare(a.Name, b.Name)) < 0
}
