package kraftlog

// ConfigRecord sets a config key of a resource, or deletes it with a
// null Value.
type ConfigRecord struct {
	ResourceType int8             `kafka:"resourceType"`
	ResourceName string           `kafka:"resourceName"`
	Name         string           `kafka:"name"`
	Value        *string          `kafka:"value,nullable"`
	Unknown      []RawTaggedField `kafka:"-"`
}

// Type returns ConfigRecordType.
func (*ConfigRecord) Type() RecordType { return ConfigRecordType }

func (m *ConfigRecord) decode(r *reader, _ int16) {
	*m = ConfigRecord{
		ResourceType: r.int8("ResourceType"),
		ResourceName: r.string("ResourceName"),
		Name:         r.string("Name"),
		Value:        r.nstring("Value"),
	}
	m.Unknown = r.unknownOnly(m.Unknown)
}

func (m *ConfigRecord) appendBody(dst []byte, _ int16) ([]byte, error) {
	w := writer{b: dst}
	w.int8(m.ResourceType)
	w.string(m.ResourceName)
	w.string(m.Name)
	w.nstring(m.Value)
	w.noTags(m.Unknown)
	return w.b, nil
}

// ClientQuotaRecord sets or removes a quota of an entity.
type ClientQuotaRecord struct {
	Entity  []EntityData     `kafka:"entity"`
	Key     string           `kafka:"key"`
	Value   float64          `kafka:"value"`
	Remove  bool             `kafka:"remove"`
	Unknown []RawTaggedField `kafka:"-"`
}

// EntityData is one part of a quota entity: a type ("user",
// "client-id", "ip") and a name, nil for the default entity.
type EntityData struct {
	EntityType string           `kafka:"entityType"`
	EntityName *string          `kafka:"entityName,nullable"`
	Unknown    []RawTaggedField `kafka:"-"`
}

// Type returns ClientQuotaRecordType.
func (*ClientQuotaRecord) Type() RecordType { return ClientQuotaRecordType }

func (m *ClientQuotaRecord) decode(r *reader, _ int16) {
	*m = ClientQuotaRecord{}
	if n := r.arrayLen("Entity"); n >= 0 {
		m.Entity = make([]EntityData, 0, min(n, 4))
		for i := 0; i < n && r.ok(); i++ {
			e := EntityData{EntityType: r.string("EntityType"), EntityName: r.nstring("EntityName")}
			e.Unknown = r.unknownOnly(nil)
			m.Entity = append(m.Entity, e)
		}
	}
	m.Key = r.string("Key")
	m.Value = r.float64("Value")
	m.Remove = r.bool("Remove")
	m.Unknown = r.unknownOnly(nil)
}

func (m *ClientQuotaRecord) appendBody(dst []byte, _ int16) ([]byte, error) {
	w := writer{b: dst}
	w.uvarint(len(m.Entity) + 1)
	for _, e := range m.Entity {
		w.string(e.EntityType)
		w.nstring(e.EntityName)
		w.noTags(e.Unknown)
	}
	w.string(m.Key)
	w.float64(m.Value)
	w.bool(m.Remove)
	w.noTags(m.Unknown)
	return w.b, nil
}
