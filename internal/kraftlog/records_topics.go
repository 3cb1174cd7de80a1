package kraftlog

// TopicRecord creates a topic: its name and id.
type TopicRecord struct {
	Name    string           `kafka:"name"`
	TopicID Uuid             `kafka:"topicId"`
	Unknown []RawTaggedField `kafka:"-"`
}

// Type returns TopicRecordType.
func (*TopicRecord) Type() RecordType { return TopicRecordType }

func (m *TopicRecord) decode(r *reader, _ int16) {
	*m = TopicRecord{Name: r.string("Name"), TopicID: r.uuid("TopicId")}
	m.Unknown = r.unknownOnly(m.Unknown)
}

func (m *TopicRecord) appendBody(dst []byte, _ int16) ([]byte, error) {
	w := writer{b: dst}
	w.string(m.Name)
	w.uuid(m.TopicID)
	w.noTags(m.Unknown)
	return w.b, nil
}

// RemoveTopicRecord deletes a topic, by id.
type RemoveTopicRecord struct {
	TopicID Uuid             `kafka:"topicId"`
	Unknown []RawTaggedField `kafka:"-"`
}

// Type returns RemoveTopicRecordType.
func (*RemoveTopicRecord) Type() RecordType { return RemoveTopicRecordType }

func (m *RemoveTopicRecord) decode(r *reader, _ int16) {
	*m = RemoveTopicRecord{TopicID: r.uuid("TopicId")}
	m.Unknown = r.unknownOnly(m.Unknown)
}

func (m *RemoveTopicRecord) appendBody(dst []byte, _ int16) ([]byte, error) {
	w := writer{b: dst}
	w.uuid(m.TopicID)
	w.noTags(m.Unknown)
	return w.b, nil
}

// PartitionRecord is a partition in full, versions 0 to 2: version 1
// adds Directories (KIP-858), version 2 the eligible leader replicas
// (KIP-966).
type PartitionRecord struct {
	PartitionID      int32   `kafka:"partitionId"`
	TopicID          Uuid    `kafka:"topicId"`
	Replicas         []int32 `kafka:"replicas"`
	Isr              []int32 `kafka:"isr"`
	RemovingReplicas []int32 `kafka:"removingReplicas"`
	AddingReplicas   []int32 `kafka:"addingReplicas"`
	Leader           int32   `kafka:"leader"`
	// LeaderRecoveryState is tag 0, default 0.
	LeaderRecoveryState int8   `kafka:"leaderRecoveryState,tag=0,default=0"`
	LeaderEpoch         int32  `kafka:"leaderEpoch"`
	PartitionEpoch      int32  `kafka:"partitionEpoch"`
	Directories         []Uuid `kafka:"directories,v1"`
	// EligibleLeaderReplicas and LastKnownElr are tags 1 and 2 of
	// version 2, nil for null (their default).
	EligibleLeaderReplicas []int32          `kafka:"eligibleLeaderReplicas,v2,tag=1,nullable"`
	LastKnownElr           []int32          `kafka:"lastKnownElr,v2,tag=2,nullable"`
	Unknown                []RawTaggedField `kafka:"-"`
}

// Type returns PartitionRecordType.
func (*PartitionRecord) Type() RecordType { return PartitionRecordType }

func (m *PartitionRecord) decode(r *reader, v int16) {
	var h PartitionHead
	if h.read(r.b[r.off:], v, false, r.al) {
		*m, r.off = h.record(r.b[r.off:], v, r.al), len(r.b)
		return
	}
	m.decodeFields(r, v)
}

// decodeFields decodes m field by field, as the schema lists them: the
// general way, which the common shape's takes a shortcut of.
func (m *PartitionRecord) decodeFields(r *reader, v int16) {
	*m = PartitionRecord{
		PartitionID:      r.int32("PartitionId"),
		TopicID:          r.uuid("TopicId"),
		Replicas:         r.int32s("Replicas", false),
		Isr:              r.int32s("Isr", false),
		RemovingReplicas: r.int32s("RemovingReplicas", false),
		AddingReplicas:   r.int32s("AddingReplicas", false),
		Leader:           r.int32("Leader"),
		LeaderEpoch:      r.int32("LeaderEpoch"),
		PartitionEpoch:   r.int32("PartitionEpoch"),
	}
	if v >= 1 {
		m.Directories = r.uuids("Directories", false)
	}
	for i, n := 0, r.tagCount(); i < n && r.ok(); i++ {
		tag, size := r.tag()
		switch {
		case tag == 0:
			m.LeaderRecoveryState = r.int8("LeaderRecoveryState")
		case (tag == 1 || tag == 2) && v < 2:
			r.invalidTag(tag, v)
		case tag == 1:
			m.EligibleLeaderReplicas = r.int32s("EligibleLeaderReplicas", true)
		case tag == 2:
			m.LastKnownElr = r.int32s("LastKnownElr", true)
		default:
			m.Unknown = r.unknownTag(m.Unknown, tag, size)
		}
	}
}

func (m *PartitionRecord) appendBody(dst []byte, v int16) ([]byte, error) {
	switch {
	case v < 1 && len(m.Directories) > 0:
		return dst, errorf(ErrUnknownVersion, "PartitionRecord version %d has no Directories", v)
	case v < 2 && (m.EligibleLeaderReplicas != nil || m.LastKnownElr != nil):
		return dst, errorf(ErrUnknownVersion, "PartitionRecord version %d has no eligible leader replicas", v)
	}
	w := writer{b: dst}
	w.int32(m.PartitionID)
	w.uuid(m.TopicID)
	w.int32s(m.Replicas, false)
	w.int32s(m.Isr, false)
	w.int32s(m.RemovingReplicas, false)
	w.int32s(m.AddingReplicas, false)
	w.int32(m.Leader)
	w.int32(m.LeaderEpoch)
	w.int32(m.PartitionEpoch)
	if v >= 1 {
		w.uuids(m.Directories, false)
	}
	w.tagged([]taggedField{
		{0, m.LeaderRecoveryState != 0, func(w *writer) { w.int8(m.LeaderRecoveryState) }},
		{1, m.EligibleLeaderReplicas != nil, func(w *writer) { w.int32s(m.EligibleLeaderReplicas, true) }},
		{2, m.LastKnownElr != nil, func(w *writer) { w.int32s(m.LastKnownElr, true) }},
	}, m.Unknown)
	return w.b, nil
}

// NoLeaderChange is PartitionChangeRecord's Leader when the leader does
// not change.
const NoLeaderChange = -2

// PartitionChangeRecord changes a partition: every field but the ids is
// tagged, and absent (null, NoLeaderChange, LeaderRecoveryState -1) when
// it does not change. Version 1 adds Directories (tag 8), version 2 the
// eligible leader replicas (tags 6 and 7).
type PartitionChangeRecord struct {
	PartitionID            int32            `kafka:"partitionId"`
	TopicID                Uuid             `kafka:"topicId"`
	Isr                    []int32          `kafka:"isr,tag=0,nullable"`
	Leader                 int32            `kafka:"leader,tag=1,default=-2"`
	Replicas               []int32          `kafka:"replicas,tag=2,nullable"`
	RemovingReplicas       []int32          `kafka:"removingReplicas,tag=3,nullable"`
	AddingReplicas         []int32          `kafka:"addingReplicas,tag=4,nullable"`
	LeaderRecoveryState    int8             `kafka:"leaderRecoveryState,tag=5,default=-1"`
	Directories            []Uuid           `kafka:"directories,v1,tag=8,nullable"`
	EligibleLeaderReplicas []int32          `kafka:"eligibleLeaderReplicas,v2,tag=6,nullable"`
	LastKnownElr           []int32          `kafka:"lastKnownElr,v2,tag=7,nullable"`
	Unknown                []RawTaggedField `kafka:"-"`
}

// Type returns PartitionChangeRecordType.
func (*PartitionChangeRecord) Type() RecordType { return PartitionChangeRecordType }

func (m *PartitionChangeRecord) decode(r *reader, v int16) {
	*m = PartitionChangeRecord{
		PartitionID:         r.int32("PartitionId"),
		TopicID:             r.uuid("TopicId"),
		Leader:              NoLeaderChange,
		LeaderRecoveryState: -1,
	}
	for i, n := 0, r.tagCount(); i < n && r.ok(); i++ {
		tag, size := r.tag()
		switch {
		case tag == 0:
			m.Isr = r.int32s("Isr", true)
		case tag == 1:
			m.Leader = r.int32("Leader")
		case tag == 2:
			m.Replicas = r.int32s("Replicas", true)
		case tag == 3:
			m.RemovingReplicas = r.int32s("RemovingReplicas", true)
		case tag == 4:
			m.AddingReplicas = r.int32s("AddingReplicas", true)
		case tag == 5:
			m.LeaderRecoveryState = r.int8("LeaderRecoveryState")
		case tag == 8 && v < 1, (tag == 6 || tag == 7) && v < 2:
			r.invalidTag(tag, v)
		case tag == 8:
			m.Directories = r.uuids("Directories", true)
		case tag == 6:
			m.EligibleLeaderReplicas = r.int32s("EligibleLeaderReplicas", true)
		case tag == 7:
			m.LastKnownElr = r.int32s("LastKnownElr", true)
		default:
			m.Unknown = r.unknownTag(m.Unknown, tag, size)
		}
	}
}

func (m *PartitionChangeRecord) appendBody(dst []byte, v int16) ([]byte, error) {
	switch {
	case v < 1 && m.Directories != nil:
		return dst, errorf(ErrUnknownVersion, "PartitionChangeRecord version %d has no Directories", v)
	case v < 2 && (m.EligibleLeaderReplicas != nil || m.LastKnownElr != nil):
		return dst, errorf(ErrUnknownVersion, "PartitionChangeRecord version %d has no eligible leader replicas", v)
	}
	w := writer{b: dst}
	w.int32(m.PartitionID)
	w.uuid(m.TopicID)
	w.tagged([]taggedField{
		{0, m.Isr != nil, func(w *writer) { w.int32s(m.Isr, true) }},
		{1, m.Leader != NoLeaderChange, func(w *writer) { w.int32(m.Leader) }},
		{2, m.Replicas != nil, func(w *writer) { w.int32s(m.Replicas, true) }},
		{3, m.RemovingReplicas != nil, func(w *writer) { w.int32s(m.RemovingReplicas, true) }},
		{4, m.AddingReplicas != nil, func(w *writer) { w.int32s(m.AddingReplicas, true) }},
		{5, m.LeaderRecoveryState != -1, func(w *writer) { w.int8(m.LeaderRecoveryState) }},
		{6, m.EligibleLeaderReplicas != nil, func(w *writer) { w.int32s(m.EligibleLeaderReplicas, true) }},
		{7, m.LastKnownElr != nil, func(w *writer) { w.int32s(m.LastKnownElr, true) }},
		{8, m.Directories != nil, func(w *writer) { w.uuids(m.Directories, true) }},
	}, m.Unknown)
	return w.b, nil
}
