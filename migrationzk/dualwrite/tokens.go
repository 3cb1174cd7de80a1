package dualwrite

import (
	"context"
	"strconv"
	"strings"

	"github.com/kraftmigration/zkwriter/migrationzk"
	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

// WriteDelegationToken applies [Batch.WriteDelegationToken] alone.
func (c *Client) WriteDelegationToken(ctx context.Context, s migrationzk.State, token znode.DelegationToken) (migrationzk.State, error) {
	return c.apply(ctx, s, c.Batch().WriteDelegationToken(token))
}

// DeleteDelegationToken applies [Batch.DeleteDelegationToken] alone.
func (c *Client) DeleteDelegationToken(ctx context.Context, s migrationzk.State, id string) (migrationzk.State, error) {
	return c.apply(ctx, s, c.Batch().DeleteDelegationToken(id))
}

// WriteDelegationToken records the change that makes the znode of token
// hold it (creating its parents when missing); an unchanged token writes
// nothing. Kafka's migration sends ZooKeeper-mode brokers no notification
// of tokens, and neither does this change.
func (b *Batch) WriteDelegationToken(token znode.DelegationToken) *Batch {
	err := checkToken(token)
	return b.add(func(v *view, _ migrationzk.State) bool {
		_, known := v.put(znode.DelegationTokenPath(token.TokenID), token.Encode(), func(cur []byte) (bool, error) {
			got, err := znode.DecodeDelegationToken(cur)
			return err == nil && got.Equal(token), err
		})
		return known
	}, err)
}

// DeleteDelegationToken records the change that deletes the znode of the
// token with id; one that is gone is no error.
func (b *Batch) DeleteDelegationToken(id string) *Batch {
	return b.add(func(v *view, _ migrationzk.State) bool {
		return v.remove(znode.DelegationTokenPath(id))
	}, checkName("delegation token", id))
}

// checkToken checks a delegation token of a change: its id names one
// znode; its owner, requester and renewers are UTF-8 principals of the
// form Type:name, as Kafka parses them; and each renewer is a User, as
// Kafka's controller requires.
func checkToken(token znode.DelegationToken) error {
	if err := checkName("delegation token", token.TokenID); err != nil {
		return err
	}
	fields := [][2]string{{"owner", token.Owner}, {"requester", token.TokenRequester}}
	for _, r := range token.Renewers {
		fields = append(fields, [2]string{"renewer", r})
	}
	for _, f := range fields {
		if err := checkUTF8("delegation token "+strconv.Quote(token.TokenID)+" "+f[0], f[1]); err != nil {
			return err
		}
		if !isPrincipal(f[1]) {
			return invalidf("delegation token %q: %s %q, want Type:name", token.TokenID, f[0], f[1])
		}
		if f[0] == "renewer" && !strings.HasPrefix(f[1], "User:") {
			return invalidf("delegation token %q: renewer %q, want a User principal", token.TokenID, f[1])
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

// tokens plans the delegation tokens: written where they differ or are
// new, deleted where desired has none.
func (d *differ) tokens(current, desired map[string]znode.DelegationToken) {
	for _, id := range sortedKeys(desired, stringLess) {
		want := desired[id]
		have, ok := current[id]
		if ok && have.Equal(want) {
			continue
		}
		want.TokenID = id
		var old *znode.DelegationToken
		if ok {
			old = &have
		}
		fields := fieldChanges(nil, tokenValues(old), tokenValues(&want))
		d.add(Change{Kind: ChangeWriteDelegationToken, Subject: id, Fields: fields, add: func(b *Batch) { b.WriteDelegationToken(want) }}, znode.DelegationTokenPath(id))
	}
	for _, id := range sortedKeys(current, stringLess) {
		if _, kept := desired[id]; !kept {
			have := current[id]
			d.add(Change{Kind: ChangeDeleteDelegationToken, Subject: id, Fields: fieldChanges(nil, tokenValues(&have), nil), add: func(b *Batch) { b.DeleteDelegationToken(id) }}, znode.DelegationTokenPath(id))
		}
	}
}

// tokenValues are the fields of a delegation token; none for nil.
func tokenValues(t *znode.DelegationToken) []fieldValue {
	if t == nil {
		return nil
	}
	return []fieldValue{
		{name: "owner", value: t.Owner},
		{name: "token_requester", value: t.TokenRequester},
		{name: "renewers", value: "[" + strings.Join(t.Renewers, ",") + "]"},
		{name: "issue_timestamp", value: int64Text(t.IssueTimestamp)},
		{name: "max_timestamp", value: int64Text(t.MaxTimestamp)},
		{name: "expiry_timestamp", value: int64Text(t.ExpiryTimestamp)},
	}
}
