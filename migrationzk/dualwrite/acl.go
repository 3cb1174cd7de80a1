package dualwrite

import (
	"context"
	"slices"
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

// WriteACLs makes the ACL znode of pattern hold exactly entries (an empty
// set deletes it, as Kafka deletes a resource none of whose ACLs remain),
// creating the parents Kafka's migration never creates, and notifies
// ZooKeeper-mode authorizers in the same transaction; an unchanged set
// writes nothing and notifies nobody.
func (c *Client) WriteACLs(ctx context.Context, s migrationzk.State, pattern ResourcePattern, entries []znode.ACLEntry) (migrationzk.State, error) {
	return c.apply(ctx, s, c.Batch().WriteACLs(pattern, entries))
}

// DeleteACLs deletes the ACL znode of pattern, notifying ZooKeeper-mode
// authorizers in the same transaction; one that is gone is no error and
// notifies nobody.
func (c *Client) DeleteACLs(ctx context.Context, s migrationzk.State, pattern ResourcePattern) (migrationzk.State, error) {
	return c.apply(ctx, s, c.Batch().DeleteACLs(pattern))
}

// WriteACLs records WriteACLs' change.
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

// DeleteACLs records DeleteACLs' change.
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
