package kraftmeta

import (
	"github.com/kraftmigration/zkwriter/internal/kraftlog"
)

// records holds one record of each type the replay applies but
// PartitionRecord (decoded on the stack, see loader.dataRecord), decoded
// in place record after record.
type records struct {
	topic       kraftlog.TopicRecord
	change      kraftlog.PartitionChangeRecord
	removeTopic kraftlog.RemoveTopicRecord
	config      kraftlog.ConfigRecord
	quota       kraftlog.ClientQuotaRecord
	scram       kraftlog.UserScramCredentialRecord
	removeScram kraftlog.RemoveUserScramCredentialRecord
	acl         kraftlog.AccessControlEntryRecord
	removeACL   kraftlog.RemoveAccessControlEntryRecord
	token       kraftlog.DelegationTokenRecord
	removeToken kraftlog.RemoveDelegationTokenRecord
	producerIDs kraftlog.ProducerIdsRecord
	feature     kraftlog.FeatureLevelRecord
	migration   kraftlog.ZkMigrationStateRecord
	begin       kraftlog.BeginTransactionRecord
}

// message returns the record of f's type to decode into, nil for a type
// the image does not hold.
func (r *records) message(t kraftlog.RecordType) kraftlog.Message {
	switch t {
	case kraftlog.TopicRecordType:
		return &r.topic
	case kraftlog.PartitionChangeRecordType:
		return &r.change
	case kraftlog.RemoveTopicRecordType:
		return &r.removeTopic
	case kraftlog.ConfigRecordType:
		return &r.config
	case kraftlog.ClientQuotaRecordType:
		return &r.quota
	case kraftlog.UserScramCredentialRecordType:
		return &r.scram
	case kraftlog.RemoveUserScramCredentialRecordType:
		return &r.removeScram
	case kraftlog.AccessControlEntryRecordType:
		return &r.acl
	case kraftlog.RemoveAccessControlEntryRecordType:
		return &r.removeACL
	case kraftlog.DelegationTokenRecordType:
		return &r.token
	case kraftlog.RemoveDelegationTokenRecordType:
		return &r.removeToken
	case kraftlog.ProducerIdsRecordType:
		return &r.producerIDs
	case kraftlog.FeatureLevelRecordType:
		return &r.feature
	case kraftlog.ZkMigrationStateRecordType:
		return &r.migration
	case kraftlog.BeginTransactionRecordType:
		return &r.begin
	}
	return nil
}

// apply applies the record r holds of type t, at offset.
func (s *state) apply(r *records, t kraftlog.RecordType, offset int64) error {
	switch t {
	case kraftlog.TopicRecordType:
		return s.applyTopic(&r.topic, offset)
	case kraftlog.PartitionChangeRecordType:
		return s.applyChange(&r.change, offset)
	case kraftlog.RemoveTopicRecordType:
		return s.removeTopic(r.removeTopic.TopicID, offset)
	case kraftlog.ConfigRecordType:
		s.applyConfig(&r.config)
	case kraftlog.ClientQuotaRecordType:
		s.applyQuota(&r.quota)
	case kraftlog.UserScramCredentialRecordType:
		s.applyScram(&r.scram)
	case kraftlog.RemoveUserScramCredentialRecordType:
		s.removeScram(&r.removeScram)
	case kraftlog.AccessControlEntryRecordType:
		s.applyACL(&r.acl)
	case kraftlog.RemoveAccessControlEntryRecordType:
		return s.removeACL(r.removeACL.ID, offset)
	case kraftlog.DelegationTokenRecordType:
		return s.applyToken(&r.token, offset)
	case kraftlog.RemoveDelegationTokenRecordType:
		s.removeToken(r.removeToken.TokenID)
	case kraftlog.ProducerIdsRecordType:
		s.setProducerID(r.producerIDs.NextProducerID)
	case kraftlog.FeatureLevelRecordType:
		return s.applyFeature(&r.feature, offset)
	case kraftlog.ZkMigrationStateRecordType:
		return s.applyMigrationState(r.migration.ZkMigrationState, offset)
	}
	return nil
}
