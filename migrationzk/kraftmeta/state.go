package kraftmeta

import (
	"github.com/kraftmigration/zkwriter/internal/kraftlog"
	"github.com/kraftmigration/zkwriter/migrationzk/dualwrite"
	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

// state is KRaft's metadata image as a replay builds it, record by
// record. Topics and partitions are held as the dualwrite.Image the
// replay returns, with what ZooKeeper does not hold (partition epochs,
// directories, eligible leader replicas) beside them; the smaller domains
// are held as KRaft holds them and mapped when the replay ends.
type state struct {
	al     *kraftlog.Alloc
	topics dualwrite.Image // only Topics is kept up to date
	byID   map[znode.Uuid]*topicMeta
	// last is the topic of the last partition record: a snapshot holds
	// a topic's partitions one after another.
	last *topicMeta

	configs        map[configKey]map[string]string
	quotas         map[string]*quotaEntry
	scram          map[scramKey]znode.ScramCredential
	acls           map[znode.Uuid]ACL
	tokens         map[string]znode.DelegationToken
	nextProducerID int64
	mv             MetadataVersion
	migration      MigrationState
	features       map[string]int16

	// hint is how many PartitionRecords of the topic the next
	// TopicRecord creates follow it in its batch: its map is made at that
	// size.
	hint int
	txn  *transaction
	// txnSeq numbers the transactions begun, so that a topic knows
	// whether the open one created it.
	txnSeq int
}

func newState() *state {
	return &state{
		al:             newAlloc(),
		topics:         dualwrite.Image{Topics: map[string]dualwrite.Topic{}},
		byID:           map[znode.Uuid]*topicMeta{},
		configs:        map[configKey]map[string]string{},
		quotas:         map[string]*quotaEntry{},
		scram:          map[scramKey]znode.ScramCredential{},
		acls:           map[znode.Uuid]ACL{},
		tokens:         map[string]znode.DelegationToken{},
		nextProducerID: -1,
		mv:             MinimumKRaftVersion,
		features:       map[string]int16{},
	}
}

// topicMeta is a topic as KRaft holds it: its partitions (the map its
// dualwrite.Topic holds) and what ZooKeeper does not hold of them.
type topicMeta struct {
	name  string
	id    znode.Uuid
	parts map[int32]dualwrite.Partition
	// epochs holds the partition epochs of partitions 0 to len-1,
	// sparseEpochs those of others: memory the collector need not scan.
	epochs       []int32
	sparseEpochs map[int32]int32
	// rare holds, by partition, what few partitions have.
	rare map[int32]*partRare
	// txn is the sequence number of the transaction that created the
	// topic, 0 for none.
	txn int
}

// partExtra is what KRaft holds of a partition beyond ZooKeeper.
type partExtra struct {
	epoch int32
	rare  *partRare
}

// partRare holds what few partitions have: directories other than
// MIGRATING, eligible leader replicas.
type partRare struct {
	dirs              []znode.Uuid
	elr, lastKnownElr []int32
}

func (t *topicMeta) extra(id int32) partExtra {
	e := partExtra{rare: t.rare[id]}
	if id >= 0 && int(id) < len(t.epochs) {
		e.epoch = t.epochs[id]
	} else {
		e.epoch = t.sparseEpochs[id]
	}
	return e
}

// setEpoch sets partition id's epoch and no rare extras, as setExtra
// does, at once for the partition after the last in order, as a snapshot
// lists them.
func (t *topicMeta) setEpoch(id, epoch int32) {
	if int(id) == len(t.epochs) && t.sparseEpochs == nil { // then id was never set, and has no rare extras
		t.epochs = append(t.epochs, epoch)
		return
	}
	t.setExtra(id, partExtra{epoch: epoch})
}

func (t *topicMeta) setExtra(id int32, e partExtra) {
	switch {
	case id >= 0 && int(id) < len(t.epochs):
		t.epochs[id] = e.epoch
	case id >= 0 && int(id) == len(t.epochs) && t.sparseEpochs[id] == 0:
		t.epochs = append(t.epochs, e.epoch)
	default:
		if t.sparseEpochs == nil {
			t.sparseEpochs = map[int32]int32{}
		}
		t.sparseEpochs[id] = e.epoch
	}
	switch {
	case e.rare != nil:
		if t.rare == nil {
			t.rare = map[int32]*partRare{}
		}
		t.rare[id] = e.rare
	case t.rare != nil:
		delete(t.rare, id)
	}
}

// configKey names a config resource: its type as Kafka's ConfigResource
// reads it (2 TOPIC, 4 BROKER, 8 BROKER_LOGGER, 16 CLIENT_METRICS, 0
// for any other) and its name.
type configKey struct {
	typ  int8
	name string
}

// configType returns the ConfigResource type of a record's resource
// type: an id Kafka does not know is UNKNOWN (0).
func configType(t int8) int8 {
	switch t {
	case 2, 4, 8, 16:
		return t
	}
	return 0
}

// quotaEntry is a client-quota entity as KRaft holds it: one name per
// entity type, nil for the default entity.
type quotaEntry struct {
	entity map[string]*string
	quotas map[string]float64
}

// scramKey names a SCRAM credential: a user and a mechanism as Kafka's
// ScramMechanism reads it (1 SHA-256, 2 SHA-512, 0 for any other).
type scramKey struct {
	user      string
	mechanism int8
}

// newAlloc returns the Alloc of a replay: strings interned, int32 slices
// carved from chunks, directories decoded into one buffer that newRare
// copies from.
func newAlloc() *kraftlog.Alloc {
	al := kraftlog.NewAlloc()
	al.ReuseUUIDs = true
	return al
}
