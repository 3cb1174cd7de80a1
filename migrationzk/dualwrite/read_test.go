package dualwrite_test

import (
	"bytes"
	"encoding/json"
	"slices"
	"testing"

	"github.com/kraftmigration/zkwriter/migrationzk"
	"github.com/kraftmigration/zkwriter/migrationzk/dualwrite"
	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

// writeImage writes img through the Client's vocabulary, one method a
// change, from s, and returns the State.
func (c *cluster) writeImage(s migrationzk.State, img dualwrite.Image) migrationzk.State {
	c.t.Helper()
	ctx := testContext(c.t)
	var writes []func(migrationzk.State) (migrationzk.State, error)
	for _, t := range img.Topics {
		writes = append(writes, func(s migrationzk.State) (migrationzk.State, error) { return c.c.CreateTopic(ctx, s, t) })
	}
	for r, cfg := range img.Configs {
		writes = append(writes, func(s migrationzk.State) (migrationzk.State, error) { return c.c.WriteConfigs(ctx, s, r, cfg) })
	}
	for e, q := range img.ClientQuotas {
		writes = append(writes, func(s migrationzk.State) (migrationzk.State, error) {
			return c.c.WriteClientQuotas(ctx, s, e, q, img.Scram[e.User])
		})
	}
	for p, entries := range img.ACLs {
		writes = append(writes, func(s migrationzk.State) (migrationzk.State, error) { return c.c.WriteACLs(ctx, s, p, entries) })
	}
	for _, tok := range img.DelegationTokens {
		writes = append(writes, func(s migrationzk.State) (migrationzk.State, error) { return c.c.WriteDelegationToken(ctx, s, tok) })
	}
	writes = append(writes, func(s migrationzk.State) (migrationzk.State, error) {
		return c.c.WriteProducerID(ctx, s, img.ProducerIDBlock.BlockStart)
	})
	for _, w := range writes {
		var err error
		if s, err = w(s); err != nil {
			c.t.Fatal(err)
		}
	}
	return s
}

// Fault: none. A tree written through the vocabulary, a change at a
// time, reads back as the image written, in every domain.
func TestReadBackVocabulary(t *testing.T) {
	c := newCluster(t)
	want := fullImage()
	c.writeImage(at(c.s, 200), want)
	got := c.read()
	c.converged(want)
	if len(got.Topics) != 2 || len(got.Topics["orders"].Partitions) != 2 || got.ProducerIDBlock == nil || *got.ProducerIDBlock != producerNext ||
		len(got.Scram["alice"]) != 1 || !got.Scram["alice"][znode.ScramSHA256].Equal(credential) || !got.DelegationTokens["tok1"].Equal(token) {
		t.Fatalf("read %+v", got)
	}
	if p := got.Topics["orders"].Partitions[1]; !slices.Equal(p.Replicas, want.Topics["orders"].Partitions[1].Replicas) || p.State.Leader != p.Replicas[0] {
		t.Fatalf("orders-1 read as %+v", p)
	}
}

// reformat rewrites the JSON of the znode at path with its keys sorted,
// indented: what it means stays the same.
func (c *cluster) reformat(path string) {
	c.t.Helper()
	data, st, _ := c.get(path)
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		c.t.Fatalf("%s: %v", path, err)
	}
	out, err := json.MarshalIndent(v, " ", "   ")
	if err != nil || bytes.Equal(out, data) {
		c.t.Fatalf("%s: reformatted %q (%v)", path, out, err)
	}
	if _, err := c.admin.Set(c.p(path), out, st.Version); err != nil {
		c.t.Fatal(err)
	}
}

// Fault: another writer reformatted znodes (key order, whitespace): a
// topic, a partition state, a config, an ACL set, a token and the
// producer-id block. Read decodes their meaning, and a Sync finds no
// difference and writes nothing.
func TestSyncIgnoresJSONFormatting(t *testing.T) {
	c := newCluster(t)
	s, _ := c.sync(at(c.s, 200), fullImage())
	for _, p := range []string{znode.TopicPath("orders"), znode.PartitionStatePath("orders", 1), "/config/topics/orders", "/config/users/alice",
		znode.LiteralACLPath(znode.ResourceTopic, "foo"), znode.DelegationTokenPath("tok1"), znode.ProducerIDBlockPath} {
		c.reformat(p)
	}
	zxid := c.lastZxid()
	c.faults.ResetCounts()
	if _, rep := c.sync(s, fullImage()); !rep.Plan.Empty() || c.writeRequests() != 0 || c.lastZxid() != zxid {
		t.Fatalf("after reformatting: %d writes, plan\n%s", c.writeRequests(), rep.Plan)
	}
}

// garbage is data no znode decoder accepts.
var garbage = []byte("{not json")

// Fault: garbage written by another writer into a partition state, a
// broker config and an ACL znode. Read reports them by path and reads the
// rest; Sync leaves them alone, their data and versions unchanged,
// however the desired image differs there, and writes the rest; with
// OverwriteUndecodable it writes the desired content over them.
func TestSyncUndecodable(t *testing.T) {
	c := newCluster(t)
	s, _ := c.sync(at(c.s, 200), fullImage())
	bad := []string{"/config/brokers/1", znode.LiteralACLPath(znode.ResourceTopic, "foo"), znode.PartitionStatePath("orders", 1)}
	for _, p := range bad {
		if _, err := c.admin.Set(c.p(p), garbage, -1); err != nil {
			t.Fatal(err)
		}
	}
	img := c.read()
	var paths []string
	for _, u := range img.Undecodable {
		paths = append(paths, u.Path)
	}
	if !slices.Equal(paths, []string{bad[2], bad[0], bad[1]}) || img.Undecodable[0].Err == nil || len(img.Topics) != 2 || len(img.Configs) != 2 {
		t.Fatalf("undecodable %q (%v); %d topics, %d configs", paths, img.Undecodable, len(img.Topics), len(img.Configs))
	}
	desired := changedImage()
	s, rep := c.sync(at(s, 300), desired)
	if len(rep.Plan.Skipped) != 3 {
		t.Fatalf("plan skips %d znodes:\n%s", len(rep.Plan.Skipped), rep.Plan)
	}
	for _, p := range bad {
		if data, st, _ := c.get(p); !bytes.Equal(data, garbage) || st.Version != 1 {
			t.Fatalf("%s: %q at version %d, want the garbage left alone", p, data, st.Version)
		}
	}
	if p := dualwrite.Diff(c.read(), desired); len(p.Changes) != 0 || len(p.Skipped) != 3 {
		t.Fatalf("after the Sync:\n%s", p)
	}
	c.sync(at(s, 400), desired, dualwrite.OverwriteUndecodable())
	c.converged(desired)
}
