package migrationzk

import (
	"time"

	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

// State is the KRaft controller's view of the migration, as Kafka's
// ZkMigrationLeadershipState: the checkpoint stored in /migration plus what
// the controller keeps in memory about the znodes it writes.
//
// Pass the State a call returned to the next call: its versions are the
// ones ZooKeeper holds, also after a lost acknowledgement.
type State struct {
	// Stored in /migration.
	KRaftControllerID    int32
	KRaftControllerEpoch int32
	KRaftMetadataOffset  int64
	KRaftMetadataEpoch   int32

	// LastUpdated is the modification time of /migration.
	LastUpdated time.Time
	// MigrationZkVersion is the znode version of /migration: the version
	// the next checkpoint write is conditioned on.
	MigrationZkVersion int32
	// ZkControllerEpoch is the value of /controller_epoch claimed by this
	// controller, or -1.
	ZkControllerEpoch int32
	// ZkControllerEpochZkVersion is the znode version of /controller_epoch
	// that fences this controller's writes, or -1 for unfenced writes.
	ZkControllerEpochZkVersion int32

	// Recovered is set on a State returned by a write whose
	// acknowledgement was lost and which a reread proved had landed. It is
	// ignored on input.
	Recovered bool
}

// InitialState is the state Kafka creates /migration with: every field -1,
// and no ZooKeeper controller claimed.
func InitialState() State {
	return State{
		KRaftControllerID:          -1,
		KRaftControllerEpoch:       -1,
		KRaftMetadataOffset:        -1,
		KRaftMetadataEpoch:         -1,
		MigrationZkVersion:         -1,
		ZkControllerEpoch:          -1,
		ZkControllerEpochZkVersion: -1,
	}
}

// Checkpoint is the content of /migration that s stands for: its KRaft
// controller, its epoch and the position in the metadata log, as Update
// writes them.
func (s State) Checkpoint() znode.Migration {
	return znode.Migration{
		KRaftMetadataOffset:  s.KRaftMetadataOffset,
		KRaftControllerID:    s.KRaftControllerID,
		KRaftMetadataEpoch:   s.KRaftMetadataEpoch,
		KRaftControllerEpoch: s.KRaftControllerEpoch,
	}
}

// withMigration returns s with every stored field from m, the identity
// included, and the znode facts from version and mtime (milliseconds).
func (s State) withMigration(m znode.Migration, version int32, mtime int64) State {
	s.KRaftControllerID = m.KRaftControllerID
	s.KRaftControllerEpoch = m.KRaftControllerEpoch
	return s.withPosition(m, version, mtime)
}

// withPosition returns s with the checkpoint's position from m (offset and
// metadata epoch, not the controller's identity) and the znode facts from
// version and mtime (milliseconds).
func (s State) withPosition(m znode.Migration, version int32, mtime int64) State {
	s.KRaftMetadataOffset = m.KRaftMetadataOffset
	s.KRaftMetadataEpoch = m.KRaftMetadataEpoch
	s.MigrationZkVersion = version
	s.LastUpdated = time.UnixMilli(mtime)
	s.Recovered = false
	return s
}

// validate checks the fields every call needs: stored values are -1 or
// more, and so are the znode versions.
func (s State) validate() error {
	switch {
	case s.KRaftControllerID < -1:
		return invalidf("KRaftControllerID %d", s.KRaftControllerID)
	case s.KRaftControllerEpoch < -1:
		return invalidf("KRaftControllerEpoch %d", s.KRaftControllerEpoch)
	case s.KRaftMetadataOffset < -1:
		return invalidf("KRaftMetadataOffset %d", s.KRaftMetadataOffset)
	case s.KRaftMetadataEpoch < -1:
		return invalidf("KRaftMetadataEpoch %d", s.KRaftMetadataEpoch)
	case s.MigrationZkVersion < -1:
		return invalidf("MigrationZkVersion %d", s.MigrationZkVersion)
	case s.ZkControllerEpochZkVersion < -1:
		return invalidf("ZkControllerEpochZkVersion %d", s.ZkControllerEpochZkVersion)
	}
	return nil
}
