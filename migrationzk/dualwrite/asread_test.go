package dualwrite_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/kraftmigration/zkwriter/migrationzk/dualwrite"
	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

// rawZnode is a znode a test writes with a plain create, as Kafka or an
// older tool left it: data nil for null.
type rawZnode struct {
	path string
	data []byte
}

// rawTree is a tree of Kafka's own JSON, written znode by znode.
type rawTree []rawZnode

// plant writes tree below the cluster's root through the test's session,
// creating missing parents with null data and setting what exists (such
// as the top-level znodes the Writer made).
func (c *cluster) plant(tree rawTree) {
	c.t.Helper()
	for _, z := range tree {
		c.ensurePath(path.Dir(z.path))
		_, err := c.admin.Create(c.p(z.path), z.data, 0, zk.WorldACL(zk.PermAll))
		if errors.Is(err, zk.ErrNodeExists) {
			_, err = c.admin.Set(c.p(z.path), z.data, -1)
		}
		if err != nil {
			c.t.Fatalf("plant %s: %v", z.path, err)
		}
	}
}

// ensurePath creates p and its missing parents with null data.
func (c *cluster) ensurePath(p string) {
	c.t.Helper()
	if p == "/" {
		return
	}
	if ok, _, err := c.admin.Exists(c.p(p)); err != nil || ok {
		if err != nil {
			c.t.Fatal(err)
		}
		return
	}
	c.ensurePath(path.Dir(p))
	if _, err := c.admin.Create(c.p(p), nil, 0, zk.WorldACL(zk.PermAll)); err != nil && !errors.Is(err, zk.ErrNodeExists) {
		c.t.Fatalf("create %s: %v", p, err)
	}
}

// treeGen makes trees in the shapes Kafka 3.9 reads, from a seeded
// source.
type treeGen struct {
	r *rand.Rand
}

// pretty indents data as a person or another tool may have written it,
// half of the time.
func (g treeGen) pretty(data string) []byte {
	if g.r.IntN(2) == 0 {
		return []byte(data)
	}
	var b bytes.Buffer
	if err := json.Indent(&b, []byte(data), "", "  "); err != nil {
		panic(err)
	}
	return b.Bytes()
}

// replicas returns n distinct brokers of 0 to 5, broker 0 among them
// often: the broker a made-up leader 0 would name.
func (g treeGen) replicas(n int) []int32 {
	perm := g.r.Perm(6)
	out := make([]int32, n)
	for i := range out {
		out[i] = int32(perm[i])
	}
	return out
}

func intList(ids []int32) string {
	parts := make([]string, len(ids))
	for i, id := range ids {
		parts[i] = strconv.Itoa(int(id))
	}
	return "[" + strings.Join(parts, ",") + "]"
}

// topicJSON is a topic znode of Kafka's versions 1 to 3, with or without
// a topic id (version 1 has none).
func (g treeGen) topicJSON(assignment map[int32][]int32) string {
	var parts []string
	for id := int32(0); id < int32(len(assignment)); id++ {
		parts = append(parts, fmt.Sprintf("%q:%s", strconv.Itoa(int(id)), intList(assignment[id])))
	}
	partitions := "{" + strings.Join(parts, ",") + "}"
	version := 1 + g.r.IntN(3)
	if version == 1 {
		return fmt.Sprintf(`{"version":1,"partitions":%s}`, partitions)
	}
	id := ""
	if g.r.IntN(4) > 0 {
		id = fmt.Sprintf(`,"topic_id":%q`, znode.Uuid{MostSignificantBits: g.r.Int64(), LeastSignificantBits: g.r.Int64()}.String())
	}
	return fmt.Sprintf(`{"version":%d,"partitions":%s%s,"adding_replicas":{},"removing_replicas":{}}`, version, partitions, id)
}

// stateJSON is a partition state znode, with leader_recovery_state half
// of the time, its leader sometimes -1.
func (g treeGen) stateJSON(replicas []int32) string {
	leader, isr := replicas[0], replicas[:1+g.r.IntN(len(replicas))]
	if g.r.IntN(5) == 0 {
		leader, isr = -1, replicas[:1]
	}
	recovery := ""
	if g.r.IntN(2) == 0 {
		recovery = fmt.Sprintf(`,"leader_recovery_state":%d`, g.r.IntN(2))
	}
	return fmt.Sprintf(`{"controller_epoch":%d,"leader":%d,"version":1,"leader_epoch":%d,"isr":%s%s}`,
		g.r.IntN(9), leader, g.r.IntN(9), intList(isr), recovery)
}

// topic is the znodes of one topic: its topic znode; its partitions
// znode or none (as older tools left a topic); each partition's znode
// with or without its state, or none; partition znodes outside the
// assignment; and its config.
func (g treeGen) topic(name string) rawTree {
	n := 1 + g.r.IntN(3)
	assignment := map[int32][]int32{}
	for id := int32(0); id < int32(n); id++ {
		assignment[id] = g.replicas(1 + g.r.IntN(3))
	}
	tree := rawTree{{znode.TopicPath(name), g.pretty(g.topicJSON(assignment))}}
	if g.r.IntN(4) > 0 {
		tree = append(tree, rawZnode{znode.TopicConfigEntity(name).Path(), g.pretty(`{"version":1,"config":{}}`)})
	}
	if g.r.IntN(4) == 0 {
		return tree // no partitions znode
	}
	tree = append(tree, rawZnode{znode.TopicPartitionsPath(name), nil})
	for id := int32(0); id < int32(n)+int32(g.r.IntN(3)); id++ {
		replicas, assigned := assignment[id]
		if !assigned {
			replicas = g.replicas(1)
		}
		switch g.r.IntN(4) {
		case 0: // no partition znode
		case 1: // a partition znode without a state
			tree = append(tree, rawZnode{znode.PartitionPath(name, id), nil})
		default:
			tree = append(tree, rawZnode{znode.PartitionPath(name, id), nil},
				rawZnode{znode.PartitionStatePath(name, id), g.pretty(g.stateJSON(replicas))})
		}
	}
	return tree
}

// others is a choice of otherDomains, each pretty or not.
func (g treeGen) others() rawTree {
	var out rawTree
	for _, z := range otherDomains() {
		if g.r.IntN(3) > 0 {
			out = append(out, rawZnode{z.path, g.pretty(string(z.data))})
		}
	}
	return out
}

// otherDomains are the other domains, each as Kafka writes it: configs,
// quotas with SCRAM credentials, ACLs, a delegation token and the
// producer-id block.
func otherDomains() rawTree {
	return rawTree{
		{"/config/brokers/1", []byte(`{"version":1,"config":{"log.retention.hours":"1"}}`)},
		{"/config/brokers/<default>", []byte(`{"version":1,"config":{"num.io.threads":"8"}}`)},
		{"/config/users/alice", []byte(`{"version":1,"config":{"producer_byte_rate":"1024","SCRAM-SHA-256":"salt=c2FsdA==,stored_key=c3RvcmVk,server_key=c2VydmVy,iterations=4096"}}`)},
		{"/config/users/alice/clients/app", []byte(`{"version":1,"config":{"consumer_byte_rate":"2048"}}`)},
		{"/config/users/<default>", []byte(`{"version":1,"config":{"request_percentage":"12.5"}}`)},
		{"/config/clients/<default>", []byte(`{"version":1,"config":{"consumer_byte_rate":"4096"}}`)},
		{"/config/ips/10.0.0.1", []byte(`{"version":1,"config":{"connection_creation_rate":"10"}}`)},
		{"/kafka-acl/Topic/foo", []byte(`{"version":1,"acls":[{"principal":"User:alice","permissionType":"Allow","operation":"Read","host":"*"}]}`)},
		{"/kafka-acl-extended/prefixed/Group/app-", []byte(`{"version":1,"acls":[{"principal":"User:bob","permissionType":"Deny","operation":"All","host":"10.0.0.2"}]}`)},
		{"/delegation_token/tokens/tok1", []byte(`{"version":3,"owner":"User%3Aalice","tokenRequester":"User%3Aalice","renewers":["User%3Abob"],"issueTimestamp":0,"maxTimestamp":100,"expiryTimestamp":1000,"tokenId":"tok1"}`)},
		{"/latest_producer_id_block", []byte(`{"version":1,"broker":2,"block_start":"5000","block_end":"5999"}`)},
	}
}

// tree is a whole random tree: a few topics and the other domains.
func (g treeGen) tree() rawTree {
	var tree rawTree
	for i := 0; i < 1+g.r.IntN(4); i++ {
		tree = append(tree, g.topic(fmt.Sprintf("t%d", i))...)
	}
	return append(tree, g.others()...)
}

// fixedTrees are the shapes the property must hold for whatever the
// seed: each is a tree Kafka 3.9 reads that a write of made-up data would
// change.
func fixedTrees() map[string]rawTree {
	state := []byte(`{"controller_epoch":3,"leader":2,"version":1,"leader_epoch":7,"isr":[2,0]}`)
	return map[string]rawTree{
		"every other domain": otherDomains(),
		"topic without partitions znodes": {
			{znode.TopicPath("old"), []byte(`{"version":1,"partitions":{"0":[0,1],"1":[1,0]}}`)},
		},
		"partitions without states": {
			{znode.TopicPath("half"), []byte(`{"version":2,"partitions":{"0":[2,0],"1":[0,2]},"topic_id":"ASNFZ4mrze8P7cuph2VDIQ","adding_replicas":{},"removing_replicas":{}}`)},
			{znode.PartitionPath("half", 0), nil},
			{znode.PartitionStatePath("half", 0), state},
			{znode.PartitionPath("half", 1), nil},
		},
		"partition znodes outside the assignment": {
			{znode.TopicPath("stray"), []byte(`{"version":2,"partitions":{"0":[2,0]},"adding_replicas":{},"removing_replicas":{}}`)},
			{znode.TopicConfigEntity("stray").Path(), []byte(`{"version":1,"config":{}}`)},
			{znode.PartitionPath("stray", 0), nil},
			{znode.PartitionStatePath("stray", 0), state},
			{znode.PartitionPath("stray", 1), nil},
			{znode.PartitionPath("stray", 2), nil},
			{znode.PartitionStatePath("stray", 2), state},
		},
		"pretty JSON": {
			{znode.TopicPath("pretty"), []byte("{\n  \"version\" : 1,\n  \"partitions\" : {\n    \"0\" : [ 1 ]\n  }\n}")},
			{znode.PartitionPath("pretty", 0), nil},
			{znode.PartitionStatePath("pretty", 0), []byte("{ \"controller_epoch\" : 1, \"leader\" : 1, \"version\" : 1, \"leader_epoch\" : 0, \"isr\" : [ 1 ] }")},
			{"/config/topics/pretty", []byte("{\n  \"version\" : 1,\n  \"config\" : { \"retention.ms\" : \"1000\" }\n}")},
		},
	}
}

// checkReadIsStable checks the property on the tree the cluster holds:
// Diff of what Read returns against itself is empty, before and after the
// image JSON's round trip, and a Sync of either writes at most the
// checkpoint, ZooKeeper left as it was but for /migration.
func (c *cluster) checkReadIsStable(offset int64) {
	t := c.t
	t.Helper()
	ctx := testContext(t)
	img, err := c.c.Read(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := img.WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	again, err := dualwrite.ReadImageJSON(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	for _, pair := range [][2]dualwrite.Image{{img, img}, {img, again}, {again, again}} {
		if p := dualwrite.Diff(pair[0], pair[1]); !p.Empty() {
			t.Fatalf("Diff of an image Read returned with itself:\n%s\nimage:\n%s", p, buf.String())
		}
	}
	before := c.tree()
	s := c.s
	for i, desired := range []dualwrite.Image{img, again} {
		c.faults.ResetCounts()
		var rep dualwrite.SyncReport
		if s, rep, err = c.c.Sync(ctx, at(s, offset+int64(i)), desired); err != nil {
			t.Fatal(err)
		}
		if n := c.writeRequests(); n > 1 || !rep.Plan.Empty() {
			t.Fatalf("Sync of the image Read returned sent %d write requests, plan:\n%s\nimage:\n%s", n, rep.Plan, buf.String())
		}
		c.sameTree("after Sync(Read())", before, c.tree(), "/migration")
	}
	c.s = s
}

// checkAddedTopicOnly checks that a Sync of what Read returned plus one
// new topic writes that topic and the checkpoint, nothing else.
func (c *cluster) checkAddedTopicOnly(offset int64) {
	t := c.t
	t.Helper()
	ctx := testContext(t)
	img, err := c.c.Read(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	img.Topics["added"] = topic("added", 2)
	before := c.tree()
	if c.s, _, err = c.c.Sync(ctx, at(c.s, offset), img); err != nil {
		t.Fatal(err)
	}
	for _, d := range diffTrees(before, c.tree(), "/migration") {
		if !strings.HasPrefix(d, znode.TopicPath("added")) && !strings.HasPrefix(d, znode.TopicConfigEntity("added").Path()) {
			t.Fatalf("Sync of one new topic changed %s", d)
		}
	}
}

// propertySeed is the seed of the random trees: ZKWRITER_SEED when set,
// else the time.
func propertySeed(t *testing.T) uint64 {
	if s := os.Getenv("ZKWRITER_SEED"); s != "" {
		seed, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			t.Fatalf("ZKWRITER_SEED: %v", err)
		}
		return seed
	}
	return uint64(time.Now().UnixNano())
}

// Fault: none. For trees written znode by znode in every shape Kafka 3.9
// reads (fixed ones, then random ones from a seed the log prints; set
// ZKWRITER_SEED to run one again), Diff of what Read returns with itself
// is empty, Sync of it writes at most the checkpoint, and Sync of it with
// one topic added writes that topic only.
func TestPropertySyncOfReadWritesNothing(t *testing.T) {
	for name, tree := range fixedTrees() {
		t.Run(name, func(t *testing.T) {
			c := newCluster(t)
			c.plant(tree)
			if img := c.read(); len(img.Undecodable) > 0 || len(img.Topics) == 0 && len(img.ACLs) != 2 {
				t.Fatalf("the fixed tree does not read whole: %+v", img)
			}
			c.checkReadIsStable(200)
			c.checkAddedTopicOnly(300)
		})
	}
	seed := propertySeed(t)
	t.Logf("random trees from seed %d (ZKWRITER_SEED=%d to run them again)", seed, seed)
	g := treeGen{r: rand.New(rand.NewPCG(seed, seed>>1|1))}
	for i := 0; i < 6; i++ {
		tree := g.tree()
		t.Run(fmt.Sprintf("random-%d", i), func(t *testing.T) {
			c := newCluster(t)
			c.plant(tree)
			c.checkReadIsStable(200)
			c.checkAddedTopicOnly(300)
		})
	}
}
