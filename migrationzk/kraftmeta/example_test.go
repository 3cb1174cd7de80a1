package kraftmeta_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/kraftmigration/zkwriter/internal/kraftlog"
	"github.com/kraftmigration/zkwriter/migrationzk/dualwrite"
	"github.com/kraftmigration/zkwriter/migrationzk/kraftmeta"
	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

// exampleLog writes, under a new Kafka log directory, a metadata log as
// a migration leaves it: metadata.version 3.9-IV0, the "ZK Migration"
// transaction with topic orders, a leader change, an ISR shrink, and a
// transaction still open at the end. It returns the log directory.
func exampleLog(leaderEpochs int) string {
	dir, err := os.MkdirTemp("", "kraftmeta-example")
	if err != nil {
		log.Fatal(err)
	}
	part := filepath.Join(dir, kraftmeta.MetadataPartitionDir)
	if err := os.Mkdir(part, 0o755); err != nil {
		log.Fatal(err)
	}
	orders := znode.Uuid{MostSignificantBits: 0x0123456789abcdef, LeastSignificantBits: 0x0fedcba987654321}
	name := "ZK Migration"
	var file []byte
	offset, epoch := int64(0), int32(1)
	batch := func(control bool, recs ...kraftlog.NewRecord) {
		file = kraftlog.AppendBatch(file, kraftlog.NewBatch{BaseOffset: offset, Epoch: epoch, Timestamp: 1732093200000 + offset, Control: control, Records: recs})
		offset += int64(len(recs))
	}
	record := func(m kraftlog.Message, v int16) kraftlog.NewRecord {
		r, err := kraftlog.MetadataRecord(m, v)
		if err != nil {
			log.Fatal(err)
		}
		return r
	}
	leader := func(id int32) { batch(true, kraftlog.ControlRecord(&kraftlog.LeaderChangeMessage{LeaderID: id})) }
	leader(3000)
	batch(false, record(&kraftlog.FeatureLevelRecord{Name: "metadata.version", FeatureLevel: 21}, 0),
		record(&kraftlog.ZkMigrationStateRecord{ZkMigrationState: 2}, 0))
	batch(false, record(&kraftlog.BeginTransactionRecord{Name: &name}, 0),
		record(&kraftlog.TopicRecord{Name: "orders", TopicID: orders}, 0),
		record(&kraftlog.PartitionRecord{TopicID: orders, Replicas: []int32{1, 2, 3}, Isr: []int32{1, 2, 3}, Leader: 1}, 0))
	batch(false, record(&kraftlog.ZkMigrationStateRecord{ZkMigrationState: 1}, 0), record(&kraftlog.EndTransactionRecord{}, 0))
	for e := 1; e < leaderEpochs; e++ {
		epoch++
		leader(3000 + int32(e))
	}
	batch(false, record(&kraftlog.PartitionChangeRecord{TopicID: orders, Isr: []int32{1, 2}, Leader: 1, LeaderRecoveryState: -1}, 0))
	batch(false, record(&kraftlog.BeginTransactionRecord{}, 0), record(&kraftlog.TopicRecord{Name: "late", TopicID: znode.Uuid{LeastSignificantBits: 7}}, 0))
	if err := os.WriteFile(filepath.Join(part, "00000000000000000000.log"), file, 0o644); err != nil {
		log.Fatal(err)
	}
	return dir
}

// Replay reads a Kafka log directory and returns what ZooKeeper must
// hold, and where KRaft's image stands.
func ExampleReplay() {
	dir := exampleLog(2)
	defer os.RemoveAll(dir)
	r, err := kraftmeta.Replay(context.Background(), dir)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("offset", r.Offset, "epoch", r.Epoch, r.MetadataVersion, r.MigrationState)
	p := r.Image.Topics["orders"].Partitions[0]
	fmt.Println("orders-0: leader", p.State.Leader, "epoch", p.State.LeaderEpoch, "isr", p.State.ISR)
	fmt.Printf("open transaction from offset %d; last leader %d\n", r.OpenTransaction.BeginOffset, r.LastLeader.LeaderID)
	// Output:
	// offset 9 epoch 2 3.9-IV0 MIGRATION
	// orders-0: leader 1 epoch 1 isr [1 2]
	// open transaction from offset 10; last leader 3001
}

// AtOffset replays to the offset /migration records, and says what the
// log holds after it: what ZooKeeper lacks if /migration stopped there.
func ExampleAtOffset() {
	dir := exampleLog(2)
	defer os.RemoveAll(dir)
	r, err := kraftmeta.Replay(context.Background(), dir, kraftmeta.AtOffset(7))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("offset", r.Offset, "state", r.MigrationState)
	fmt.Printf("after it: %d records, offsets %d to %d, %d control record\n", r.After.Records, r.After.FirstOffset, r.After.LastOffset, r.After.ControlRecords)
	// Output:
	// offset 7 state MIGRATION
	// after it: 3 records, offsets 9 to 11, 1 control record
}

// A target inside a transaction gives the image published before it
// began.
func ExampleResult_OpenTransaction() {
	dir := exampleLog(1)
	defer os.RemoveAll(dir)
	r, err := kraftmeta.Replay(context.Background(), dir, kraftmeta.AtOffset(4))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%q from offset %d is open: the image stands at offset %d, %d topics, %s\n",
		r.OpenTransaction.Name, r.OpenTransaction.BeginOffset, r.Offset, len(r.Image.Topics), r.MigrationState)
	// Output:
	// "ZK Migration" from offset 3 is open: the image stands at offset 2, 0 topics, PRE_MIGRATION
}

// Partition returns what KRaft holds of a partition beyond what
// ZooKeeper holds.
func ExampleResult_Partition() {
	dir := exampleLog(1)
	defer os.RemoveAll(dir)
	r, err := kraftmeta.Replay(context.Background(), dir)
	if err != nil {
		log.Fatal(err)
	}
	d, _ := r.Partition("orders", 0)
	fmt.Println("partition epoch", d.PartitionEpoch, "directories", d.Directories[0])
	// Output:
	// partition epoch 1 directories AAAAAAAAAAAAAAAAAAAAAA
}

// ReplayBytes replays one file held in memory.
func ExampleReplayBytes() {
	dir := exampleLog(1)
	defer os.RemoveAll(dir)
	data, err := os.ReadFile(filepath.Join(dir, kraftmeta.MetadataPartitionDir, "00000000000000000000.log"))
	if err != nil {
		log.Fatal(err)
	}
	r, err := kraftmeta.ReplayBytes(context.Background(), "00000000000000000000.log", data)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(len(r.Image.Topics), "topic at offset", r.Offset)
	// Output:
	// 1 topic at offset 8
}

// Inspect says what a directory holds, without replaying it.
func ExampleInspect() {
	dir := exampleLog(2)
	defer os.RemoveAll(dir)
	d, err := kraftmeta.Inspect(context.Background(), dir)
	if err != nil {
		log.Fatal(err)
	}
	s := d.Segments[0]
	fmt.Printf("%s: offsets %d to %d in %d batches, epochs %d to %d, tail %s\n", filepath.Base(s.Path), s.FirstOffset, s.LastOffset, s.Batches, s.FirstEpoch, s.LastEpoch, s.Tail.Kind)
	fmt.Println("log end offset", d.LogEndOffset, "last epoch", d.LastEpoch, "leader", d.LastLeader.LeaderID)
	// Output:
	// 00000000000000000000.log: offsets 0 to 11 in 7 batches, epochs 1 to 2, tail clean
	// log end offset 12 last epoch 2 leader 3001
}

// ElectionOrder ranks voters' directories as a Raft election would:
// highest last epoch first, then highest log end offset.
func ExampleElectionOrder() {
	a, b := exampleLog(1), exampleLog(3)
	defer os.RemoveAll(a)
	defer os.RemoveAll(b)
	var dirs []*kraftmeta.Directory
	for _, dir := range []string{a, b} {
		d, err := kraftmeta.Inspect(context.Background(), dir)
		if err != nil {
			log.Fatal(err)
		}
		dirs = append(dirs, d)
	}
	order := kraftmeta.ElectionOrder(dirs)
	fmt.Println("first:", order[0], "epoch", dirs[order[0]].LastEpoch, "then:", order[1], "epoch", dirs[order[1]].LastEpoch)
	// Output:
	// first: 1 epoch 3 then: 0 epoch 1
}

// A corrupted file is a *FileError naming the file, the offset and what
// is wrong.
func ExampleFileError() {
	dir := exampleLog(1)
	defer os.RemoveAll(dir)
	seg := filepath.Join(dir, kraftmeta.MetadataPartitionDir, "00000000000000000000.log")
	data, _ := os.ReadFile(seg)
	data[len(data)-2] ^= 1 // in the last batch, offsets 9 and 10
	if err := os.WriteFile(seg, data, 0o644); err != nil {
		log.Fatal(err)
	}
	_, err := kraftmeta.Replay(context.Background(), dir)
	var fe *kraftmeta.FileError
	fmt.Println(errors.Is(err, kraftmeta.ErrCRC), errors.As(err, &fe) && fe.Offset == 9)
	// Output:
	// true true
}

// A target beyond the log is an *OffsetError naming where it ends.
func ExampleOffsetError() {
	dir := exampleLog(1)
	defer os.RemoveAll(dir)
	_, err := kraftmeta.Replay(context.Background(), dir, kraftmeta.AtOffset(100))
	var oe *kraftmeta.OffsetError
	fmt.Println(errors.As(err, &oe), errors.Is(err, kraftmeta.ErrBeyondEnd), oe.End)
	// Output:
	// true true 10
}

// The image maps to ZooKeeper as Kafka's dual-write maps it: a dualwrite
// Client's Diff or Sync takes it as the desired image.
func ExampleResult_Image() {
	dir := exampleLog(1)
	defer os.RemoveAll(dir)
	r, err := kraftmeta.Replay(context.Background(), dir)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Print(dualwrite.Diff(dualwrite.NewImage(), r.Image))
	// Output:
	// create-topic orders
	//     topic_id: (none) -> ASNFZ4mrze8P7cuph2VDIQ
	//     partition 0 replicas: (none) -> [1,2,3]
	//     partition 0 leader: (none) -> 1
	//     partition 0 leader_epoch: (none) -> 1
	//     partition 0 isr: (none) -> [1,2]
	//     partition 0 leader_recovery_state: (none) -> 0
	// 1 change (create-topic 1), 0 znodes skipped
}

// MetadataVersion names feature levels as Kafka does.
func ExampleMetadataVersion_String() {
	fmt.Println(kraftmeta.MetadataVersion(8), kraftmeta.MetadataVersion(21), kraftmeta.MetadataVersion(30))
	// Output:
	// 3.4-IV0 3.9-IV0 level 30
}

// exampleSnapshot writes into dir's metadata log the snapshot Kafka
// would take of exampleLog(1)'s image after offset 7, and deletes the
// segments below it as retention would.
func exampleSnapshot(dir string, deleteLog bool) {
	orders := znode.Uuid{MostSignificantBits: 0x0123456789abcdef, LeastSignificantBits: 0x0fedcba987654321}
	var recs []kraftlog.NewRecord
	for _, m := range []kraftlog.Message{
		&kraftlog.FeatureLevelRecord{Name: "metadata.version", FeatureLevel: 21},
		&kraftlog.ZkMigrationStateRecord{ZkMigrationState: 1},
		&kraftlog.TopicRecord{Name: "orders", TopicID: orders},
		&kraftlog.PartitionRecord{TopicID: orders, Replicas: []int32{1, 2, 3}, Isr: []int32{1, 2, 3}, Leader: 1},
	} {
		r, err := kraftlog.MetadataRecord(m, 0)
		if err != nil {
			log.Fatal(err)
		}
		recs = append(recs, r)
	}
	ts := int64(1732093200006)
	file := kraftlog.AppendBatch(nil, kraftlog.NewBatch{Epoch: 1, Timestamp: ts, Control: true,
		Records: []kraftlog.NewRecord{kraftlog.ControlRecord(&kraftlog.SnapshotHeaderRecord{LastContainedLogTimestamp: ts})}})
	file = kraftlog.AppendBatch(file, kraftlog.NewBatch{BaseOffset: 1, Epoch: 1, Timestamp: ts, Records: recs})
	file = kraftlog.AppendBatch(file, kraftlog.NewBatch{BaseOffset: 5, Epoch: 1, Timestamp: ts, Control: true,
		Records: []kraftlog.NewRecord{kraftlog.ControlRecord(&kraftlog.SnapshotFooterRecord{})}})
	part := filepath.Join(dir, kraftmeta.MetadataPartitionDir)
	if err := os.WriteFile(filepath.Join(part, "00000000000000000008-0000000001.checkpoint"), file, 0o644); err != nil {
		log.Fatal(err)
	}
	if deleteLog {
		if err := os.Remove(filepath.Join(part, "00000000000000000000.log")); err != nil {
			log.Fatal(err)
		}
	}
}

// A replay starts from the latest snapshot at or below its target;
// WithoutSnapshots replays the whole log instead, which gives the same
// image while the log still starts at offset 0.
func ExampleWithoutSnapshots() {
	dir := exampleLog(1)
	defer os.RemoveAll(dir)
	exampleSnapshot(dir, false)
	for _, opts := range [][]kraftmeta.Option{nil, {kraftmeta.WithoutSnapshots()}} {
		r, err := kraftmeta.Replay(context.Background(), dir, opts...)
		if err != nil {
			log.Fatal(err)
		}
		from := "offset 0"
		if r.Snapshot != nil {
			from = filepath.Base(r.Snapshot.Path)
		}
		p := r.Image.Topics["orders"].Partitions[0]
		fmt.Println("from", from, "to offset", r.Offset, "isr", p.State.ISR, "leader epoch", p.State.LeaderEpoch)
	}
	// Output:
	// from 00000000000000000008-0000000001.checkpoint to offset 8 isr [1 2] leader epoch 1
	// from offset 0 to offset 8 isr [1 2] leader epoch 1
}

// OldestOffset says how far back a directory can be replayed: once
// retention deleted the segments below a snapshot, no further than it.
func ExampleDirectory_OldestOffset() {
	dir := exampleLog(1)
	defer os.RemoveAll(dir)
	exampleSnapshot(dir, true)
	d, err := kraftmeta.Inspect(context.Background(), dir)
	if err != nil {
		log.Fatal(err)
	}
	_, err = kraftmeta.Replay(context.Background(), dir, kraftmeta.AtOffset(3))
	fmt.Println("oldest image at offset", d.OldestOffset(), "; at offset 3:", errors.Is(err, kraftmeta.ErrBelowOldest))
	// Output:
	// oldest image at offset 7 ; at offset 3: true
}
