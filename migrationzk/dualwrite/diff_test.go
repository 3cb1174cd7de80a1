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

// Fault: none (pure). Diff plans exactly the change of each domain that
// differs, no change where the images mean the same, in a fixed order.
func TestDiffDomains(t *testing.T) {
	cases := append([]diffCase{{name: "same"}}, everyDomain(func(d domainRows) []diffCase { return d.diff })...)
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
