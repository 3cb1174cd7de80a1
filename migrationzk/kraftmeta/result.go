package kraftmeta

import (
	"github.com/kraftmigration/zkwriter/migrationzk/dualwrite"
	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

// Result is KRaft's metadata image at the offset a replay reached, as
// ZooKeeper holds it during the migration, and what else the metadata
// says.
type Result struct {
	// Image is what ZooKeeper must hold, mapped as Kafka's dual-write
	// (KRaftMigrationZkWriter) maps KRaft's image: topics and their
	// partitions, topic and broker configs (the cluster default broker
	// as the name ""), client quotas (a default entity as
	// znode.DefaultEntityName), SCRAM credentials, ACLs by resource,
	// delegation tokens, and the producer-id block
	// (znode.MigrationProducerIDBlock of the next producer id; nil when
	// KRaft handed out none). The Image holds no reference to the
	// files' bytes.
	Image dualwrite.Image
	// Offset and Epoch are the image's highest offset and epoch: the
	// last record it contains (a control record's, possibly), what
	// /migration records as kraft_metadata_offset and
	// kraft_metadata_epoch. Offset is -1 for an empty image.
	Offset int64
	Epoch  int32
	// LastContainedLogTimeMs is the timestamp of the batch of Offset.
	LastContainedLogTimeMs int64
	// MetadataVersion is the image's metadata.version, 3.0-IV1 when no
	// record set it, as in Kafka's image.
	MetadataVersion MetadataVersion
	// MigrationState is the ZooKeeper migration state.
	MigrationState MigrationState
	// NextProducerID is the next producer id KRaft hands out, -1 for
	// none.
	NextProducerID int64
	// ClusterID is meta.properties' cluster.id, "" without one.
	ClusterID string
	// OpenTransaction is a transaction begun at or before the target and
	// not ended by it: its records are not in the image, which is the
	// one Kafka published before it began. Nil when there is none.
	OpenTransaction *Transaction
	// Snapshot is the snapshot the replay started from, nil for a log
	// replayed from offset 0.
	Snapshot *SnapshotFile
	// Files lists the files read, in order.
	Files []FileRead
	// Skipped counts the records, by type name, that do not change what
	// ZooKeeper holds: broker and controller registrations, NoOps.
	Skipped map[string]int
	// Unmirrored is what KRaft holds that ZooKeeper never mirrors.
	Unmirrored Unmirrored
	// ACLs are KRaft's ACLs, by id, those Unmirrored lists included.
	ACLs []ACL
	// LastLeader is the last leader change the files read name, nil for
	// none.
	LastLeader *LeaderChange
	// HighestEpoch is the highest leader epoch of the batches read.
	HighestEpoch int32
	// After is what the log holds after the target; nil for a replay to
	// the end.
	After *Lag

	topics map[string]*topicMeta
}

// ACL is an access control entry as KRaft holds it, by id, with the
// codes of Kafka's enums (ResourceType, PatternType, AclOperation,
// AclPermissionType); a code Kafka does not know is 0, UNKNOWN.
type ACL struct {
	ID             znode.Uuid
	ResourceType   int8
	ResourceName   string
	PatternType    int8
	Principal      string
	Host           string
	Operation      int8
	PermissionType int8
}

// Unmirrored is what KRaft's image holds that Kafka's dual-write never
// writes to ZooKeeper.
type Unmirrored struct {
	// Configs of resource types other than TOPIC and BROKER:
	// CLIENT_METRICS, BROKER_LOGGER, UNKNOWN.
	Configs []ResourceConfigs
	// ClientQuotas of entities ZooKeeper cannot name: other entity
	// types, a combination other than user, client-id, user and
	// client-id, or ip; an empty name; a name that reads as the default.
	ClientQuotas []EntityQuotas
	// Scram lists the credentials of mechanisms other than SCRAM-SHA-256
	// and SCRAM-SHA-512.
	Scram []ScramID
	// ACLs whose resource type, pattern type, operation or permission
	// type ZooKeeper cannot hold (UNKNOWN, ANY, MATCH).
	ACLs []ACL
	// Features lists the finalized features other than metadata.version,
	// by name.
	Features map[string]int16
	// Directories counts the partitions with a log directory other than
	// MIGRATING, EligibleLeaderReplicas those with eligible or last known
	// leader replicas: ZooKeeper holds neither.
	Directories, EligibleLeaderReplicas int
}

// ResourceConfigs are the configs of one resource.
type ResourceConfigs struct {
	// Type is the resource type's id (16 CLIENT_METRICS, 8
	// BROKER_LOGGER, 0 UNKNOWN).
	Type    int8
	Name    string
	Configs map[string]string
}

// EntityQuotas are the quotas of one entity, its parts by entity type,
// a nil name for the default entity.
type EntityQuotas struct {
	Entity map[string]*string
	Quotas map[string]float64
}

// ScramID names a SCRAM credential: a user and a mechanism code.
type ScramID struct {
	User      string
	Mechanism int8
}

// LeaderChange is a leader epoch's start, from its LEADER_CHANGE record.
type LeaderChange struct {
	Offset         int64
	Epoch          int32
	LeaderID       int32
	Voters         []int32
	GrantingVoters []int32
}

// FileRead is a file a replay read.
type FileRead struct {
	Path string
	// Snapshot is true for a snapshot, false for a segment.
	Snapshot bool
	// FirstOffset and LastOffset are the offsets of its first and last
	// records (positions from 0 in a snapshot); -1 for none.
	FirstOffset, LastOffset int64
	// Tail says how it ended.
	Tail Tail
}

// Tail says how a file ended after its last complete batch.
type Tail struct {
	// Kind is "clean", "truncated" (a batch cut short, as a segment
	// being appended to or torn by a crash ends) or "zeros" (zero bytes
	// to the end, as a preallocated segment ends).
	Kind string
	// Bytes is how many bytes follow the last complete batch.
	Bytes int64
}

// Lag is what the log holds after a replay's target.
type Lag struct {
	// Records counts the metadata records after the target, NoOps
	// aside; FirstOffset and LastOffset are the offsets of the first and
	// last of them, -1 when there are none.
	Records                 int
	FirstOffset, LastOffset int64
	// NoOps counts the NoOpRecords after the target, ControlRecords its
	// control records.
	NoOps, ControlRecords int
	// ByType counts the records by type name, NoOps included.
	ByType map[string]int
	// EndOffset is the last offset the log holds.
	EndOffset int64
}

// PartitionDetail is a partition as KRaft holds it.
type PartitionDetail struct {
	dualwrite.Partition
	// PartitionEpoch counts the partition's changes.
	PartitionEpoch int32
	// Directories holds each replica's log directory, the zero Uuid for
	// MIGRATING (a ZooKeeper-mode broker's replica).
	Directories []znode.Uuid
	// EligibleLeaderReplicas and LastKnownELR are empty unless KIP-966
	// is on.
	EligibleLeaderReplicas, LastKnownELR []int32
}

// Partition returns partition id of topic as KRaft holds it.
func (r *Result) Partition(topic string, id int32) (PartitionDetail, bool) {
	t := r.topics[topic]
	if t == nil {
		return PartitionDetail{}, false
	}
	p, ok := t.parts[id]
	if !ok {
		return PartitionDetail{}, false
	}
	e := t.extra(id)
	d := PartitionDetail{Partition: p, PartitionEpoch: e.epoch, Directories: make([]znode.Uuid, len(p.Replicas))}
	if e.rare != nil {
		if e.rare.dirs != nil {
			copy(d.Directories, e.rare.dirs)
		}
		d.EligibleLeaderReplicas, d.LastKnownELR = e.rare.elr, e.rare.lastKnownElr
	}
	return d, true
}
