package znode

import "strconv"

// Migration is the content of /migration, the migration checkpoint: the
// position in the KRaft metadata log up to which ZooKeeper has been
// brought up to date, and the KRaft controller that wrote it.
type Migration struct {
	KRaftMetadataOffset  int64
	KRaftControllerID    int32
	KRaftMetadataEpoch   int32
	KRaftControllerEpoch int32
}

// migrationVersion is the only known version of /migration.
const migrationVersion = 0

// maxMigrationLen bounds the length of an encoded Migration.
const maxMigrationLen = len(`{"version":0,"kraft_metadata_offset":,"kraft_controller_id":,"kraft_metadata_epoch":,"kraft_controller_epoch":}`) + 20 + 3*11

// InitialMigration returns the checkpoint Kafka creates before the first
// migration step: every field is -1.
func InitialMigration() Migration {
	return Migration{
		KRaftMetadataOffset:  -1,
		KRaftControllerID:    -1,
		KRaftMetadataEpoch:   -1,
		KRaftControllerEpoch: -1,
	}
}

// Encode returns the JSON encoding of m as Kafka writes it, for example
//
//	{"version":0,"kraft_metadata_offset":1234,"kraft_controller_id":3000,"kraft_metadata_epoch":7,"kraft_controller_epoch":5}
func (m Migration) Encode() []byte {
	return m.AppendEncode(make([]byte, 0, maxMigrationLen))
}

// AppendEncode appends the encoding of m, as returned by Encode, to dst
// and returns the extended slice.
func (m Migration) AppendEncode(dst []byte) []byte {
	dst = append(dst, `{"version":0,"kraft_metadata_offset":`...)
	dst = strconv.AppendInt(dst, m.KRaftMetadataOffset, 10)
	dst = append(dst, `,"kraft_controller_id":`...)
	dst = strconv.AppendInt(dst, int64(m.KRaftControllerID), 10)
	dst = append(dst, `,"kraft_metadata_epoch":`...)
	dst = strconv.AppendInt(dst, int64(m.KRaftMetadataEpoch), 10)
	dst = append(dst, `,"kraft_controller_epoch":`...)
	dst = strconv.AppendInt(dst, int64(m.KRaftControllerEpoch), 10)
	return append(dst, '}')
}

// DecodeMigration decodes the content of /migration. All five keys are
// required and the version must be 0; an unknown version is reported as
// such before any other problem.
func DecodeMigration(data []byte) (Migration, error) {
	o := parseObject(MigrationPath, data)
	o.version(migrationVersion)
	m := Migration{
		KRaftMetadataOffset:  o.int64("kraft_metadata_offset"),
		KRaftControllerID:    o.int32("kraft_controller_id"),
		KRaftMetadataEpoch:   o.int32("kraft_metadata_epoch"),
		KRaftControllerEpoch: o.int32("kraft_controller_epoch"),
	}
	if o.failed() {
		return Migration{}, o.err()
	}
	return m, nil
}
