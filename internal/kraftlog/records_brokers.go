package kraftlog

// The records of brokers and controllers: a ZooKeeper image does not
// hold them, but they are read in full, so that what Kafka refuses is
// refused here too.

// RegisterBrokerRecord registers a broker, versions 0 to 3: version 1
// adds InControlledShutdown, 2 IsMigratingZkBroker, 3 LogDirs (tag 0).
type RegisterBrokerRecord struct {
	BrokerID             int32            `kafka:"brokerId"`
	IsMigratingZkBroker  bool             `kafka:"isMigratingZkBroker,v2"`
	IncarnationID        Uuid             `kafka:"incarnationId"`
	BrokerEpoch          int64            `kafka:"brokerEpoch"`
	EndPoints            []Endpoint       `kafka:"endPoints"`
	Features             []FeatureRange   `kafka:"features"`
	Rack                 *string          `kafka:"rack,nullable"`
	Fenced               bool             `kafka:"fenced"`
	InControlledShutdown bool             `kafka:"inControlledShutdown,v1"`
	LogDirs              []Uuid           `kafka:"logDirs,v3,tag=0"`
	Unknown              []RawTaggedField `kafka:"-"`
}

// Endpoint is a listener of a broker or controller.
type Endpoint struct {
	Name             string           `kafka:"name"`
	Host             string           `kafka:"host"`
	Port             uint16           `kafka:"port"`
	SecurityProtocol int16            `kafka:"securityProtocol"`
	Unknown          []RawTaggedField `kafka:"-"`
}

// FeatureRange is a feature a broker or controller supports.
type FeatureRange struct {
	Name                string           `kafka:"name"`
	MinSupportedVersion int16            `kafka:"minSupportedVersion"`
	MaxSupportedVersion int16            `kafka:"maxSupportedVersion"`
	Unknown             []RawTaggedField `kafka:"-"`
}

// Type returns RegisterBrokerRecordType.
func (*RegisterBrokerRecord) Type() RecordType { return RegisterBrokerRecordType }

func (m *RegisterBrokerRecord) decode(r *reader, v int16) {
	*m = RegisterBrokerRecord{BrokerID: r.int32("BrokerId"), Fenced: true}
	if v >= 2 {
		m.IsMigratingZkBroker = r.bool("IsMigratingZkBroker")
	}
	m.IncarnationID = r.uuid("IncarnationId")
	m.BrokerEpoch = r.int64("BrokerEpoch")
	m.EndPoints = readEndpoints(r)
	m.Features = readFeatures(r)
	m.Rack = r.nstring("Rack")
	m.Fenced = r.bool("Fenced")
	if v >= 1 {
		m.InControlledShutdown = r.bool("InControlledShutdown")
	}
	m.LogDirs = []Uuid{}
	for i, n := 0, r.tagCount(); i < n && r.ok(); i++ {
		tag, size := r.tag()
		switch {
		case tag == 0 && v < 3:
			r.invalidTag(tag, v)
		case tag == 0:
			m.LogDirs = r.uuids("LogDirs", false)
		default:
			m.Unknown = r.unknownTag(m.Unknown, tag, size)
		}
	}
}

func (m *RegisterBrokerRecord) appendBody(dst []byte, v int16) ([]byte, error) {
	switch {
	case v < 1 && m.InControlledShutdown, v < 2 && m.IsMigratingZkBroker, v < 3 && len(m.LogDirs) > 0:
		return dst, errorf(ErrUnknownVersion, "RegisterBrokerRecord version %d cannot hold this record", v)
	}
	w := writer{b: dst}
	w.int32(m.BrokerID)
	if v >= 2 {
		w.bool(m.IsMigratingZkBroker)
	}
	w.uuid(m.IncarnationID)
	w.int64(m.BrokerEpoch)
	appendEndpoints(&w, m.EndPoints)
	appendFeatures(&w, m.Features)
	w.nstring(m.Rack)
	w.bool(m.Fenced)
	if v >= 1 {
		w.bool(m.InControlledShutdown)
	}
	w.tagged([]taggedField{{0, len(m.LogDirs) > 0, func(w *writer) { w.uuids(m.LogDirs, false) }}}, m.Unknown)
	return w.b, nil
}

// readEndpoints reads an array of endpoints with a security protocol.
func readEndpoints(r *reader) []Endpoint {
	n := r.arrayLen("EndPoints")
	if n < 0 {
		return nil
	}
	out := make([]Endpoint, 0, min(n, 8))
	for i := 0; i < n && r.ok(); i++ {
		e := Endpoint{Name: r.string("Name"), Host: r.string("Host"), Port: r.uint16("Port"), SecurityProtocol: r.int16("SecurityProtocol")}
		e.Unknown = r.unknownOnly(nil)
		out = append(out, e)
	}
	return out
}

// appendEndpoints appends endpoints.
func appendEndpoints(w *writer, es []Endpoint) {
	w.uvarint(len(es) + 1)
	for _, e := range es {
		w.string(e.Name)
		w.string(e.Host)
		w.uint16(e.Port)
		w.int16(e.SecurityProtocol)
		w.noTags(e.Unknown)
	}
}

// readFeatures reads an array of supported feature ranges.
func readFeatures(r *reader) []FeatureRange {
	n := r.arrayLen("Features")
	if n < 0 {
		return nil
	}
	out := make([]FeatureRange, 0, min(n, 8))
	for i := 0; i < n && r.ok(); i++ {
		f := FeatureRange{Name: r.string("Name"), MinSupportedVersion: r.int16("MinSupportedVersion"), MaxSupportedVersion: r.int16("MaxSupportedVersion")}
		f.Unknown = r.unknownOnly(nil)
		out = append(out, f)
	}
	return out
}

func appendFeatures(w *writer, fs []FeatureRange) {
	w.uvarint(len(fs) + 1)
	for _, f := range fs {
		w.string(f.Name)
		w.int16(f.MinSupportedVersion)
		w.int16(f.MaxSupportedVersion)
		w.noTags(f.Unknown)
	}
}

// UnregisterBrokerRecord removes a broker's registration.
type UnregisterBrokerRecord struct {
	BrokerID    int32            `kafka:"brokerId"`
	BrokerEpoch int64            `kafka:"brokerEpoch"`
	Unknown     []RawTaggedField `kafka:"-"`
}

// Type returns UnregisterBrokerRecordType.
func (*UnregisterBrokerRecord) Type() RecordType { return UnregisterBrokerRecordType }

func (m *UnregisterBrokerRecord) decode(r *reader, _ int16) {
	*m = UnregisterBrokerRecord{BrokerID: r.int32("BrokerId"), BrokerEpoch: r.int64("BrokerEpoch")}
	m.Unknown = r.unknownOnly(nil)
}

func (m *UnregisterBrokerRecord) appendBody(dst []byte, _ int16) ([]byte, error) {
	w := writer{b: dst}
	w.int32(m.BrokerID)
	w.int64(m.BrokerEpoch)
	w.noTags(m.Unknown)
	return w.b, nil
}

// FenceBrokerRecord fences a broker (before 3.3's
// BrokerRegistrationChangeRecord).
type FenceBrokerRecord struct {
	ID      int32            `kafka:"id"`
	Epoch   int64            `kafka:"epoch"`
	Unknown []RawTaggedField `kafka:"-"`
}

// Type returns FenceBrokerRecordType.
func (*FenceBrokerRecord) Type() RecordType { return FenceBrokerRecordType }

func (m *FenceBrokerRecord) decode(r *reader, _ int16) {
	*m = FenceBrokerRecord{ID: r.int32("Id"), Epoch: r.int64("Epoch")}
	m.Unknown = r.unknownOnly(nil)
}

func (m *FenceBrokerRecord) appendBody(dst []byte, _ int16) ([]byte, error) {
	w := writer{b: dst}
	w.int32(m.ID)
	w.int64(m.Epoch)
	w.noTags(m.Unknown)
	return w.b, nil
}

// UnfenceBrokerRecord unfences a broker.
type UnfenceBrokerRecord struct {
	ID      int32            `kafka:"id"`
	Epoch   int64            `kafka:"epoch"`
	Unknown []RawTaggedField `kafka:"-"`
}

// Type returns UnfenceBrokerRecordType.
func (*UnfenceBrokerRecord) Type() RecordType { return UnfenceBrokerRecordType }

func (m *UnfenceBrokerRecord) decode(r *reader, _ int16) {
	*m = UnfenceBrokerRecord{ID: r.int32("Id"), Epoch: r.int64("Epoch")}
	m.Unknown = r.unknownOnly(nil)
}

func (m *UnfenceBrokerRecord) appendBody(dst []byte, _ int16) ([]byte, error) {
	w := writer{b: dst}
	w.int32(m.ID)
	w.int64(m.Epoch)
	w.noTags(m.Unknown)
	return w.b, nil
}

// BrokerRegistrationChangeRecord changes a broker's registration,
// versions 0 to 2, every change tagged: Fenced (tag 0), from version 1
// InControlledShutdown (tag 1), from version 2 LogDirs (tag 2).
type BrokerRegistrationChangeRecord struct {
	BrokerID             int32            `kafka:"brokerId"`
	BrokerEpoch          int64            `kafka:"brokerEpoch"`
	Fenced               int8             `kafka:"fenced,tag=0,default=0"`
	InControlledShutdown int8             `kafka:"inControlledShutdown,v1,tag=1,default=0"`
	LogDirs              []Uuid           `kafka:"logDirs,v2,tag=2"`
	Unknown              []RawTaggedField `kafka:"-"`
}

// Type returns BrokerRegistrationChangeRecordType.
func (*BrokerRegistrationChangeRecord) Type() RecordType { return BrokerRegistrationChangeRecordType }

func (m *BrokerRegistrationChangeRecord) decode(r *reader, v int16) {
	*m = BrokerRegistrationChangeRecord{BrokerID: r.int32("BrokerId"), BrokerEpoch: r.int64("BrokerEpoch"), LogDirs: []Uuid{}}
	for i, n := 0, r.tagCount(); i < n && r.ok(); i++ {
		tag, size := r.tag()
		switch {
		case tag == 0:
			m.Fenced = r.int8("Fenced")
		case tag == 1 && v < 1, tag == 2 && v < 2:
			r.invalidTag(tag, v)
		case tag == 1:
			m.InControlledShutdown = r.int8("InControlledShutdown")
		case tag == 2:
			m.LogDirs = r.uuids("LogDirs", false)
		default:
			m.Unknown = r.unknownTag(m.Unknown, tag, size)
		}
	}
}

func (m *BrokerRegistrationChangeRecord) appendBody(dst []byte, v int16) ([]byte, error) {
	if v < 1 && m.InControlledShutdown != 0 || v < 2 && len(m.LogDirs) > 0 {
		return dst, errorf(ErrUnknownVersion, "BrokerRegistrationChangeRecord version %d cannot hold this record", v)
	}
	w := writer{b: dst}
	w.int32(m.BrokerID)
	w.int64(m.BrokerEpoch)
	w.tagged([]taggedField{
		{0, m.Fenced != 0, func(w *writer) { w.int8(m.Fenced) }},
		{1, m.InControlledShutdown != 0, func(w *writer) { w.int8(m.InControlledShutdown) }},
		{2, len(m.LogDirs) > 0, func(w *writer) { w.uuids(m.LogDirs, false) }},
	}, m.Unknown)
	return w.b, nil
}

// RegisterControllerRecord registers a controller.
type RegisterControllerRecord struct {
	ControllerID     int32            `kafka:"controllerId"`
	IncarnationID    Uuid             `kafka:"incarnationId"`
	ZkMigrationReady bool             `kafka:"zkMigrationReady"`
	EndPoints        []Endpoint       `kafka:"endPoints"`
	Features         []FeatureRange   `kafka:"features"`
	Unknown          []RawTaggedField `kafka:"-"`
}

// Type returns RegisterControllerRecordType.
func (*RegisterControllerRecord) Type() RecordType { return RegisterControllerRecordType }

func (m *RegisterControllerRecord) decode(r *reader, _ int16) {
	*m = RegisterControllerRecord{
		ControllerID:     r.int32("ControllerId"),
		IncarnationID:    r.uuid("IncarnationId"),
		ZkMigrationReady: r.bool("ZkMigrationReady"),
		EndPoints:        readEndpoints(r),
		Features:         readFeatures(r),
	}
	m.Unknown = r.unknownOnly(nil)
}

func (m *RegisterControllerRecord) appendBody(dst []byte, _ int16) ([]byte, error) {
	w := writer{b: dst}
	w.int32(m.ControllerID)
	w.uuid(m.IncarnationID)
	w.bool(m.ZkMigrationReady)
	appendEndpoints(&w, m.EndPoints)
	appendFeatures(&w, m.Features)
	w.noTags(m.Unknown)
	return w.b, nil
}
