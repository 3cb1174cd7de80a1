package kraftlog

// RecordType is the apiKey of a metadata record, as MetadataRecordType
// numbers them.
type RecordType int16

// The metadata record types of Kafka 3.9.
const (
	RegisterBrokerRecordType            RecordType = 0
	UnregisterBrokerRecordType          RecordType = 1
	TopicRecordType                     RecordType = 2
	PartitionRecordType                 RecordType = 3
	ConfigRecordType                    RecordType = 4
	PartitionChangeRecordType           RecordType = 5
	FenceBrokerRecordType               RecordType = 7
	UnfenceBrokerRecordType             RecordType = 8
	RemoveTopicRecordType               RecordType = 9
	DelegationTokenRecordType           RecordType = 10
	UserScramCredentialRecordType       RecordType = 11
	FeatureLevelRecordType              RecordType = 12
	ClientQuotaRecordType               RecordType = 14
	ProducerIdsRecordType               RecordType = 15
	BrokerRegistrationChangeRecordType  RecordType = 17
	AccessControlEntryRecordType        RecordType = 18
	RemoveAccessControlEntryRecordType  RecordType = 19
	NoOpRecordType                      RecordType = 20
	ZkMigrationStateRecordType          RecordType = 21
	RemoveUserScramCredentialRecordType RecordType = 22
	BeginTransactionRecordType          RecordType = 23
	EndTransactionRecordType            RecordType = 24
	AbortTransactionRecordType          RecordType = 25
	RemoveDelegationTokenRecordType     RecordType = 26
	RegisterControllerRecordType        RecordType = 27
)

// typeInfo describes a record type: its schema's name, the name
// kafka-dump-log prints, its highest version.
type typeInfo struct {
	name, enum string
	maxVersion int16
	new        func() Message
}

// types holds the record types by apiKey; an empty name is no type.
var types = [...]typeInfo{
	RegisterBrokerRecordType:            {"RegisterBrokerRecord", "REGISTER_BROKER_RECORD", 3, func() Message { return new(RegisterBrokerRecord) }},
	UnregisterBrokerRecordType:          {"UnregisterBrokerRecord", "UNREGISTER_BROKER_RECORD", 0, func() Message { return new(UnregisterBrokerRecord) }},
	TopicRecordType:                     {"TopicRecord", "TOPIC_RECORD", 0, func() Message { return new(TopicRecord) }},
	PartitionRecordType:                 {"PartitionRecord", "PARTITION_RECORD", 2, func() Message { return new(PartitionRecord) }},
	ConfigRecordType:                    {"ConfigRecord", "CONFIG_RECORD", 0, func() Message { return new(ConfigRecord) }},
	PartitionChangeRecordType:           {"PartitionChangeRecord", "PARTITION_CHANGE_RECORD", 2, func() Message { return new(PartitionChangeRecord) }},
	FenceBrokerRecordType:               {"FenceBrokerRecord", "FENCE_BROKER_RECORD", 0, func() Message { return new(FenceBrokerRecord) }},
	UnfenceBrokerRecordType:             {"UnfenceBrokerRecord", "UNFENCE_BROKER_RECORD", 0, func() Message { return new(UnfenceBrokerRecord) }},
	RemoveTopicRecordType:               {"RemoveTopicRecord", "REMOVE_TOPIC_RECORD", 0, func() Message { return new(RemoveTopicRecord) }},
	DelegationTokenRecordType:           {"DelegationTokenRecord", "DELEGATION_TOKEN_RECORD", 0, func() Message { return new(DelegationTokenRecord) }},
	UserScramCredentialRecordType:       {"UserScramCredentialRecord", "USER_SCRAM_CREDENTIAL_RECORD", 0, func() Message { return new(UserScramCredentialRecord) }},
	FeatureLevelRecordType:              {"FeatureLevelRecord", "FEATURE_LEVEL_RECORD", 0, func() Message { return new(FeatureLevelRecord) }},
	ClientQuotaRecordType:               {"ClientQuotaRecord", "CLIENT_QUOTA_RECORD", 0, func() Message { return new(ClientQuotaRecord) }},
	ProducerIdsRecordType:               {"ProducerIdsRecord", "PRODUCER_IDS_RECORD", 0, func() Message { return new(ProducerIdsRecord) }},
	BrokerRegistrationChangeRecordType:  {"BrokerRegistrationChangeRecord", "BROKER_REGISTRATION_CHANGE_RECORD", 2, func() Message { return new(BrokerRegistrationChangeRecord) }},
	AccessControlEntryRecordType:        {"AccessControlEntryRecord", "ACCESS_CONTROL_ENTRY_RECORD", 0, func() Message { return new(AccessControlEntryRecord) }},
	RemoveAccessControlEntryRecordType:  {"RemoveAccessControlEntryRecord", "REMOVE_ACCESS_CONTROL_ENTRY_RECORD", 0, func() Message { return new(RemoveAccessControlEntryRecord) }},
	NoOpRecordType:                      {"NoOpRecord", "NO_OP_RECORD", 0, func() Message { return new(NoOpRecord) }},
	ZkMigrationStateRecordType:          {"ZkMigrationStateRecord", "ZK_MIGRATION_STATE_RECORD", 0, func() Message { return new(ZkMigrationStateRecord) }},
	RemoveUserScramCredentialRecordType: {"RemoveUserScramCredentialRecord", "REMOVE_USER_SCRAM_CREDENTIAL_RECORD", 0, func() Message { return new(RemoveUserScramCredentialRecord) }},
	BeginTransactionRecordType:          {"BeginTransactionRecord", "BEGIN_TRANSACTION_RECORD", 0, func() Message { return new(BeginTransactionRecord) }},
	EndTransactionRecordType:            {"EndTransactionRecord", "END_TRANSACTION_RECORD", 0, func() Message { return new(EndTransactionRecord) }},
	AbortTransactionRecordType:          {"AbortTransactionRecord", "ABORT_TRANSACTION_RECORD", 0, func() Message { return new(AbortTransactionRecord) }},
	RemoveDelegationTokenRecordType:     {"RemoveDelegationTokenRecord", "REMOVE_DELEGATION_TOKEN_RECORD", 0, func() Message { return new(RemoveDelegationTokenRecord) }},
	RegisterControllerRecordType:        {"RegisterControllerRecord", "REGISTER_CONTROLLER_RECORD", 0, func() Message { return new(RegisterControllerRecord) }},
}

// info returns t's description, false for an apiKey Kafka 3.9 defines no
// record for.
func (t RecordType) info() (typeInfo, bool) {
	if t < 0 || int(t) >= len(types) || types[t].name == "" {
		return typeInfo{}, false
	}
	return types[t], true
}

// Known reports whether Kafka 3.9 defines a metadata record of apiKey t.
func (t RecordType) Known() bool { _, ok := t.info(); return ok }

// String returns the schema's name, "TopicRecord"; "apiKey N" for an
// unknown type.
func (t RecordType) String() string {
	if i, ok := t.info(); ok {
		return i.name
	}
	return "apiKey " + itoa(int(t))
}

// EnumName returns the name Kafka's MetadataRecordType gives t, as
// kafka-dump-log prints it: "TOPIC_RECORD"; "" for an unknown type.
func (t RecordType) EnumName() string {
	i, _ := t.info()
	return i.enum
}

// MaxVersion returns the highest version of t Kafka 3.9 defines.
func (t RecordType) MaxVersion() int16 {
	i, _ := t.info()
	return i.maxVersion
}

// New returns a new empty record of type t, nil for an unknown type.
func (t RecordType) New() Message {
	i, ok := t.info()
	if !ok {
		return nil
	}
	return i.new()
}

// RecordTypes lists the types Kafka 3.9 defines, by apiKey.
func RecordTypes() []RecordType {
	var out []RecordType
	for t := range types {
		if types[t].name != "" {
			out = append(out, RecordType(t))
		}
	}
	return out
}
