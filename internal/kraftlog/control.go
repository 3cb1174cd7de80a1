package kraftlog

import "encoding/binary"

// ControlType is the type of a control record, from its key.
type ControlType int16

// The control record types of Kafka 3.9 (ControlRecordType).
const (
	ControlAbort          ControlType = 0
	ControlCommit         ControlType = 1
	ControlLeaderChange   ControlType = 2
	ControlSnapshotHeader ControlType = 3
	ControlSnapshotFooter ControlType = 4
	ControlKRaftVersion   ControlType = 5
	ControlKRaftVoters    ControlType = 6
)

var controlNames = [...]string{"ABORT", "COMMIT", "LEADER_CHANGE", "SNAPSHOT_HEADER", "SNAPSHOT_FOOTER", "KRAFT_VERSION", "KRAFT_VOTERS"}

// String returns Kafka's name of t, "LEADER_CHANGE"; "UNKNOWN(n)" for
// another.
func (t ControlType) String() string {
	if t >= 0 && int(t) < len(controlNames) {
		return controlNames[t]
	}
	return "UNKNOWN(" + itoa(int(t)) + ")"
}

// ControlMessage is the value of a control record.
type ControlMessage interface {
	ControlType() ControlType
	decode(r *reader)
	appendBody(dst []byte) []byte
}

// ParseControlKey reads a control record's key as ControlRecordType
// does: at least four bytes, a version that is not negative (any other is
// read as version 0), then the type.
func ParseControlKey(key []byte) (ControlType, error) {
	if len(key) < 4 {
		return 0, errorf(ErrCorrupt, "control record key of %d bytes: must have at least 4", len(key))
	}
	if v := int16(binary.BigEndian.Uint16(key)); v < 0 {
		return 0, errorf(ErrCorrupt, "invalid control record key version %d", v)
	}
	return ControlType(binary.BigEndian.Uint16(key[2:])), nil
}

// DecodeControl decodes a control record as Kafka's Raft reader does:
// leader changes, snapshot headers and footers, kraft.version and voter
// sets, each at version 0 of its schema, bytes after the body ignored as
// Kafka ignores them. ABORT, COMMIT and unknown types are refused, as
// Kafka refuses them in the metadata log.
func DecodeControl(key, value []byte, al *Alloc) (ControlMessage, error) {
	t, err := ParseControlKey(key)
	if err != nil {
		return nil, err
	}
	var m ControlMessage
	switch t {
	case ControlLeaderChange:
		m = new(LeaderChangeMessage)
	case ControlSnapshotHeader:
		m = new(SnapshotHeaderRecord)
	case ControlSnapshotFooter:
		m = new(SnapshotFooterRecord)
	case ControlKRaftVersion:
		m = new(KRaftVersionRecord)
	case ControlKRaftVoters:
		m = new(VotersRecord)
	default:
		return nil, errorf(ErrUnknownType, "control record type %s is not valid in the metadata log", t)
	}
	r := reader{b: value, al: al}
	m.decode(&r)
	if r.err != nil {
		return nil, r.err
	}
	return m, nil
}

// AppendControlKey appends the key of a control record of type t.
func AppendControlKey(dst []byte, t ControlType) []byte {
	dst = binary.BigEndian.AppendUint16(dst, 0)
	return binary.BigEndian.AppendUint16(dst, uint16(t))
}

// AppendControlValue appends m's value at version 0 of its schema.
func AppendControlValue(dst []byte, m ControlMessage) []byte { return m.appendBody(dst) }

// LeaderChangeMessage starts a leader epoch: the leader, the voters and
// those that voted for it.
type LeaderChangeMessage struct {
	Version        int16            `kafka:"version"`
	LeaderID       int32            `kafka:"leaderId"`
	Voters         []Voter          `kafka:"voters"`
	GrantingVoters []Voter          `kafka:"grantingVoters"`
	Unknown        []RawTaggedField `kafka:"-"`
}

// Voter is a voter of a leader change.
type Voter struct {
	VoterID int32            `kafka:"voterId"`
	Unknown []RawTaggedField `kafka:"-"`
}

// ControlType returns ControlLeaderChange.
func (*LeaderChangeMessage) ControlType() ControlType { return ControlLeaderChange }

func (m *LeaderChangeMessage) decode(r *reader) {
	*m = LeaderChangeMessage{Version: r.int16("Version"), LeaderID: r.int32("LeaderId")}
	m.Voters = readVoters(r, "Voters")
	m.GrantingVoters = readVoters(r, "GrantingVoters")
	m.Unknown = r.unknownOnly(nil)
}

func readVoters(r *reader, what string) []Voter {
	n := r.length(what, false, 5)
	if n < 0 {
		return nil
	}
	out := make([]Voter, 0, min(n, 16))
	for i := 0; i < n && r.ok(); i++ {
		v := Voter{VoterID: r.int32("VoterId")}
		v.Unknown = r.unknownOnly(nil)
		out = append(out, v)
	}
	return out
}

func (m *LeaderChangeMessage) appendBody(dst []byte) []byte {
	w := writer{b: dst}
	w.int16(m.Version)
	w.int32(m.LeaderID)
	for _, vs := range [][]Voter{m.Voters, m.GrantingVoters} {
		w.uvarint(len(vs) + 1)
		for _, v := range vs {
			w.int32(v.VoterID)
			w.noTags(v.Unknown)
		}
	}
	w.noTags(m.Unknown)
	return w.b
}

// SnapshotHeaderRecord starts a snapshot.
type SnapshotHeaderRecord struct {
	Version                   int16            `kafka:"version"`
	LastContainedLogTimestamp int64            `kafka:"lastContainedLogTimestamp"`
	Unknown                   []RawTaggedField `kafka:"-"`
}

// ControlType returns ControlSnapshotHeader.
func (*SnapshotHeaderRecord) ControlType() ControlType { return ControlSnapshotHeader }

func (m *SnapshotHeaderRecord) decode(r *reader) {
	*m = SnapshotHeaderRecord{Version: r.int16("Version"), LastContainedLogTimestamp: r.int64("LastContainedLogTimestamp")}
	m.Unknown = r.unknownOnly(nil)
}

func (m *SnapshotHeaderRecord) appendBody(dst []byte) []byte {
	w := writer{b: dst}
	w.int16(m.Version)
	w.int64(m.LastContainedLogTimestamp)
	w.noTags(m.Unknown)
	return w.b
}

// SnapshotFooterRecord ends a snapshot.
type SnapshotFooterRecord struct {
	Version int16            `kafka:"version"`
	Unknown []RawTaggedField `kafka:"-"`
}

// ControlType returns ControlSnapshotFooter.
func (*SnapshotFooterRecord) ControlType() ControlType { return ControlSnapshotFooter }

func (m *SnapshotFooterRecord) decode(r *reader) {
	*m = SnapshotFooterRecord{Version: r.int16("Version")}
	m.Unknown = r.unknownOnly(nil)
}

func (m *SnapshotFooterRecord) appendBody(dst []byte) []byte {
	w := writer{b: dst}
	w.int16(m.Version)
	w.noTags(m.Unknown)
	return w.b
}

// KRaftVersionRecord sets kraft.version (KIP-853).
type KRaftVersionRecord struct {
	Version      int16            `kafka:"version"`
	KRaftVersion int16            `kafka:"kRaftVersion"`
	Unknown      []RawTaggedField `kafka:"-"`
}

// ControlType returns ControlKRaftVersion.
func (*KRaftVersionRecord) ControlType() ControlType { return ControlKRaftVersion }

func (m *KRaftVersionRecord) decode(r *reader) {
	*m = KRaftVersionRecord{Version: r.int16("Version"), KRaftVersion: r.int16("KRaftVersion")}
	m.Unknown = r.unknownOnly(nil)
}

func (m *KRaftVersionRecord) appendBody(dst []byte) []byte {
	w := writer{b: dst}
	w.int16(m.Version)
	w.int16(m.KRaftVersion)
	w.noTags(m.Unknown)
	return w.b
}

// VotersRecord sets the voters of a dynamic quorum (KIP-853).
type VotersRecord struct {
	Version int16            `kafka:"version"`
	Voters  []VoterNode      `kafka:"voters"`
	Unknown []RawTaggedField `kafka:"-"`
}

// VoterNode is a voter of a VotersRecord.
type VoterNode struct {
	VoterID             int32            `kafka:"voterId"`
	VoterDirectoryID    Uuid             `kafka:"voterDirectoryId"`
	Endpoints           []VoterEndpoint  `kafka:"endpoints"`
	KRaftVersionFeature VersionRange     `kafka:"kRaftVersionFeature"`
	Unknown             []RawTaggedField `kafka:"-"`
}

// VoterEndpoint is a listener of a voter.
type VoterEndpoint struct {
	Name    string           `kafka:"name"`
	Host    string           `kafka:"host"`
	Port    uint16           `kafka:"port"`
	Unknown []RawTaggedField `kafka:"-"`
}

// VersionRange is the range of kraft.version a voter supports.
type VersionRange struct {
	MinSupportedVersion int16            `kafka:"minSupportedVersion"`
	MaxSupportedVersion int16            `kafka:"maxSupportedVersion"`
	Unknown             []RawTaggedField `kafka:"-"`
}

// ControlType returns ControlKRaftVoters.
func (*VotersRecord) ControlType() ControlType { return ControlKRaftVoters }

func (m *VotersRecord) decode(r *reader) {
	*m = VotersRecord{Version: r.int16("Version")}
	if n := r.arrayLen("Voters"); n >= 0 {
		m.Voters = make([]VoterNode, 0, min(n, 16))
		for i := 0; i < n && r.ok(); i++ {
			v := VoterNode{VoterID: r.int32("VoterId"), VoterDirectoryID: r.uuid("VoterDirectoryId")}
			if k := r.arrayLen("Endpoints"); k >= 0 {
				v.Endpoints = make([]VoterEndpoint, 0, min(k, 8))
				for j := 0; j < k && r.ok(); j++ {
					e := VoterEndpoint{Name: r.string("Name"), Host: r.string("Host"), Port: r.uint16("Port")}
					e.Unknown = r.unknownOnly(nil)
					v.Endpoints = append(v.Endpoints, e)
				}
			}
			v.KRaftVersionFeature = VersionRange{MinSupportedVersion: r.int16("MinSupportedVersion"), MaxSupportedVersion: r.int16("MaxSupportedVersion")}
			v.KRaftVersionFeature.Unknown = r.unknownOnly(nil)
			v.Unknown = r.unknownOnly(nil)
			m.Voters = append(m.Voters, v)
		}
	}
	m.Unknown = r.unknownOnly(nil)
}

func (m *VotersRecord) appendBody(dst []byte) []byte {
	w := writer{b: dst}
	w.int16(m.Version)
	w.uvarint(len(m.Voters) + 1)
	for _, v := range m.Voters {
		w.int32(v.VoterID)
		w.uuid(v.VoterDirectoryID)
		w.uvarint(len(v.Endpoints) + 1)
		for _, e := range v.Endpoints {
			w.string(e.Name)
			w.string(e.Host)
			w.uint16(e.Port)
			w.noTags(e.Unknown)
		}
		w.int16(v.KRaftVersionFeature.MinSupportedVersion)
		w.int16(v.KRaftVersionFeature.MaxSupportedVersion)
		w.noTags(v.KRaftVersionFeature.Unknown)
		w.noTags(v.Unknown)
	}
	w.noTags(m.Unknown)
	return w.b
}
