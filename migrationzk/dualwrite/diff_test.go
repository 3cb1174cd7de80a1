package dualwrite_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/kraftmigration/zkwriter/migrationzk/dualwrite"
	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

// diffCase is a Diff table row: how current and desired differ from
// fullImage, and the changes Diff must plan.
type diffCase struct {
	name    string
	current func(*dualwrite.Image)
	desired func(*dualwrite.Image)
	want    []string
}

func topicDiffCases() []diffCase {
	return []diffCase{
		{name: "topic new", desired: func(img *dualwrite.Image) { img.Topics["audit"] = topic("audit", 1) }, want: []string{"create-topic audit"}},
		{name: "topic removed", desired: func(img *dualwrite.Image) { delete(img.Topics, "payments") }, want: []string{"delete-topic payments"}},
		{name: "replica order is the preferred leader", desired: editTopic("orders", func(t *dualwrite.Topic) {
			p := t.Partitions[1]
			p.Replicas = []int32{p.Replicas[1], p.Replicas[0], p.Replicas[2]}
			t.Partitions[1] = p
		}), want: []string{"update-topic orders"}},
		{name: "reassignment in progress", desired: editTopic("orders", func(t *dualwrite.Topic) {
			p := t.Partitions[0]
			p.AddingReplicas = []int32{4}
			t.Partitions[0] = p
		}), want: []string{"update-topic orders"}},
		{name: "partition added", desired: editTopic("orders", func(t *dualwrite.Topic) { t.Partitions[2] = topic("x", 3).Partitions[2] }),
			want: []string{"update-topic orders", "create-partitions orders partitions [2]"}},
		{name: "partition removed", desired: editTopic("orders", func(t *dualwrite.Topic) { delete(t.Partitions, 1) }),
			want: []string{"update-topic orders", "delete-partitions orders partitions [1]"}},
		{name: "partition state", desired: editTopic("orders", func(t *dualwrite.Topic) {
			p := t.Partitions[0]
			p.State.Leader, p.State.LeaderEpoch, p.State.ISR = p.Replicas[1], 1, p.Replicas[1:]
			t.Partitions[0] = p
		}), want: []string{"update-partitions orders partitions [0]"}},
		{name: "leader recovery", desired: editTopic("payments", func(t *dualwrite.Topic) {
			p := t.Partitions[0]
			p.State.LeaderRecoveryState = 1
			t.Partitions[0] = p
		}), want: []string{"update-partitions payments partitions [0]"}},
		{name: "topic id changed is a replace", desired: editTopic("orders", func(t *dualwrite.Topic) { t.ID = otherUUID }),
			want: []string{"replace-topic orders id ASNFZ4mrze8P7cuph2VDIQ to AAAAAAAAAAEAAAAAAAAAAg", "write-configs topics/orders"}},
		{name: "topic id removed is a replace", desired: editTopic("orders", func(t *dualwrite.Topic) { t.ID = znode.Uuid{} }),
			want: []string{"replace-topic orders id ASNFZ4mrze8P7cuph2VDIQ to none", "write-configs topics/orders"}},
		{name: "topic id added is an update", current: editTopic("orders", func(t *dualwrite.Topic) { t.ID = znode.Uuid{} }),
			want: []string{"update-topic orders"}},
		{name: "Name field need not be set", desired: editTopic("orders", func(t *dualwrite.Topic) { t.Name = "" })},
	}
}

// statelessDiffCases are the Diff rows of partitions without a state and
// of partitions outside the assignment: what the desired image does not
// ask for is never planned.
func statelessDiffCases() []diffCase {
	noState := func(id int32) func(*dualwrite.Image) {
		return editTopic("orders", func(t *dualwrite.Topic) { dropState(t, id) })
	}
	stray := func(st *dualwrite.PartitionState) func(*dualwrite.Image) {
		return editTopic("orders", func(t *dualwrite.Topic) { t.Unassigned = map[int32]dualwrite.UnassignedPartition{7: {State: st}} })
	}
	both := func(fs ...func(*dualwrite.Image)) func(*dualwrite.Image) {
		return func(img *dualwrite.Image) {
			for _, f := range fs {
				f(img)
			}
		}
	}
	state := dualwrite.PartitionState{Leader: 1, LeaderEpoch: 4, ISR: []int32{1}}
	return []diffCase{
		{name: "no state on both sides", current: noState(1), desired: noState(1)},
		{name: "no state in ZooKeeper, one desired", current: noState(1), want: []string{"update-partitions orders partitions [1]"}},
		{name: "a state in ZooKeeper, none desired", desired: noState(1)},
		{name: "a new partition without a state", desired: both(editTopic("orders", func(t *dualwrite.Topic) { t.Partitions[2] = topic("x", 3).Partitions[2] }), noState(2)),
			want: []string{"update-topic orders"}},
		{name: "unassigned on both sides", current: stray(&state), desired: stray(nil)},
		{name: "unassigned without a state on both sides", current: stray(nil), desired: stray(nil)},
		{name: "unassigned desired, absent in ZooKeeper", desired: stray(&state)},
		{name: "unassigned in ZooKeeper, absent desired", current: stray(nil), want: []string{"delete-partitions orders partitions [7]"}},
		{name: "unassigned in ZooKeeper, assigned desired", current: stray(nil), desired: editTopic("orders", func(t *dualwrite.Topic) { t.Partitions[7] = topic("x", 3).Partitions[2] }),
			want: []string{"update-topic orders", "update-partitions orders partitions [7]"}},
		{name: "unassigned with its state, assigned desired with it", current: stray(&state), desired: editTopic("orders", func(t *dualwrite.Topic) {
			t.Partitions[7] = dualwrite.Partition{Replicas: []int32{1}, State: state}
		}), want: []string{"update-topic orders"}},
		{name: "assigned in ZooKeeper, unassigned desired", desired: editTopic("orders", func(t *dualwrite.Topic) {
			delete(t.Partitions, 1)
			t.Unassigned = map[int32]dualwrite.UnassignedPartition{1: {}}
		}), want: []string{"update-topic orders"}},
	}
}

// dropState makes partition id of t one without a state, as Read finds
// it, through the image JSON (the only way to build one).
func dropState(t *dualwrite.Topic, id int32) {
	doc := fmt.Sprintf(`{"schema_version":2,"topics":[{"name":"x","partitions":[{"id":%d,"replicas":[1],"state":null}]}]}`, id)
	img, err := dualwrite.ReadImageJSON(strings.NewReader(doc))
	if err != nil {
		panic(err)
	}
	p := img.Topics["x"].Partitions[id]
	p.Replicas = t.Partitions[id].Replicas
	t.Partitions[id] = p
}

func configDiffCases() []diffCase {
	return []diffCase{
		{name: "config changed", desired: func(img *dualwrite.Image) { img.Configs[brokerOne] = map[string]string{"log.retention.hours": "2"} },
			want: []string{"write-configs brokers/1"}},
		{name: "config new", desired: func(img *dualwrite.Image) {
			img.Configs[dualwrite.ConfigResource{Type: dualwrite.BrokerConfig}] = map[string]string{"a": "b"}
		}, want: []string{"write-configs brokers/<default>"}},
		{name: "config removed", desired: func(img *dualwrite.Image) { delete(img.Configs, topicOrders) }, want: []string{"delete-configs topics/orders"}},
		{name: "config emptied", desired: func(img *dualwrite.Image) { img.Configs[topicOrders] = map[string]string{} }, want: []string{"delete-configs topics/orders"}},
		{name: "empty config is none", current: func(img *dualwrite.Image) {
			img.Configs[dualwrite.ConfigResource{Type: dualwrite.TopicConfig, Name: "payments"}] = map[string]string{}
		}},
		{name: "quota changed", desired: func(img *dualwrite.Image) {
			img.ClientQuotas[clientQuota] = map[string]float64{"consumer_byte_rate": 4096}
		},
			want: []string{"write-client-quotas clients/app"}},
		{name: "quota entity new", desired: func(img *dualwrite.Image) { img.ClientQuotas[bobQuota] = map[string]float64{"request_percentage": 50} },
			want: []string{"write-client-quotas users/bob"}},
		{name: "quota entity absent keeps an empty config", desired: func(img *dualwrite.Image) { delete(img.ClientQuotas, clientQuota) },
			want: []string{"write-client-quotas clients/app"}},
		{name: "quota entity empty in ZooKeeper and absent", current: func(img *dualwrite.Image) { img.ClientQuotas[bobQuota] = map[string]float64{} }},
		{name: "scram added", desired: func(img *dualwrite.Image) {
			img.Scram["alice"] = map[string]znode.ScramCredential{znode.ScramSHA256: credential, znode.ScramSHA512: sha512}
		}, want: []string{"write-client-quotas users/alice"}},
		{name: "scram of a user without quotas", desired: func(img *dualwrite.Image) {
			img.Scram["bob"] = map[string]znode.ScramCredential{znode.ScramSHA512: sha512}
		}, want: []string{"write-client-quotas users/bob"}},
		{name: "scram removed", desired: func(img *dualwrite.Image) { delete(img.Scram, "alice") }, want: []string{"write-client-quotas users/alice"}},
	}
}

func otherDiffCases() []diffCase {
	return []diffCase{
		{name: "acl new", desired: func(img *dualwrite.Image) {
			img.ACLs[dualwrite.ResourcePattern{Type: znode.ResourceGroup, Name: "g", PatternType: znode.PatternLiteral}] = readAll
		}, want: []string{"write-acls LITERAL Group g"}},
		{name: "acl changed", desired: func(img *dualwrite.Image) { img.ACLs[prefixBar] = []znode.ACLEntry{writeBob} }, want: []string{"write-acls PREFIXED Topic bar-"}},
		{name: "acl entry order is no change", desired: func(img *dualwrite.Image) { img.ACLs[literalFoo] = []znode.ACLEntry{writeBob, readAll[0]} }},
		{name: "acl removed", desired: func(img *dualwrite.Image) { delete(img.ACLs, literalFoo) }, want: []string{"delete-acls LITERAL Topic foo"}},
		{name: "acl emptied", desired: func(img *dualwrite.Image) { img.ACLs[literalFoo] = nil }, want: []string{"delete-acls LITERAL Topic foo"}},
		{name: "token changed", desired: func(img *dualwrite.Image) {
			t := token
			t.ExpiryTimestamp = 2000
			img.DelegationTokens["tok1"] = t
		}, want: []string{"write-delegation-token tok1"}},
		{name: "token new", desired: func(img *dualwrite.Image) {
			t := token
			t.TokenID = "ignored"
			img.DelegationTokens["tok2"] = t
		}, want: []string{"write-delegation-token tok2"}},
		{name: "token removed", desired: func(img *dualwrite.Image) { delete(img.DelegationTokens, "tok1") }, want: []string{"delete-delegation-token tok1"}},
		{name: "producer id moved", desired: func(img *dualwrite.Image) {
			b := znode.MigrationProducerIDBlock(7000)
			img.ProducerIDBlock = &b
		}, want: []string{"write-producer-id [7000, 7999]"}},
		{name: "producer id new", current: func(img *dualwrite.Image) { img.ProducerIDBlock = nil }, want: []string{"write-producer-id [6000, 6999]"}},
		{name: "producer id none desired", desired: func(img *dualwrite.Image) { img.ProducerIDBlock = nil }},
	}
}

// Fault: none (pure). Diff plans exactly the change of each domain that
// differs, no change where the images mean the same, in a fixed order.
func TestDiffDomains(t *testing.T) {
	cases := append(append(append(append([]diffCase{{name: "same"}}, topicDiffCases()...), statelessDiffCases()...), configDiffCases()...), otherDiffCases()...)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			current, desired := fullImage(), fullImage()
			if tc.current != nil {
				tc.current(&current)
			}
			if tc.desired != nil {
				tc.desired(&desired)
			}
			p := dualwrite.Diff(current, desired)
			if got := planLines(p); !slices.Equal(got, tc.want) {
				t.Fatalf("plan:\n%s\nwant changes %q", p, tc.want)
			}
			if p.Empty() != (len(tc.want) == 0) {
				t.Fatalf("Empty() = %v with %d changes", p.Empty(), len(tc.want))
			}
		})
	}
}

// Fault: none (pure). Znodes Read could not decode are left alone: no
// change writes them or deletes a subtree holding one, and the plan lists
// them as skipped.
func TestDiffSkipsUndecodable(t *testing.T) {
	current, desired := fullImage(), fullImage()
	bad := errors.New("garbage")
	current.Undecodable = []dualwrite.UndecodableZnode{
		{Path: "/config/brokers/1", Err: bad},
		{Path: znode.PartitionStatePath("orders", 1), Err: bad},
		{Path: znode.LiteralACLPath(znode.ResourceTopic, "foo"), Err: bad},
	}
	delete(current.Configs, brokerOne)
	delete(current.ACLs, literalFoo)
	desired.Configs[brokerOne] = map[string]string{"x": "y"}
	desired.ACLs[literalFoo] = []znode.ACLEntry{writeBob}
	editTopic("orders", func(t *dualwrite.Topic) {
		for id, p := range t.Partitions {
			p.State.LeaderEpoch = 9
			t.Partitions[id] = p
		}
	})(&desired)
	delete(desired.Topics, "payments")
	p := dualwrite.Diff(current, desired)
	want := []string{"update-partitions orders partitions [0]", "delete-topic payments",
		"skipped /config/brokers/1: garbage", "skipped /brokers/topics/orders/partitions/1/state: garbage", "skipped /kafka-acl/Topic/foo: garbage"}
	if got := planLines(p); !slices.Equal(got, want) {
		t.Fatalf("plan:\n%s\nwant %q", p, want)
	}
	delete(desired.Topics, "orders")
	if got := planLines(dualwrite.Diff(current, desired)); slices.Contains(got, "delete-topic orders") {
		t.Fatalf("deletes a topic holding an undecodable state: %q", got)
	}
}

// manyImage returns an image of n topics and as many configs, quota
// entities, ACL sets and tokens.
func manyImage(n int) dualwrite.Image {
	img := dualwrite.NewImage()
	for i := 0; i < n; i++ {
		name := fmt.Sprintf("t%03d", i)
		img.Topics[name] = topic(name, 3)
		img.Configs[dualwrite.ConfigResource{Type: dualwrite.TopicConfig, Name: name}] = map[string]string{"k": name}
		img.ClientQuotas[dualwrite.QuotaEntity{User: name}] = map[string]float64{"producer_byte_rate": float64(i)}
		img.ACLs[dualwrite.ResourcePattern{Type: znode.ResourceTopic, Name: name, PatternType: znode.PatternLiteral}] = readAll
		tok := token
		tok.TokenID = name
		img.DelegationTokens[name] = tok
	}
	return img
}

// Fault: none (pure). The same images give the same plan, byte for byte,
// however the maps iterate, its changes sorted by subject within each
// domain, and its counts by kind add up.
func TestDiffDeterministic(t *testing.T) {
	first := dualwrite.Diff(dualwrite.NewImage(), manyImage(40)).String()
	for i := 0; i < 5; i++ {
		if again := dualwrite.Diff(dualwrite.NewImage(), manyImage(40)).String(); again != first {
			t.Fatalf("plan changed between runs:\n%s\nthen\n%s", first, again)
		}
	}
	p := dualwrite.Diff(dualwrite.NewImage(), manyImage(40))
	var last string
	for i, c := range p.Changes {
		if i > 0 && p.Changes[i-1].Kind == c.Kind && c.Subject <= last {
			t.Fatalf("change %d: %s %s after %s", i, c.Kind, c.Subject, last)
		}
		last = c.Subject
	}
	want := map[dualwrite.ChangeKind]int{dualwrite.ChangeCreateTopic: 40, dualwrite.ChangeWriteConfigs: 40,
		dualwrite.ChangeWriteClientQuotas: 40, dualwrite.ChangeWriteACLs: 40, dualwrite.ChangeWriteDelegationToken: 40}
	if got := p.Counts(); !maps.Equal(got, want) {
		t.Fatalf("counts %v, want %v", got, want)
	}
	if !strings.HasSuffix(first, "200 changes (create-topic 40, write-acls 40, write-client-quotas 40, write-configs 40, write-delegation-token 40), 0 znodes skipped\n") {
		t.Fatalf("counts line of\n%s", first)
	}
}

// Fault: none (pure). A plan prints one change a line, its values below
// it, and its counts, and marshals to JSON of a fixed shape: changes
// with kind, subject, partitions for a partition change, and fields.
func TestPlanStringAndJSON(t *testing.T) {
	current, desired := fullImage(), fullImage()
	editTopic("orders", func(t *dualwrite.Topic) { t.Partitions[2] = topic("x", 3).Partitions[2] })(&desired)
	delete(desired.DelegationTokens, "tok1")
	p := dualwrite.Diff(current, desired)
	wantText := "update-topic orders\n    partition 2 replicas: (none) -> [3,1,2]\n" +
		"create-partitions orders partitions [2]\n    partition 2 leader: (none) -> 3\n    partition 2 leader_epoch: (none) -> 0\n" +
		"    partition 2 isr: (none) -> [3,1,2]\n    partition 2 leader_recovery_state: (none) -> 0\n" +
		"delete-delegation-token tok1\n    owner: User:alice -> (none)\n    token_requester: User:alice -> (none)\n" +
		"    renewers: [User:bob] -> (none)\n    issue_timestamp: 0 -> (none)\n    max_timestamp: 100 -> (none)\n    expiry_timestamp: 1000 -> (none)\n" +
		"3 changes (create-partitions 1, delete-delegation-token 1, update-topic 1), 0 znodes skipped\n"
	if p.String() != wantText {
		t.Fatalf("String:\n%s\nwant\n%s", p, wantText)
	}
	got, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	wantJSON := `{"changes":[{"kind":"update-topic","subject":"orders","fields":[{"field":"replicas","partition":2,"new":"[3,1,2]"}]},` +
		`{"kind":"create-partitions","subject":"orders","partitions":[2],"fields":[{"field":"leader","partition":2,"new":"3"},` +
		`{"field":"leader_epoch","partition":2,"new":"0"},{"field":"isr","partition":2,"new":"[3,1,2]"},{"field":"leader_recovery_state","partition":2,"new":"0"}]},` +
		`{"kind":"delete-delegation-token","subject":"tok1","fields":[{"field":"owner","old":"User:alice"},{"field":"token_requester","old":"User:alice"},` +
		`{"field":"renewers","old":"[User:bob]"},{"field":"issue_timestamp","old":"0"},{"field":"max_timestamp","old":"100"},{"field":"expiry_timestamp","old":"1000"}]}]}`
	if string(got) != wantJSON {
		t.Fatalf("JSON %s\nwant %s", got, wantJSON)
	}
	if s := dualwrite.Diff(current, current).String(); s != "no changes\n" {
		t.Fatalf("empty plan prints %q", s)
	}
}
