package dualwrite_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/go-zookeeper/zk"

	"github.com/kraftmigration/zkwriter/migrationzk/dualwrite"
	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

// richImage returns an Image with something in every domain, including
// the cases a round trip could lose: a topic without an id, a reassignment
// in progress, an empty ISR, the default broker config, default quota
// entities, a token whose own id is not its key, an undecodable znode.
// ACL entries are in sorted order, as WriteJSON writes them.
func richImage() dualwrite.Image {
	img := dualwrite.NewImage()
	img.Topics["orders"] = topic("orders", 3)
	reassigning := topic("payments", 2)
	p := reassigning.Partitions[1]
	p.Replicas, p.AddingReplicas, p.RemovingReplicas = []int32{1, 2, 3, 4}, []int32{4}, []int32{1}
	p.State.ISR, p.State.LeaderRecoveryState = []int32{}, 1
	reassigning.Partitions[1] = p
	img.Topics["payments"] = reassigning
	img.Topics["legacy"] = dualwrite.Topic{Name: "legacy", Partitions: map[int32]dualwrite.Partition{0: {Replicas: []int32{2}, State: dualwrite.PartitionState{Leader: 2, LeaderEpoch: 9, ISR: []int32{2}}}}}
	img.Configs[dualwrite.ConfigResource{Type: dualwrite.TopicConfig, Name: "orders"}] = map[string]string{"retention.ms": "86400000", "cleanup.policy": "compact"}
	img.Configs[dualwrite.ConfigResource{Type: dualwrite.BrokerConfig, Name: ""}] = map[string]string{"log.retention.hours": "24"}
	img.Configs[dualwrite.ConfigResource{Type: dualwrite.BrokerConfig, Name: "1"}] = map[string]string{}
	img.ClientQuotas[dualwrite.QuotaEntity{User: "alice"}] = map[string]float64{"producer_byte_rate": 1024, "request_percentage": 12.5}
	img.ClientQuotas[dualwrite.QuotaEntity{User: znode.DefaultEntityName, ClientID: "app<1>"}] = map[string]float64{"consumer_byte_rate": 2048}
	img.ClientQuotas[dualwrite.QuotaEntity{IP: "10.0.0.1"}] = map[string]float64{"connection_creation_rate": 5}
	img.ClientQuotas[dualwrite.QuotaEntity{ClientID: znode.DefaultEntityName}] = map[string]float64{}
	img.Scram["alice"] = map[string]znode.ScramCredential{
		znode.ScramSHA256: {Salt: []byte("salt"), StoredKey: []byte{0, 1, 2}, ServerKey: []byte{0xff}, Iterations: 4096},
		znode.ScramSHA512: {Salt: []byte{}, StoredKey: []byte("k"), ServerKey: []byte("s"), Iterations: 8192},
	}
	img.ACLs[dualwrite.ResourcePattern{Type: znode.ResourceTopic, Name: "orders", PatternType: znode.PatternLiteral}] = []znode.ACLEntry{
		{Principal: "User:alice", PermissionType: znode.PermissionAllow, Operation: znode.OperationRead, Host: "*"},
		{Principal: "User:bob", PermissionType: znode.PermissionDeny, Operation: znode.OperationWrite, Host: "10.0.0.2"},
	}
	img.ACLs[dualwrite.ResourcePattern{Type: znode.ResourceGroup, Name: "app-", PatternType: znode.PatternPrefixed}] = []znode.ACLEntry{
		{Principal: "User:carol", PermissionType: znode.PermissionAllow, Operation: znode.OperationAll, Host: "*"},
	}
	img.DelegationTokens["tok1"] = znode.DelegationToken{TokenID: "tok1", Owner: "User:alice", TokenRequester: "User:alice",
		Renewers: []string{"User:bob", "User:alice"}, IssueTimestamp: 1729500000000, MaxTimestamp: 1730100000000, ExpiryTimestamp: 1729600000000}
	img.DelegationTokens["tok2"] = znode.DelegationToken{TokenID: "other", Owner: "User:bob", TokenRequester: "User:carol", Renewers: []string{}}
	img.ProducerIDBlock = &znode.ProducerIDBlock{BrokerID: -1, BlockStart: 6000, BlockEnd: 6999}
	img.Undecodable = []dualwrite.UndecodableZnode{
		{Path: "/brokers/topics/broken", Err: errors.New(`decode /brokers/topics/<topic>: invalid JSON: data "{"`)},
		{Path: "/config/topics/bad", Err: errors.New("decode: wrong type")},
	}
	return img
}

// encode returns img's JSON, failing t on an error.
func encode(t testing.TB, img dualwrite.Image) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := img.WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// sameImage fails t unless a and b are equal, comparing undecodable
// znodes' errors by their text.
func sameImage(t *testing.T, a, b dualwrite.Image) {
	t.Helper()
	texts := func(img *dualwrite.Image) []string {
		var out []string
		for i, u := range img.Undecodable {
			out = append(out, u.Err.Error())
			img.Undecodable[i].Err = nil
		}
		return out
	}
	a.Undecodable, b.Undecodable = append([]dualwrite.UndecodableZnode(nil), a.Undecodable...), append([]dualwrite.UndecodableZnode(nil), b.Undecodable...)
	if ta, tb := texts(&a), texts(&b); !reflect.DeepEqual(ta, tb) {
		t.Fatalf("undecodable errors differ:\n%q\n%q", ta, tb)
	}
	if !reflect.DeepEqual(a, b) {
		t.Fatalf("images differ:\n%+v\n%+v", a, b)
	}
}

// TestImageJSONRoundTrip checks that an Image with something in every
// domain reads back equal from its JSON, and that WriteJSON's output
// starts with the schema version and reads back to the same bytes.
func TestImageJSONRoundTrip(t *testing.T) {
	img := richImage()
	data := encode(t, img)
	if !bytes.HasPrefix(data, []byte("{\n  \"schema_version\": 3,\n  \"redacted\": false,\n  \"passwords\": null,\n  \"topics\": [\n")) {
		t.Fatalf("output does not start with the schema version:\n%s", data)
	}
	got, err := dualwrite.ReadImageJSON(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("read: %v\n%s", err, data)
	}
	sameImage(t, img, got)
	if again := encode(t, got); !bytes.Equal(again, data) {
		t.Fatalf("re-encoded output differs:\n%s\n---\n%s", data, again)
	}
	if !dualwrite.Diff(img, got).Empty() {
		t.Fatalf("diff of an image and its round trip: %s", dualwrite.Diff(img, got))
	}
}

// TestImageJSONByteStable checks that the output depends on the Image's
// content only: built in another order, with ACL entries shuffled and
// undecodable znodes unsorted, an Image encodes to the same bytes, one
// element a line.
func TestImageJSONByteStable(t *testing.T) {
	want := encode(t, richImage())
	if again := encode(t, richImage()); !bytes.Equal(want, again) {
		t.Fatal("two encodings of one image differ")
	}
	shuffled := dualwrite.NewImage()
	src := richImage()
	for _, name := range []string{"payments", "legacy", "orders"} {
		shuffled.Topics[name] = src.Topics[name]
	}
	shuffled.Configs, shuffled.ClientQuotas, shuffled.Scram = src.Configs, src.ClientQuotas, src.Scram
	shuffled.DelegationTokens, shuffled.ProducerIDBlock = src.DelegationTokens, src.ProducerIDBlock
	for p, entries := range src.ACLs {
		rev := make([]znode.ACLEntry, len(entries))
		for i, e := range entries {
			rev[len(entries)-1-i] = e
		}
		shuffled.ACLs[p] = rev
	}
	shuffled.Undecodable = []dualwrite.UndecodableZnode{src.Undecodable[1], src.Undecodable[0]}
	if got := encode(t, shuffled); !bytes.Equal(got, want) {
		t.Fatalf("built in another order, the output differs:\n%s\n---\n%s", want, got)
	}
	for _, line := range []string{
		`    {"name":"legacy","partitions":[{"id":0,"replicas":[2],"state":{"leader":2,"leader_epoch":9,"isr":[2],"leader_recovery_state":0}}]},`,
		`    {"entity":{"user":"<default>","client_id":"app<1>"},"quotas":{"consumer_byte_rate":2048}},`,
		`  "producer_id_block": {"broker_id":-1,"block_start":6000,"block_end":6999},`,
	} {
		if !strings.Contains(string(want), line+"\n") {
			t.Fatalf("output lacks the line %s:\n%s", line, want)
		}
	}
}

// TestImageJSONNoState checks that a partition ZooKeeper holds no state
// for ("state": null) keeps that through a round trip: Diff still plans
// its state written, as it does for the Image Read returns.
func TestImageJSONNoState(t *testing.T) {
	doc := `{"schema_version":1,"topics":[{"name":"t","partitions":[{"id":0,"replicas":[1],"state":null}]}]}`
	img, err := dualwrite.ReadImageJSON(strings.NewReader(doc))
	if err != nil {
		t.Fatal(err)
	}
	want := dualwrite.NewImage()
	want.Topics["t"] = dualwrite.Topic{Name: "t", Partitions: map[int32]dualwrite.Partition{0: {Replicas: []int32{1}}}}
	plan := dualwrite.Diff(img, want)
	if len(plan.Changes) != 1 || plan.Changes[0].Kind != dualwrite.ChangeUpdatePartitions {
		t.Fatalf("plan from a stateless partition: %s", plan)
	}
	again, err := dualwrite.ReadImageJSON(bytes.NewReader(encode(t, img)))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(encode(t, again)), `"state":null`) || !reflect.DeepEqual(img, again) {
		t.Fatalf("the missing state was lost:\n%s", encode(t, again))
	}
}

// TestReadImageJSONSchemaVersion checks that an export of another schema
// version, or without one first, is refused with a *SchemaVersionError
// naming what was found.
func TestReadImageJSONSchemaVersion(t *testing.T) {
	for _, tc := range []struct{ doc, found string }{
		{`{"schema_version":4,"topics":[]}`, "4"},
		{`{"schema_version":1.0}`, "1.0"},
		{`{"schema_version":"1"}`, `"1"`},
		{`{"schema_version":null}`, "null"},
		{`{"schema_version":0}`, "0"},
		{`{}`, ""},
		{`{"topics":[],"schema_version":1}`, ""},
	} {
		_, err := dualwrite.ReadImageJSON(strings.NewReader(tc.doc))
		var sv *dualwrite.SchemaVersionError
		if !errors.As(err, &sv) || sv.Found != tc.found {
			t.Fatalf("%s: got %v, want a *SchemaVersionError finding %q", tc.doc, err, tc.found)
		}
		if !strings.Contains(err.Error(), "this reads versions 1 to 3") {
			t.Fatalf("%s: message %q", tc.doc, err)
		}
	}
	for _, doc := range []string{`{"schema_version":1}`, `{"schema_version":2}`, `{"schema_version":3}`} {
		if _, err := dualwrite.ReadImageJSON(strings.NewReader(doc)); err != nil {
			t.Fatalf("%s: %v", doc, err)
		}
	}
}

// TestReadImageJSONTruncated checks that every proper prefix of an export
// fails with an error, an *ImageJSONError for io.ErrUnexpectedEOF once
// the version is read, and never reads as an Image.
func TestReadImageJSONTruncated(t *testing.T) {
	data := encode(t, richImage())
	versionEnd := bytes.Index(data, []byte(`"schema_version": 3,`)) + len(`"schema_version": 3`)
	for n := 0; n < len(data)-1; n++ { // the last byte is the newline
		_, err := dualwrite.ReadImageJSON(bytes.NewReader(data[:n]))
		if err == nil {
			t.Fatalf("a prefix of %d bytes of %d read as an image", n, len(data))
		}
		var ie *dualwrite.ImageJSONError
		if n > versionEnd && (!errors.As(err, &ie) || !errors.Is(err, io.ErrUnexpectedEOF)) {
			t.Fatalf("prefix of %d bytes: %v, want an *ImageJSONError for io.ErrUnexpectedEOF", n, err)
		}
	}
}

// TestReadImageJSONMalformed checks that input that is not an image JSON
// fails with an *ImageJSONError saying where, and that keys of a later
// revision are skipped.
func TestReadImageJSONMalformed(t *testing.T) {
	for _, tc := range []struct{ doc, where, says string }{
		{`[1]`, "", `got "[", want "{"`},
		{`{"schema_version":1,"topics":{}}`, "topics", "want a list"},
		{`{"schema_version":1,"topics":[{"name":"a","partitions":[]},{"name":"a","partitions":[]}]}`, "topics[1]", `duplicate entry: topic "a"`},
		{`{"schema_version":1,"topics":[{"name":"a","partitions":[{"id":1},{"id":1}]}]}`, "topics[0]", "duplicate entry"},
		{`{"schema_version":1,"topics":[{"name":"a","partitions":[{"replicas":[1]}]}]}`, "topics[0]", "without an id"},
		{`{"schema_version":1,"topics":[{"name":"a","id":"nope","partitions":[]}]}`, "topics[0]", `topic "a": id`},
		{`{"schema_version":1,"topics":[null]}`, "topics[0]", "null element"},
		{`{"schema_version":1,"configs":[{"type":"topic","name":"a","configs":{"k":1}}]}`, "configs[0]", "cannot unmarshal"},
		{`{"schema_version":1,"client_quotas":[{"entity":{"user":"u"},"quotas":{"q":1e999}}]}`, "client_quotas[0]", "cannot unmarshal"},
		{`{"schema_version":1,"acls":[],"acls":[]}`, "acls", "duplicate entry"},
		{`{"schema_version":1,"schema_version":1}`, "schema_version", "duplicate entry"},
		{`{"schema_version":1,"producer_id_block":[]}`, "producer_id_block", "cannot unmarshal"},
		{`{"schema_version":1} {}`, "", `"{" after the object`},
		{`{"schema_version":1,"topics":[}`, "topics", "invalid character"},
		{`{"schema_version":1,"features":{"a":[1,}}`, "features", "invalid character"},
		{`{"schema_version":1,"features":{"a":[1`, "features", "unexpected EOF"},
	} {
		_, err := dualwrite.ReadImageJSON(strings.NewReader(tc.doc))
		var ie *dualwrite.ImageJSONError
		if !errors.As(err, &ie) || ie.Where != tc.where || !strings.Contains(err.Error(), tc.says) {
			t.Fatalf("%s: got %v (%#v), want an *ImageJSONError at %q saying %q", tc.doc, err, ie, tc.where, tc.says)
		}
	}
	img, err := dualwrite.ReadImageJSON(strings.NewReader(`{"schema_version":1,"features":{"x":[1,2]},"topics":[{"name":"a","partitions":[],"extra":true}]}`))
	if err != nil || len(img.Topics) != 1 {
		t.Fatalf("keys of a later revision: %v %+v", err, img)
	}
}

// FuzzReadImageJSON checks that ReadImageJSON never panics, and that what
// it reads writes and reads back to the same bytes.
func FuzzReadImageJSON(f *testing.F) {
	f.Add(encode(f, richImage()))
	f.Add(encode(f, dualwrite.NewImage()))
	f.Add([]byte(`{"schema_version":1,"topics":[{"name":"t","partitions":[{"id":0,"replicas":[1],"state":null}]}]}`))
	f.Add([]byte(`{"schema_version":2}`))
	f.Add([]byte(`{"schema_version":1,"undecodable":[{"path":"/p","error":""}],"producer_id_block":null}`))
	f.Add([]byte(`{"schema_version":1,"topics":[`))
	f.Fuzz(func(t *testing.T, data []byte) {
		img, err := dualwrite.ReadImageJSON(bytes.NewReader(data))
		if err != nil {
			return
		}
		var first bytes.Buffer
		if err := img.WriteJSON(&first); err != nil {
			t.Fatalf("write what was read: %v", err)
		}
		again, err := dualwrite.ReadImageJSON(bytes.NewReader(first.Bytes()))
		if err != nil {
			t.Fatalf("read what was written: %v\n%s", err, first.Bytes())
		}
		if second := encode(t, again); !bytes.Equal(first.Bytes(), second) {
			t.Fatalf("not stable:\n%s\n---\n%s", first.Bytes(), second)
		}
	})
}

// failingWriter fails every write after the first n bytes.
type failingWriter struct{ n int }

func (w *failingWriter) Write(p []byte) (int, error) {
	if len(p) > w.n {
		return w.n, errors.New("disk full")
	}
	w.n -= len(p)
	return len(p), nil
}

// TestWriteJSONErrors checks that WriteJSON returns the writer's error,
// and an error naming the domain for a quota JSON cannot hold.
func TestWriteJSONErrors(t *testing.T) {
	if err := richImage().WriteJSON(&failingWriter{n: 100}); err == nil || err.Error() != "disk full" {
		t.Fatalf("write error: %v", err)
	}
	img := dualwrite.NewImage()
	img.ClientQuotas[dualwrite.QuotaEntity{User: "u"}] = map[string]float64{"producer_byte_rate": math.Inf(1)}
	err := img.WriteJSON(io.Discard)
	var unsupported *json.UnsupportedValueError
	if !errors.As(err, &unsupported) || !strings.Contains(err.Error(), "client_quotas") {
		t.Fatalf("infinite quota: %v", err)
	}
}

// TestImageJSONOfRead checks the round trip of what Read finds in a real
// ZooKeeper, a partition without a state and a znode that does not decode
// among it: the Image reads back equal, and two reads of the same tree
// write the same bytes.
func TestImageJSONOfRead(t *testing.T) {
	c := newCluster(t)
	ctx := testContext(t)
	s, err := c.c.CreateTopic(ctx, at(c.s, 101), topic("orders", 3))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.c.WriteProducerID(ctx, at(s, 102), 6000); err != nil {
		t.Fatal(err)
	}
	if err := c.admin.Delete(c.p(znode.PartitionStatePath("orders", 2)), -1); err != nil {
		t.Fatal(err)
	}
	if _, err := c.admin.Create(c.p("/config/topics/broken"), []byte("{"), 0, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}
	img, err := c.c.Read(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if img.Topics["orders"].Partitions[2].HasState() || len(img.Undecodable) != 1 {
		t.Fatalf("read: %+v", img)
	}
	data := encode(t, img)
	got, err := dualwrite.ReadImageJSON(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	sameImage(t, img, got)
	again, err := c.c.Read(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(encode(t, again), data) {
		t.Fatal("two reads of one tree write different bytes")
	}
}

// TestImageJSONUnassigned checks that a topic's partitions outside its
// assignment survive the round trip as such, with or without a state, in
// "unassigned_partitions" and never as a partition without replicas; and
// that version 1's form of them ("replicas": null among "partitions")
// reads as the same Image.
func TestImageJSONUnassigned(t *testing.T) {
	st := dualwrite.PartitionState{Leader: 2, LeaderEpoch: 7, ISR: []int32{2}}
	img := dualwrite.NewImage()
	img.Topics["t"] = dualwrite.Topic{Name: "t", Partitions: map[int32]dualwrite.Partition{0: {Replicas: []int32{1}, State: st}},
		Unassigned: map[int32]dualwrite.UnassignedPartition{1: {}, 2: {State: &st}}}
	data := encode(t, img)
	line := `    {"name":"t","partitions":[{"id":0,"replicas":[1],"state":{"leader":2,"leader_epoch":7,"isr":[2],"leader_recovery_state":0}}],` +
		`"unassigned_partitions":[{"id":1,"state":null},{"id":2,"state":{"leader":2,"leader_epoch":7,"isr":[2],"leader_recovery_state":0}}]}`
	if !strings.Contains(string(data), line+"\n") {
		t.Fatalf("output lacks the line %s:\n%s", line, data)
	}
	got, err := dualwrite.ReadImageJSON(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	sameImage(t, img, got)
	v1 := `{"schema_version":1,"topics":[{"name":"t","partitions":[{"id":0,"replicas":[1],"state":{"leader":2,"leader_epoch":7,"isr":[2],"leader_recovery_state":0}},` +
		`{"id":1,"replicas":null,"state":null},{"id":2,"state":{"leader":2,"leader_epoch":7,"isr":[2],"leader_recovery_state":0}}]}]}`
	old, err := dualwrite.ReadImageJSON(strings.NewReader(v1))
	if err != nil {
		t.Fatal(err)
	}
	sameImage(t, img, old)
	if p := dualwrite.Diff(img, old); !p.Empty() {
		t.Fatalf("version 1 reads otherwise:\n%s", p)
	}
}

// TestImageJSONUnassignedErrors checks that an unassigned partition
// without an id, twice, or also in the assignment is refused.
func TestImageJSONUnassignedErrors(t *testing.T) {
	for _, doc := range []string{
		`{"schema_version":2,"topics":[{"name":"t","partitions":[],"unassigned_partitions":[{"state":null}]}]}`,
		`{"schema_version":2,"topics":[{"name":"t","partitions":[],"unassigned_partitions":[{"id":1},{"id":1}]}]}`,
		`{"schema_version":2,"topics":[{"name":"t","partitions":[{"id":1,"replicas":[1]}],"unassigned_partitions":[{"id":1}]}]}`,
	} {
		var ie *dualwrite.ImageJSONError
		if _, err := dualwrite.ReadImageJSON(strings.NewReader(doc)); !errors.As(err, &ie) || ie.Where != "topics[0]" {
			t.Fatalf("%s: %v", doc, err)
		}
	}
}

// TestImageJSONSecrets checks that the form of an image's secrets
// survives the round trip in "redacted" and "passwords", that versions 1
// and 2 read as unrecorded, and that a form that is none, or a redacted
// image naming a password form, is refused on both sides.
func TestImageJSONSecrets(t *testing.T) {
	for _, form := range []dualwrite.SecretForm{dualwrite.SecretsUnrecorded, dualwrite.SecretsPlain, dualwrite.SecretsEncoded, dualwrite.SecretsRedacted} {
		img := richImage()
		img.Secrets = form
		data := encode(t, img)
		got, err := dualwrite.ReadImageJSON(bytes.NewReader(data))
		if err != nil || got.Secrets != form {
			t.Fatalf("%q: read back %q, %v\n%s", form, got.Secrets, err, data)
		}
	}
	head := func(img dualwrite.Image) string {
		return strings.Join(strings.Split(string(encode(t, img)), "\n")[1:4], "\n")
	}
	if got := head(dualwrite.NewImage().Redacted()); got != "  \"schema_version\": 3,\n  \"redacted\": true,\n  \"passwords\": null," {
		t.Fatalf("redacted head:\n%s", got)
	}
	for _, doc := range []string{`{"schema_version":1,"topics":[]}`, `{"schema_version":2}`, `{"schema_version":3}`, `{"schema_version":3,"redacted":false,"passwords":null}`} {
		if img, err := dualwrite.ReadImageJSON(strings.NewReader(doc)); err != nil || img.Secrets != dualwrite.SecretsUnrecorded {
			t.Fatalf("%s: %q, %v", doc, img.Secrets, err)
		}
	}
	for _, tc := range []struct{ doc, where, says string }{
		{`{"schema_version":3,"redacted":"yes"}`, "redacted", "cannot unmarshal"},
		{`{"schema_version":3,"redacted":null}`, "redacted", "want true or false"},
		{`{"schema_version":3,"passwords":"base64"}`, "passwords", `got "base64"`},
		{`{"schema_version":3,"passwords":"redacted"}`, "passwords", `got "redacted"`},
		{`{"schema_version":3,"passwords":"plain","redacted":true}`, "", "a redacted image holds no password form"},
		{`{"schema_version":3,"redacted":true,"redacted":true}`, "redacted", "duplicate entry"},
	} {
		_, err := dualwrite.ReadImageJSON(strings.NewReader(tc.doc))
		var ie *dualwrite.ImageJSONError
		if !errors.As(err, &ie) || ie.Where != tc.where || !strings.Contains(err.Error(), tc.says) {
			t.Fatalf("%s: got %v, want an *ImageJSONError at %q saying %q", tc.doc, err, tc.where, tc.says)
		}
	}
	img := dualwrite.NewImage()
	img.Secrets = "base64"
	var buf bytes.Buffer
	if err := img.WriteJSON(&buf); err == nil || buf.Len() != 0 {
		t.Fatalf("WriteJSON of Secrets %q: %v, wrote %q", img.Secrets, err, buf.String())
	}
}
