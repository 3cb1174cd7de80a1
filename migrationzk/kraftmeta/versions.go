package kraftmeta

import "strconv"

// MetadataVersion is a metadata.version feature level.
type MetadataVersion int16

// metadataVersionNames are Kafka 3.9's metadata.version levels, from 1.
var metadataVersionNames = [...]string{
	1: "3.0-IV1", 2: "3.1-IV0", 3: "3.2-IV0", 4: "3.3-IV0", 5: "3.3-IV1", 6: "3.3-IV2", 7: "3.3-IV3",
	8: "3.4-IV0", 9: "3.5-IV0", 10: "3.5-IV1", 11: "3.5-IV2", 12: "3.6-IV0", 13: "3.6-IV1", 14: "3.6-IV2",
	15: "3.7-IV0", 16: "3.7-IV1", 17: "3.7-IV2", 18: "3.7-IV3", 19: "3.7-IV4", 20: "3.8-IV0", 21: "3.9-IV0",
	22: "4.0-IV0", 23: "4.0-IV1",
}

// MinimumKRaftVersion is the metadata.version of an image that holds no
// FeatureLevelRecord for it, as Kafka's empty image holds: 3.0-IV1.
const MinimumKRaftVersion MetadataVersion = 1

// Valid reports whether Kafka 3.9 knows the level.
func (v MetadataVersion) Valid() bool {
	return v > 0 && int(v) < len(metadataVersionNames)
}

// String returns the version's name, "3.9-IV0", or "level N" for one
// Kafka 3.9 does not know.
func (v MetadataVersion) String() string {
	if v.Valid() {
		return metadataVersionNames[v]
	}
	return "level " + strconv.Itoa(int(v))
}

// MigrationState is the ZooKeeper migration state of KRaft's image, as
// ZkMigrationStateRecord sets it.
type MigrationState int8

// The migration states, numbered as Kafka 3.5 and later number them.
const (
	MigrationNone MigrationState = 0
	// Migration is dual-write: ZooKeeper mirrors KRaft.
	Migration         MigrationState = 1
	PreMigration      MigrationState = 2
	PostMigration     MigrationState = 3
	MigrationStateZK  MigrationState = 4
	maxMigrationState                = MigrationStateZK
)

// String returns Kafka's name of the state, "MIGRATION".
func (s MigrationState) String() string {
	switch s {
	case MigrationNone:
		return "NONE"
	case Migration:
		return "MIGRATION"
	case PreMigration:
		return "PRE_MIGRATION"
	case PostMigration:
		return "POST_MIGRATION"
	case MigrationStateZK:
		return "ZK"
	}
	return "state " + strconv.Itoa(int(s))
}
