package kraftlog

// FeatureLevelRecord sets a feature's finalized level; metadata.version
// is one of them.
type FeatureLevelRecord struct {
	Name         string           `kafka:"name"`
	FeatureLevel int16            `kafka:"featureLevel"`
	Unknown      []RawTaggedField `kafka:"-"`
}

// Type returns FeatureLevelRecordType.
func (*FeatureLevelRecord) Type() RecordType { return FeatureLevelRecordType }

func (m *FeatureLevelRecord) decode(r *reader, _ int16) {
	*m = FeatureLevelRecord{Name: r.string("Name"), FeatureLevel: r.int16("FeatureLevel")}
	m.Unknown = r.unknownOnly(nil)
}

func (m *FeatureLevelRecord) appendBody(dst []byte, _ int16) ([]byte, error) {
	w := writer{b: dst}
	w.string(m.Name)
	w.int16(m.FeatureLevel)
	w.noTags(m.Unknown)
	return w.b, nil
}

// ZkMigrationStateRecord sets the ZooKeeper migration state: 0 NONE, 1
// MIGRATION, 2 PRE_MIGRATION, 3 POST_MIGRATION, 4 ZK.
type ZkMigrationStateRecord struct {
	ZkMigrationState int8             `kafka:"zkMigrationState"`
	Unknown          []RawTaggedField `kafka:"-"`
}

// Type returns ZkMigrationStateRecordType.
func (*ZkMigrationStateRecord) Type() RecordType { return ZkMigrationStateRecordType }

func (m *ZkMigrationStateRecord) decode(r *reader, _ int16) {
	*m = ZkMigrationStateRecord{ZkMigrationState: r.int8("ZkMigrationState")}
	m.Unknown = r.unknownOnly(nil)
}

func (m *ZkMigrationStateRecord) appendBody(dst []byte, _ int16) ([]byte, error) {
	w := writer{b: dst}
	w.int8(m.ZkMigrationState)
	w.noTags(m.Unknown)
	return w.b, nil
}

// ProducerIdsRecord hands a block of producer ids to a broker: the next
// block starts at NextProducerId.
type ProducerIdsRecord struct {
	BrokerID       int32            `kafka:"brokerId"`
	BrokerEpoch    int64            `kafka:"brokerEpoch"`
	NextProducerID int64            `kafka:"nextProducerId"`
	Unknown        []RawTaggedField `kafka:"-"`
}

// Type returns ProducerIdsRecordType.
func (*ProducerIdsRecord) Type() RecordType { return ProducerIdsRecordType }

func (m *ProducerIdsRecord) decode(r *reader, _ int16) {
	*m = ProducerIdsRecord{BrokerID: r.int32("BrokerId"), BrokerEpoch: r.int64("BrokerEpoch"), NextProducerID: r.int64("NextProducerId")}
	m.Unknown = r.unknownOnly(nil)
}

func (m *ProducerIdsRecord) appendBody(dst []byte, _ int16) ([]byte, error) {
	w := writer{b: dst}
	w.int32(m.BrokerID)
	w.int64(m.BrokerEpoch)
	w.int64(m.NextProducerID)
	w.noTags(m.Unknown)
	return w.b, nil
}

// NoOpRecord advances the log and holds nothing.
type NoOpRecord struct {
	Unknown []RawTaggedField `kafka:"-"`
}

// Type returns NoOpRecordType.
func (*NoOpRecord) Type() RecordType { return NoOpRecordType }

func (m *NoOpRecord) decode(r *reader, _ int16) { m.Unknown = r.unknownOnly(nil) }

func (m *NoOpRecord) appendBody(dst []byte, _ int16) ([]byte, error) {
	w := writer{b: dst}
	w.noTags(m.Unknown)
	return w.b, nil
}

// BeginTransactionRecord begins a metadata transaction; Name is tag 0,
// nil when absent.
type BeginTransactionRecord struct {
	Name    *string          `kafka:"name,tag=0,nullable"`
	Unknown []RawTaggedField `kafka:"-"`
}

// Type returns BeginTransactionRecordType.
func (*BeginTransactionRecord) Type() RecordType { return BeginTransactionRecordType }

func (m *BeginTransactionRecord) decode(r *reader, _ int16) {
	*m = BeginTransactionRecord{}
	for i, n := 0, r.tagCount(); i < n && r.ok(); i++ {
		tag, size := r.tag()
		if tag == 0 {
			m.Name = r.nstring("Name")
		} else {
			m.Unknown = r.unknownTag(m.Unknown, tag, size)
		}
	}
}

func (m *BeginTransactionRecord) appendBody(dst []byte, _ int16) ([]byte, error) {
	w := writer{b: dst}
	w.tagged([]taggedField{{0, m.Name != nil, func(w *writer) { w.nstring(m.Name) }}}, m.Unknown)
	return w.b, nil
}

// EndTransactionRecord ends a metadata transaction, which then applies.
type EndTransactionRecord struct {
	Unknown []RawTaggedField `kafka:"-"`
}

// Type returns EndTransactionRecordType.
func (*EndTransactionRecord) Type() RecordType { return EndTransactionRecordType }

func (m *EndTransactionRecord) decode(r *reader, _ int16) { m.Unknown = r.unknownOnly(nil) }

func (m *EndTransactionRecord) appendBody(dst []byte, _ int16) ([]byte, error) {
	w := writer{b: dst}
	w.noTags(m.Unknown)
	return w.b, nil
}

// AbortTransactionRecord aborts a metadata transaction, which then never
// applies; Reason is tag 0, nil when absent.
type AbortTransactionRecord struct {
	Reason  *string          `kafka:"reason,tag=0,nullable"`
	Unknown []RawTaggedField `kafka:"-"`
}

// Type returns AbortTransactionRecordType.
func (*AbortTransactionRecord) Type() RecordType { return AbortTransactionRecordType }

func (m *AbortTransactionRecord) decode(r *reader, _ int16) {
	*m = AbortTransactionRecord{}
	for i, n := 0, r.tagCount(); i < n && r.ok(); i++ {
		tag, size := r.tag()
		if tag == 0 {
			m.Reason = r.nstring("Reason")
		} else {
			m.Unknown = r.unknownTag(m.Unknown, tag, size)
		}
	}
}

func (m *AbortTransactionRecord) appendBody(dst []byte, _ int16) ([]byte, error) {
	w := writer{b: dst}
	w.tagged([]taggedField{{0, m.Reason != nil, func(w *writer) { w.nstring(m.Reason) }}}, m.Unknown)
	return w.b, nil
}
