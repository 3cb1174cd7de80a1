package dualwrite

import "github.com/kraftmigration/zkwriter/migrationzk/znode"

// Image is everything the migration mirrors into ZooKeeper: what KRaft's
// metadata image holds, as a controller builds it to Sync, or what Read
// found in ZooKeeper.
type Image struct {
	// Topics by name; each Topic's Name is its key.
	Topics map[string]Topic
	// Configs of topics and brokers, by resource. Password configs are
	// in plain text, as KRaft holds them, when the Client that read them
	// has a password encoder (WithPasswordEncoder); Secrets says which.
	Configs map[ConfigResource]map[string]string
	// ClientQuotas by entity, Kafka's quota names to their values.
	ClientQuotas map[QuotaEntity]map[string]float64
	// Scram holds each user's SCRAM credentials by mechanism.
	Scram map[string]map[string]znode.ScramCredential
	// ACLs by resource pattern.
	ACLs map[ResourcePattern][]znode.ACLEntry
	// DelegationTokens by token id.
	DelegationTokens map[string]znode.DelegationToken
	// ProducerIDBlock is /latest_producer_id_block; nil for none. KRaft's
	// next producer id N is the block znode.MigrationProducerIDBlock(N).
	ProducerIDBlock *znode.ProducerIDBlock
	// Undecodable lists the znodes Read found whose data does not decode.
	// What they hold is in no other field, and Sync leaves them alone.
	Undecodable []UndecodableZnode
	// Secrets is the form of the password configs' values and SCRAM
	// credentials: SecretsPlain or SecretsEncoded as Read found them,
	// with or without a password encoder; SecretsRedacted once Redacted;
	// SecretsUnrecorded for an Image built by hand. Sync refuses a form
	// its Client would store wrongly.
	Secrets SecretForm
}

// UndecodableZnode is a znode whose data does not decode.
type UndecodableZnode struct {
	// Path is the znode's path relative to the Writer's root.
	Path string
	Err  error
}

// NewImage returns an empty Image, its maps made.
func NewImage() Image {
	return Image{
		Topics:           map[string]Topic{},
		Configs:          map[ConfigResource]map[string]string{},
		ClientQuotas:     map[QuotaEntity]map[string]float64{},
		Scram:            map[string]map[string]znode.ScramCredential{},
		ACLs:             map[ResourcePattern][]znode.ACLEntry{},
		DelegationTokens: map[string]znode.DelegationToken{},
	}
}

// undecodable reports whether path is among img's undecodable znodes.
func (img Image) undecodable(path string) bool {
	for _, u := range img.Undecodable {
		if u.Path == path {
			return true
		}
	}
	return false
}
