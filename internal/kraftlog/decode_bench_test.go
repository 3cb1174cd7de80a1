package kraftlog_test

import (
	"testing"

	"github.com/kraftmigration/zkwriter/internal/kraftlog"
	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

// BenchmarkDecodePartitionRecord decodes a PartitionRecord of version 1
// as a snapshot at 3.7-IV2 or later holds it: three replicas, all
// directories MIGRATING.
func BenchmarkDecodePartitionRecord(b *testing.B) {
	value, err := kraftlog.AppendValue(nil, &kraftlog.PartitionRecord{TopicID: topicID, Replicas: []int32{1, 2, 3}, Isr: []int32{1, 2, 3},
		RemovingReplicas: []int32{}, AddingReplicas: []int32{}, Leader: 1, Directories: make([]znode.Uuid, 3)}, 1)
	if err != nil {
		b.Fatal(err)
	}
	f, err := kraftlog.ParseFrame(value)
	if err != nil {
		b.Fatal(err)
	}
	al := kraftlog.NewAlloc()
	al.ReuseUUIDs = true
	var m kraftlog.PartitionRecord
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if err := f.Decode(&m, al); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRecords reads the records of a batch of 1,000 PartitionRecords.
func BenchmarkRecords(b *testing.B) {
	value, err := kraftlog.AppendValue(nil, &kraftlog.PartitionRecord{TopicID: topicID, Replicas: []int32{1, 2, 3}, Isr: []int32{1, 2, 3},
		RemovingReplicas: []int32{}, AddingReplicas: []int32{}, Leader: 1, Directories: make([]znode.Uuid, 3)}, 1)
	if err != nil {
		b.Fatal(err)
	}
	nb := kraftlog.NewBatch{}
	for i := 0; i < 1000; i++ {
		nb.Records = append(nb.Records, kraftlog.NewRecord{Value: value})
	}
	s := kraftlog.NewScanner(kraftlog.AppendBatch(nil, nb))
	batch, err := s.Next()
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		rs := batch.Records()
		for {
			_, ok, err := rs.Next()
			if err != nil {
				b.Fatal(err)
			}
			if !ok {
				break
			}
		}
	}
}
