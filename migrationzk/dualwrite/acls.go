package dualwrite

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/kraftmigration/zkwriter/migrationzk"
	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

// ResourcePattern names the resources an ACL set applies to: a resource
// type, a name, and whether the name is literal or a prefix.
type ResourcePattern struct {
	Type        znode.ResourceType
	Name        string
	PatternType znode.PatternType
}

// path returns the znode of p's ACLs, and its change notification's
// prefix and bytes.
func (p ResourcePattern) path() (aclPath, prefix string, change []byte, err error) {
	switch {
	case !p.Type.Valid():
		return "", "", nil, invalidf("resource pattern type %q is not one of the resource types ACLs protect", p.Type)
	case p.Name == "":
		return "", "", nil, invalidf("resource pattern name %q: an ACL resource has a name", p.Name)
	case !utf8.ValidString(p.Name):
		return "", "", nil, invalidf("resource pattern name %q is not valid UTF-8", p.Name)
	}
	switch p.PatternType {
	case znode.PatternLiteral:
		change = znode.LiteralACLChange{ResourceType: p.Type, Name: p.Name}.Encode()
		return znode.LiteralACLPath(p.Type, p.Name), znode.LiteralACLChangePrefix, change, nil
	case znode.PatternPrefixed:
		change = znode.ExtendedACLChange{ResourceType: p.Type, Name: p.Name, PatternType: p.PatternType}.Encode()
		return znode.PrefixedACLPath(p.Type, p.Name), znode.ExtendedACLChangePrefix, change, nil
	}
	return "", "", nil, invalidf("resource pattern type %q, pattern type %q: want %q or %q", p.Type, p.PatternType, znode.PatternLiteral, znode.PatternPrefixed)
}

// WriteACLs applies [Batch.WriteACLs] alone.
func (c *Client) WriteACLs(ctx context.Context, s migrationzk.State, pattern ResourcePattern, entries []znode.ACLEntry) (migrationzk.State, error) {
	return c.apply(ctx, s, c.Batch().WriteACLs(pattern, entries))
}

// DeleteACLs applies [Batch.DeleteACLs] alone.
func (c *Client) DeleteACLs(ctx context.Context, s migrationzk.State, pattern ResourcePattern) (migrationzk.State, error) {
	return c.apply(ctx, s, c.Batch().DeleteACLs(pattern))
}

// WriteACLs records the change that makes the ACL znode of pattern hold
// exactly entries (an empty set deletes it, as Kafka deletes a resource
// none of whose ACLs remain), creating the parents Kafka's migration never
// creates, and notifies ZooKeeper-mode authorizers in the same
// transaction; an unchanged set writes nothing and notifies nobody.
func (b *Batch) WriteACLs(pattern ResourcePattern, entries []znode.ACLEntry) *Batch {
	if len(entries) == 0 {
		return b.DeleteACLs(pattern)
	}
	aclPath, prefix, change, err := pattern.path()
	if err == nil {
		err = checkEntries(entries)
	}
	want := znode.ACLs(slices.Clone(entries))
	nameErr := aclNameRule(pattern)
	return b.add(func(v *view, _ migrationzk.State) bool {
		if !v.admitName(nameErr, aclPath) {
			return false
		}
		changed, known := v.put(aclPath, want.Encode(), func(cur []byte) (bool, error) {
			got, err := znode.DecodeACLs(cur)
			return err == nil && got.Equal(want), err
		})
		if changed {
			return v.notify(prefix, change) && known
		}
		return known
	}, err)
}

// DeleteACLs records the change that deletes the ACL znode of pattern,
// notifying ZooKeeper-mode authorizers in the same transaction; one that
// is gone is no error and notifies nobody.
func (b *Batch) DeleteACLs(pattern ResourcePattern) *Batch {
	aclPath, prefix, change, err := pattern.path()
	return b.add(func(v *view, _ migrationzk.State) bool {
		exists, known := v.exists(aclPath)
		if !known || !exists {
			return known
		}
		return v.remove(aclPath) && v.notify(prefix, change)
	}, err)
}

// checkEntries checks the entries of an ACL set, each as checkACLEntry
// does.
func checkEntries(entries []znode.ACLEntry) error {
	for i, e := range entries {
		if err := checkACLEntry(i, e); err != nil {
			return err
		}
	}
	return nil
}

// clusterResourceName is the one name of the Cluster ACL resource.
const clusterResourceName = "kafka-cluster"

// aclNameRule checks the name of a new ACL resource pattern: the Cluster
// resource has one name.
func aclNameRule(p ResourcePattern) error {
	if p.Type == znode.ResourceCluster && p.Name != clusterResourceName {
		return invalidf("resource pattern name %q: the Cluster resource is named %q", p.Name, clusterResourceName)
	}
	return nil
}

// checkACLEntry checks entry i of an ACL set, field by field: a principal
// of the form Type:name, as ZooKeeper-mode brokers parse it, an operation
// and a permission type other than Any and Unknown, and UTF-8 strings. An
// empty host, and an operation the resource type has no use for (Group
// and Write), are accepted, as KRaft accepts them.
func checkACLEntry(i int, e znode.ACLEntry) error {
	switch {
	case !utf8.ValidString(e.Principal):
		return invalidf("ACL entry %d: principal %q is not valid UTF-8", i, e.Principal)
	case !isPrincipal(e.Principal):
		return invalidf("ACL entry %d: principal %q, want Type:name", i, e.Principal)
	case !utf8.ValidString(e.Host):
		return invalidf("ACL entry %d: host %q is not valid UTF-8", i, e.Host)
	case !e.Operation.Valid():
		return invalidf("ACL entry %d: operation %q is not one of the operations an ACL grants", i, e.Operation)
	case !e.PermissionType.Valid():
		return invalidf("ACL entry %d: permission type %q, want %q or %q", i, e.PermissionType, znode.PermissionAllow, znode.PermissionDeny)
	}
	return nil
}

// isPrincipal reports whether p has the form Kafka's principals have,
// Type:name.
func isPrincipal(p string) bool { return strings.Contains(p, ":") }

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

// acls plans the ACL sets: written where they differ or are new,
// deleted where desired has none (an empty set is none).
func (d *differ) acls(current, desired map[ResourcePattern][]znode.ACLEntry) {
	less := func(a, b ResourcePattern) bool { return fmt.Sprint(a) < fmt.Sprint(b) }
	for _, p := range sortedKeys(desired, less) {
		want := desired[p]
		have, exists := current[p]
		if len(want) == 0 || exists && znode.ACLs(want).Equal(have) {
			continue
		}
		d.add(Change{Kind: ChangeWriteACLs, Subject: patternSubject(p), Fields: aclFields(have, want), add: func(b *Batch) { b.WriteACLs(p, want) }}, patternPath(p))
	}
	for _, p := range sortedKeys(current, less) {
		if len(desired[p]) == 0 {
			d.add(Change{Kind: ChangeDeleteACLs, Subject: patternSubject(p), Fields: aclFields(current[p], nil), add: func(b *Batch) { b.DeleteACLs(p) }}, patternPath(p))
		}
	}
}

// patternSubject names a resource pattern in a Change.
func patternSubject(p ResourcePattern) string {
	return fmt.Sprintf("%s %s %s", p.PatternType, p.Type, p.Name)
}

// patternPath is the ACL znode of p, "" for an invalid pattern (whose
// change then fails the batch).
func patternPath(p ResourcePattern) string {
	path, _, _, _ := p.path()
	return path
}

// aclFields lists the entries of an ACL set removed (in have, not in
// want) and added (in want, not in have), each once.
func aclFields(have, want []znode.ACLEntry) []FieldChange {
	var out []FieldChange
	for _, e := range canonicalACLs(want) {
		if !slices.Contains(have, e) {
			text := ACLEntryText(e)
			out = append(out, FieldChange{Field: "acl", New: &text})
		}
	}
	for _, e := range canonicalACLs(have) {
		if !slices.Contains(want, e) {
			text := ACLEntryText(e)
			out = append(out, FieldChange{Field: "acl", Old: &text})
		}
	}
	return out
}

// canonicalACLs returns entries sorted by their text, each once.
func canonicalACLs(entries []znode.ACLEntry) []znode.ACLEntry {
	c := slices.Clone(entries)
	slices.SortFunc(c, func(a, b znode.ACLEntry) int { return strings.Compare(ACLEntryText(a), ACLEntryText(b)) })
	return slices.Compact(c)
}

// ACLEntryText is an ACL entry as a FieldChange holds it, for example
// "User:alice Allow Read from host *".
func ACLEntryText(e znode.ACLEntry) string {
	return fmt.Sprintf("%s %s %s from host %s", e.Principal, e.PermissionType, e.Operation, e.Host)
}
