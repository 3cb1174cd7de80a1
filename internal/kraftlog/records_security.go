package kraftlog

// UserScramCredentialRecord sets a user's SCRAM credential for one
// mechanism: 1 SCRAM-SHA-256, 2 SCRAM-SHA-512.
type UserScramCredentialRecord struct {
	Name       string           `kafka:"name"`
	Mechanism  int8             `kafka:"mechanism"`
	Salt       []byte           `kafka:"salt"`
	StoredKey  []byte           `kafka:"storedKey"`
	ServerKey  []byte           `kafka:"serverKey"`
	Iterations int32            `kafka:"iterations"`
	Unknown    []RawTaggedField `kafka:"-"`
}

// Type returns UserScramCredentialRecordType.
func (*UserScramCredentialRecord) Type() RecordType { return UserScramCredentialRecordType }

func (m *UserScramCredentialRecord) decode(r *reader, _ int16) {
	*m = UserScramCredentialRecord{
		Name:       r.string("Name"),
		Mechanism:  r.int8("Mechanism"),
		Salt:       r.bytes("Salt"),
		StoredKey:  r.bytes("StoredKey"),
		ServerKey:  r.bytes("ServerKey"),
		Iterations: r.int32("Iterations"),
	}
	m.Unknown = r.unknownOnly(nil)
}

func (m *UserScramCredentialRecord) appendBody(dst []byte, _ int16) ([]byte, error) {
	w := writer{b: dst}
	w.string(m.Name)
	w.int8(m.Mechanism)
	w.bytes(m.Salt)
	w.bytes(m.StoredKey)
	w.bytes(m.ServerKey)
	w.int32(m.Iterations)
	w.noTags(m.Unknown)
	return w.b, nil
}

// RemoveUserScramCredentialRecord removes a user's credential for one
// mechanism.
type RemoveUserScramCredentialRecord struct {
	Name      string           `kafka:"name"`
	Mechanism int8             `kafka:"mechanism"`
	Unknown   []RawTaggedField `kafka:"-"`
}

// Type returns RemoveUserScramCredentialRecordType.
func (*RemoveUserScramCredentialRecord) Type() RecordType { return RemoveUserScramCredentialRecordType }

func (m *RemoveUserScramCredentialRecord) decode(r *reader, _ int16) {
	*m = RemoveUserScramCredentialRecord{Name: r.string("Name"), Mechanism: r.int8("Mechanism")}
	m.Unknown = r.unknownOnly(nil)
}

func (m *RemoveUserScramCredentialRecord) appendBody(dst []byte, _ int16) ([]byte, error) {
	w := writer{b: dst}
	w.string(m.Name)
	w.int8(m.Mechanism)
	w.noTags(m.Unknown)
	return w.b, nil
}

// AccessControlEntryRecord adds an ACL, by id. The codes are Kafka's
// ResourceType, PatternType, AclOperation and AclPermissionType.
type AccessControlEntryRecord struct {
	ID             Uuid             `kafka:"id"`
	ResourceType   int8             `kafka:"resourceType"`
	ResourceName   string           `kafka:"resourceName"`
	PatternType    int8             `kafka:"patternType"`
	Principal      string           `kafka:"principal"`
	Host           string           `kafka:"host"`
	Operation      int8             `kafka:"operation"`
	PermissionType int8             `kafka:"permissionType"`
	Unknown        []RawTaggedField `kafka:"-"`
}

// Type returns AccessControlEntryRecordType.
func (*AccessControlEntryRecord) Type() RecordType { return AccessControlEntryRecordType }

func (m *AccessControlEntryRecord) decode(r *reader, _ int16) {
	*m = AccessControlEntryRecord{
		ID:             r.uuid("Id"),
		ResourceType:   r.int8("ResourceType"),
		ResourceName:   r.string("ResourceName"),
		PatternType:    r.int8("PatternType"),
		Principal:      r.string("Principal"),
		Host:           r.string("Host"),
		Operation:      r.int8("Operation"),
		PermissionType: r.int8("PermissionType"),
	}
	m.Unknown = r.unknownOnly(nil)
}

func (m *AccessControlEntryRecord) appendBody(dst []byte, _ int16) ([]byte, error) {
	w := writer{b: dst}
	w.uuid(m.ID)
	w.int8(m.ResourceType)
	w.string(m.ResourceName)
	w.int8(m.PatternType)
	w.string(m.Principal)
	w.string(m.Host)
	w.int8(m.Operation)
	w.int8(m.PermissionType)
	w.noTags(m.Unknown)
	return w.b, nil
}

// RemoveAccessControlEntryRecord removes an ACL, by id.
type RemoveAccessControlEntryRecord struct {
	ID      Uuid             `kafka:"id"`
	Unknown []RawTaggedField `kafka:"-"`
}

// Type returns RemoveAccessControlEntryRecordType.
func (*RemoveAccessControlEntryRecord) Type() RecordType { return RemoveAccessControlEntryRecordType }

func (m *RemoveAccessControlEntryRecord) decode(r *reader, _ int16) {
	*m = RemoveAccessControlEntryRecord{ID: r.uuid("Id")}
	m.Unknown = r.unknownOnly(nil)
}

func (m *RemoveAccessControlEntryRecord) appendBody(dst []byte, _ int16) ([]byte, error) {
	w := writer{b: dst}
	w.uuid(m.ID)
	w.noTags(m.Unknown)
	return w.b, nil
}

// DelegationTokenRecord creates or renews a delegation token.
type DelegationTokenRecord struct {
	Owner               string           `kafka:"owner"`
	Requester           string           `kafka:"requester"`
	Renewers            []string         `kafka:"renewers"`
	IssueTimestamp      int64            `kafka:"issueTimestamp"`
	MaxTimestamp        int64            `kafka:"maxTimestamp"`
	ExpirationTimestamp int64            `kafka:"expirationTimestamp"`
	TokenID             string           `kafka:"tokenId"`
	Unknown             []RawTaggedField `kafka:"-"`
}

// Type returns DelegationTokenRecordType.
func (*DelegationTokenRecord) Type() RecordType { return DelegationTokenRecordType }

func (m *DelegationTokenRecord) decode(r *reader, _ int16) {
	*m = DelegationTokenRecord{
		Owner:               r.string("Owner"),
		Requester:           r.string("Requester"),
		Renewers:            r.strings("Renewers"),
		IssueTimestamp:      r.int64("IssueTimestamp"),
		MaxTimestamp:        r.int64("MaxTimestamp"),
		ExpirationTimestamp: r.int64("ExpirationTimestamp"),
		TokenID:             r.string("TokenId"),
	}
	m.Unknown = r.unknownOnly(nil)
}

func (m *DelegationTokenRecord) appendBody(dst []byte, _ int16) ([]byte, error) {
	w := writer{b: dst}
	w.string(m.Owner)
	w.string(m.Requester)
	w.strings(m.Renewers)
	w.int64(m.IssueTimestamp)
	w.int64(m.MaxTimestamp)
	w.int64(m.ExpirationTimestamp)
	w.string(m.TokenID)
	w.noTags(m.Unknown)
	return w.b, nil
}

// RemoveDelegationTokenRecord removes a delegation token, by id.
type RemoveDelegationTokenRecord struct {
	TokenID string           `kafka:"tokenId"`
	Unknown []RawTaggedField `kafka:"-"`
}

// Type returns RemoveDelegationTokenRecordType.
func (*RemoveDelegationTokenRecord) Type() RecordType { return RemoveDelegationTokenRecordType }

func (m *RemoveDelegationTokenRecord) decode(r *reader, _ int16) {
	*m = RemoveDelegationTokenRecord{TokenID: r.string("TokenId")}
	m.Unknown = r.unknownOnly(nil)
}

func (m *RemoveDelegationTokenRecord) appendBody(dst []byte, _ int16) ([]byte, error) {
	w := writer{b: dst}
	w.string(m.TokenID)
	w.noTags(m.Unknown)
	return w.b, nil
}
