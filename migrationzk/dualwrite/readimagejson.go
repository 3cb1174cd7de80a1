package dualwrite

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

// SchemaVersionError is ReadImageJSON's error for an image JSON whose
// schema_version is not one it reads (1 to ImageSchemaVersion), or that
// does not start with one.
type SchemaVersionError struct {
	// Found is the JSON text of the schema_version found, such as "2";
	// "" when the object does not start with one.
	Found string
}

func (e *SchemaVersionError) Error() string {
	if e.Found == "" {
		return fmt.Sprintf("dualwrite: image JSON: no %q as the first key (this reads versions %d to %d)", keySchemaVersion, oldestImageSchemaVersion, ImageSchemaVersion)
	}
	found := e.Found
	if len(found) > 40 {
		found = found[:40] + "..."
	}
	return fmt.Sprintf("dualwrite: image JSON: %s %s, this reads versions %d to %d", keySchemaVersion, found, oldestImageSchemaVersion, ImageSchemaVersion)
}

// ImageJSONError is ReadImageJSON's error for input that is not an image
// JSON: malformed or truncated JSON, a value of the wrong type, an entry
// twice in one domain. It unwraps to the cause (io.ErrUnexpectedEOF for
// truncated input, a *json.SyntaxError, a *znode.DecodeError for a bad
// topic id...).
type ImageJSONError struct {
	// Offset is the byte offset in the input after the last value read
	// whole: where the faulty value starts, or an offset in it.
	Offset int64
	// Where is the part being read, such as "topics[3]"; "" for the
	// top-level object.
	Where string
	Err   error
}

func (e *ImageJSONError) Error() string {
	where := ""
	if e.Where != "" {
		where = " " + e.Where
	}
	return fmt.Sprintf("dualwrite: image JSON at byte %d%s: %v", e.Offset, where, e.Err)
}

func (e *ImageJSONError) Unwrap() error { return e.Err }

// errDuplicate is the cause of an ImageJSONError for an entry twice in a
// domain.
var errDuplicate = errors.New("duplicate entry")

// ReadImageJSON reads an Image written by WriteJSON from r, a domain
// element at a time. The object must start with a "schema_version" from 1
// to ImageSchemaVersion, else the error is a *SchemaVersionError; keys it
// does not know are skipped, missing domains are empty. The Image's
// Secrets is what "redacted" and "passwords" record, SecretsUnrecorded
// where they are absent (versions 1 and 2); reading never refuses a
// secret, redacted or not (writing does, see SecretError). Anything else
// wrong with the input, including data after the object and a "redacted"
// image that names a "passwords" form, is an *ImageJSONError. An undecodable znode's Err is an error with the text
// the export recorded (nil for ""); an empty undecodable list reads as
// nil. It never panics.
func ReadImageJSON(r io.Reader) (Image, error) {
	d := &imageDecoder{dec: json.NewDecoder(r), img: NewImage(), seen: map[string]bool{}}
	if err := d.object(); err != nil {
		return Image{}, err
	}
	if d.redacted {
		d.img.Secrets = SecretsRedacted
	}
	return d.img, nil
}

// imageDecoder reads an Image from JSON tokens.
type imageDecoder struct {
	dec   *json.Decoder
	img   Image
	where string
	seen  map[string]bool // top-level keys read
	// version is the schema_version read.
	version int
	// redacted is the "redacted" read; the "passwords" read is in
	// img.Secrets.
	redacted bool
}

// fail returns an *ImageJSONError at the current offset; io.EOF becomes
// io.ErrUnexpectedEOF.
func (d *imageDecoder) fail(err error) error {
	var sv *SchemaVersionError
	var ie *ImageJSONError
	if errors.As(err, &sv) || errors.As(err, &ie) {
		return err
	}
	if errors.Is(err, io.EOF) {
		err = io.ErrUnexpectedEOF
	}
	return &ImageJSONError{Offset: d.dec.InputOffset(), Where: d.where, Err: err}
}

// delim reads the delimiter want.
func (d *imageDecoder) delim(want json.Delim) error {
	tok, err := d.dec.Token()
	if err != nil {
		return d.fail(err)
	}
	if got, ok := tok.(json.Delim); !ok || got != want {
		return d.fail(fmt.Errorf("got %s, want %q", describeToken(tok), string(want)))
	}
	return nil
}

// describeToken names a JSON token for an error.
func describeToken(tok json.Token) string {
	switch v := tok.(type) {
	case json.Delim:
		return strconv.Quote(string(v))
	case string:
		return "string " + strconv.Quote(v)
	case nil:
		return "null"
	}
	return fmt.Sprintf("%T %v", tok, tok)
}

// object reads the top-level object and checks that nothing follows it.
func (d *imageDecoder) object() error {
	if err := d.delim('{'); err != nil {
		return err
	}
	if err := d.schemaVersion(); err != nil {
		return err
	}
	for d.dec.More() {
		if err := d.member(); err != nil {
			return err
		}
	}
	d.where = ""
	if d.redacted && d.img.Secrets != SecretsUnrecorded {
		return d.fail(fmt.Errorf("%q true with %q %q: a redacted image holds no password form", keyRedacted, keyPasswords, d.img.Secrets))
	}
	if err := d.delim('}'); err != nil {
		return err
	}
	if tok, err := d.dec.Token(); !errors.Is(err, io.EOF) {
		if err == nil {
			err = fmt.Errorf("%s after the object", describeToken(tok))
		}
		return d.fail(err)
	}
	return nil
}

// schemaVersion reads the first member, which must be the schema version
// this reads.
func (d *imageDecoder) schemaVersion() error {
	if !d.dec.More() {
		return &SchemaVersionError{}
	}
	tok, err := d.dec.Token()
	if err != nil {
		return d.fail(err)
	}
	if tok != keySchemaVersion {
		return &SchemaVersionError{}
	}
	var raw json.RawMessage
	if err := d.dec.Decode(&raw); err != nil {
		return d.fail(err)
	}
	for v := oldestImageSchemaVersion; v <= ImageSchemaVersion; v++ {
		if string(raw) == strconv.Itoa(v) {
			d.version = v
			return nil
		}
	}
	return &SchemaVersionError{Found: string(raw)}
}

// member reads one member of the top-level object after the version.
func (d *imageDecoder) member() error {
	d.where = ""
	tok, err := d.dec.Token()
	if err != nil {
		return d.fail(err)
	}
	key, _ := tok.(string) // a key is always a string
	d.where = key
	if d.seen[key] {
		return d.fail(fmt.Errorf("%w: key %q twice", errDuplicate, key))
	}
	d.seen[key] = true
	switch key {
	case keySchemaVersion:
		return d.fail(fmt.Errorf("%w: key %q twice", errDuplicate, key))
	case keyTopics:
		return readList(d, d.addTopic)
	case keyConfigs:
		return readList(d, d.addConfig)
	case keyClientQuotas:
		return readList(d, d.addQuota)
	case keyScram:
		return readList(d, d.addScram)
	case keyACLs:
		return readList(d, d.addACLs)
	case keyDelegationTokens:
		return readList(d, d.addToken)
	case keyUndecodable:
		return readList(d, d.addUndecodable)
	case keyProducerIDBlock:
		return d.producerID()
	case keyRedacted:
		return d.redactedFlag()
	case keyPasswords:
		return d.passwords()
	}
	return d.skip() // a key of a later revision of this version
}

// skip reads a value and drops it, a token at a time.
func (d *imageDecoder) skip() error {
	depth := 0
	for {
		tok, err := d.dec.Token()
		if err != nil {
			return d.fail(err)
		}
		switch tok {
		case json.Delim('{'), json.Delim('['):
			depth++
		case json.Delim('}'), json.Delim(']'):
			depth--
		}
		if depth == 0 {
			return nil
		}
	}
}

// readList reads a list (or null, an empty one), adding each element with
// add.
func readList[T any](d *imageDecoder, add func(T) error) error {
	key := d.where
	tok, err := d.dec.Token()
	if err != nil {
		return d.fail(err)
	}
	if tok == nil {
		return nil
	}
	if got, ok := tok.(json.Delim); !ok || got != '[' {
		return d.fail(fmt.Errorf("got %s, want a list", describeToken(tok)))
	}
	for i := 0; d.dec.More(); i++ {
		d.where = fmt.Sprintf("%s[%d]", key, i)
		var elem *T
		if err := d.dec.Decode(&elem); err != nil {
			return d.fail(err)
		}
		if elem == nil {
			return d.fail(errors.New("null element"))
		}
		if err := add(*elem); err != nil {
			return d.fail(err)
		}
	}
	d.where = key
	return d.delim(']')
}

// redactedFlag reads whether the image is redacted: true or false.
func (d *imageDecoder) redactedFlag() error {
	var redacted *bool
	if err := d.dec.Decode(&redacted); err != nil {
		return d.fail(err)
	}
	if redacted == nil {
		return d.fail(errors.New("got null, want true or false"))
	}
	d.redacted = *redacted
	return nil
}

// passwords reads the form of the password values, null for none
// recorded.
func (d *imageDecoder) passwords() error {
	var form *SecretForm
	if err := d.dec.Decode(&form); err != nil {
		return d.fail(err)
	}
	switch {
	case form == nil:
	case *form == SecretsPlain || *form == SecretsEncoded:
		d.img.Secrets = *form
	default:
		return d.fail(fmt.Errorf("got %q, want %q, %q or null", *form, SecretsPlain, SecretsEncoded))
	}
	return nil
}

// producerID reads the producer id block, null for none.
func (d *imageDecoder) producerID() error {
	var b *producerIDJSON
	if err := d.dec.Decode(&b); err != nil {
		return d.fail(err)
	}
	if b != nil {
		d.img.ProducerIDBlock = &znode.ProducerIDBlock{BrokerID: b.BrokerID, BlockStart: b.BlockStart, BlockEnd: b.BlockEnd}
	}
	return nil
}

// addTopic adds a topic read from its JSON form.
func (d *imageDecoder) addTopic(tj topicJSON) error {
	if _, dup := d.img.Topics[tj.Name]; dup {
		return fmt.Errorf("%w: topic %q", errDuplicate, tj.Name)
	}
	t := Topic{Name: tj.Name, Partitions: make(map[int32]Partition, len(tj.Partitions))}
	if tj.ID != "" {
		id, err := znode.ParseUuid(tj.ID)
		if err != nil {
			return fmt.Errorf("topic %q: id: %w", tj.Name, err)
		}
		t.ID = id
	}
	for _, pj := range tj.Partitions {
		if pj.ID == nil {
			return fmt.Errorf("topic %q: a partition without an id", tj.Name)
		}
		if _, dup := t.Partitions[*pj.ID]; dup {
			return fmt.Errorf("%w: topic %q partition %d", errDuplicate, tj.Name, *pj.ID)
		}
		if d.version == 1 && pj.Replicas == nil {
			// Version 1's form of a partition outside the assignment.
			tj.Unassigned = append(tj.Unassigned, unassignedJSON{ID: pj.ID, State: pj.State})
			continue
		}
		t.Partitions[*pj.ID] = partitionFromJSON(pj)
	}
	if err := addUnassignedJSON(&t, tj.Unassigned); err != nil {
		return err
	}
	d.img.Topics[t.Name] = t
	return nil
}

// addUnassignedJSON adds to t its partitions outside the assignment, read
// from their JSON form.
func addUnassignedJSON(t *Topic, ujs []unassignedJSON) error {
	for _, uj := range ujs {
		if uj.ID == nil {
			return fmt.Errorf("topic %q: an unassigned partition without an id", t.Name)
		}
		_, assigned := t.Partitions[*uj.ID]
		if _, dup := t.Unassigned[*uj.ID]; dup || assigned {
			return fmt.Errorf("%w: topic %q partition %d", errDuplicate, t.Name, *uj.ID)
		}
		if t.Unassigned == nil {
			t.Unassigned = map[int32]UnassignedPartition{}
		}
		var u UnassignedPartition
		if s := uj.State; s != nil {
			u.State = &PartitionState{Leader: s.Leader, LeaderEpoch: s.LeaderEpoch, ISR: s.ISR, LeaderRecoveryState: s.LeaderRecoveryState}
		}
		t.Unassigned[*uj.ID] = u
	}
	return nil
}

// partitionFromJSON is the partition of a JSON form.
func partitionFromJSON(pj partitionJSON) Partition {
	p := Partition{Replicas: pj.Replicas, noState: pj.State == nil}
	if pj.AddingReplicas != nil {
		p.AddingReplicas = *pj.AddingReplicas
	}
	if pj.RemovingReplicas != nil {
		p.RemovingReplicas = *pj.RemovingReplicas
	}
	if s := pj.State; s != nil {
		p.State = PartitionState{Leader: s.Leader, LeaderEpoch: s.LeaderEpoch, ISR: s.ISR, LeaderRecoveryState: s.LeaderRecoveryState}
	}
	return p
}

// addConfig adds a config resource's configs.
func (d *imageDecoder) addConfig(cj configJSON) error {
	r := ConfigResource{Type: cj.Type, Name: cj.Name}
	if _, dup := d.img.Configs[r]; dup {
		return fmt.Errorf("%w: config resource %s %q", errDuplicate, r.Type, r.Name)
	}
	d.img.Configs[r] = cj.Configs
	return nil
}

// addQuota adds an entity's quotas.
func (d *imageDecoder) addQuota(qj quotaJSON) error {
	e := QuotaEntity(qj.Entity)
	if _, dup := d.img.ClientQuotas[e]; dup {
		return fmt.Errorf("%w: quota entity %+v", errDuplicate, e)
	}
	d.img.ClientQuotas[e] = qj.Quotas
	return nil
}

// addScram adds a user's SCRAM credentials.
func (d *imageDecoder) addScram(sj scramJSON) error {
	if _, dup := d.img.Scram[sj.User]; dup {
		return fmt.Errorf("%w: SCRAM user %q", errDuplicate, sj.User)
	}
	var creds map[string]znode.ScramCredential
	if sj.Credentials != nil {
		creds = make(map[string]znode.ScramCredential, len(sj.Credentials))
	}
	for m, c := range sj.Credentials {
		creds[m] = znode.ScramCredential(c)
	}
	d.img.Scram[sj.User] = creds
	return nil
}

// addACLs adds a resource pattern's ACL set.
func (d *imageDecoder) addACLs(aj aclJSON) error {
	p := ResourcePattern{Type: aj.ResourceType, Name: aj.Name, PatternType: aj.PatternType}
	if _, dup := d.img.ACLs[p]; dup {
		return fmt.Errorf("%w: resource pattern %s %s %q", errDuplicate, p.PatternType, p.Type, p.Name)
	}
	var entries []znode.ACLEntry
	if aj.Entries != nil {
		entries = make([]znode.ACLEntry, len(aj.Entries))
	}
	for i, e := range aj.Entries {
		entries[i] = znode.ACLEntry(e)
	}
	d.img.ACLs[p] = entries
	return nil
}

// addToken adds a delegation token.
func (d *imageDecoder) addToken(tj tokenJSON) error {
	if _, dup := d.img.DelegationTokens[tj.ID]; dup {
		return fmt.Errorf("%w: delegation token %q", errDuplicate, tj.ID)
	}
	t := znode.DelegationToken{TokenID: tj.ID, Owner: tj.Owner, TokenRequester: tj.TokenRequester, Renewers: tj.Renewers,
		IssueTimestamp: tj.IssueTimestamp, MaxTimestamp: tj.MaxTimestamp, ExpiryTimestamp: tj.ExpiryTimestamp}
	if tj.TokenID != nil {
		t.TokenID = *tj.TokenID
	}
	d.img.DelegationTokens[tj.ID] = t
	return nil
}

// addUndecodable adds an undecodable znode.
func (d *imageDecoder) addUndecodable(uj undecodableJSON) error {
	u := UndecodableZnode{Path: uj.Path}
	if uj.Error != "" {
		u.Err = errors.New(uj.Error)
	}
	d.img.Undecodable = append(d.img.Undecodable, u)
	return nil
}
