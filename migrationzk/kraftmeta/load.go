package kraftmeta

import (
	"context"
	"errors"
	"io"
	"math"

	"github.com/kraftmigration/zkwriter/internal/kraftlog"
)

// toEnd is the target of a replay to the end of the log.
const toEnd = math.MaxInt64

// loader feeds a state the batches of snapshots and segments as Kafka's
// MetadataBatchLoader does, one batch per commit, and keeps what the
// files say beside the image: offsets, epochs, leaders, skipped records,
// what follows the target.
type loader struct {
	ctx  context.Context
	s    *state
	recs records
	// start is the first offset a segment's records apply from (a
	// snapshot's end offset), target the last.
	start, target int64
	prov          provenance
	// consumed is the last offset at or below the target the files
	// hold, whether or not an open transaction undoes it.
	consumed int64
	// next is the offset the next batch of the log must start at, -1
	// before the first.
	next     int64
	rest     kraftlog.Records
	result   *Result
	skipped  map[kraftlog.RecordType]int
	noOp     kraftlog.NoOpRecord
	end      kraftlog.EndTransactionRecord
	abort    kraftlog.AbortTransactionRecord
	fileRead *FileRead
}

func newLoader(ctx context.Context, target int64, r *Result) *loader {
	return &loader{
		ctx: ctx, s: newState(), target: target, result: r,
		prov: provenance{offset: -1, epoch: -1, timeMs: -1}, consumed: -1, next: -1,
		skipped: map[kraftlog.RecordType]int{},
	}
}

// scan calls fn for each batch of the file sc reads, recording the
// file's offsets and tail.
func (l *loader) scan(path string, snapshot bool, sc *kraftlog.Scanner, fn func(kraftlog.Batch) error) error {
	fr := FileRead{Path: path, Snapshot: snapshot, FirstOffset: -1, LastOffset: -1}
	for {
		if err := l.ctx.Err(); err != nil {
			return err
		}
		b, err := sc.Next()
		if errors.Is(err, io.EOF) {
			t := sc.Tail()
			fr.Tail = Tail{Kind: t.Kind.String(), Bytes: t.Bytes}
			l.result.Files = append(l.result.Files, fr)
			return nil
		}
		if err != nil {
			return inFile(path, err)
		}
		if fr.FirstOffset < 0 {
			fr.FirstOffset = b.BaseOffset
		}
		fr.LastOffset = b.LastOffset()
		l.result.HighestEpoch = max(l.result.HighestEpoch, b.PartitionLeaderEpoch)
		if err := fn(b); err != nil {
			return inFile(path, err)
		}
	}
}

// eachRecord calls fn for each record of b.
func eachRecord(b kraftlog.Batch, fn func(kraftlog.Record) error) error {
	rs := b.Records()
	return eachLeft(&rs, fn)
}

// eachLeft calls fn for each record rs has left; rs stands after the
// record fn is given.
func eachLeft(rs *kraftlog.Records, fn func(kraftlog.Record) error) error {
	for {
		r, ok, err := rs.Next()
		if err != nil || !ok {
			return err
		}
		if err := fn(r); err != nil {
			return err
		}
	}
}

// each calls fn for each record of b, keeping in l.rest the records
// after the one fn is given.
func (l *loader) each(b kraftlog.Batch, fn func(kraftlog.Record) error) error {
	l.rest.Reset(b)
	return eachLeft(&l.rest, fn)
}

// loadSnapshot replays a snapshot into the empty image, as
// MetadataLoader.loadSnapshot does: it must start with a SnapshotHeader
// and, beyond Kafka's check, end with a SnapshotFooter; it holds no
// transaction.
func (l *loader) loadSnapshot(snap SnapshotFile, sc *kraftlog.Scanner) error {
	var header *kraftlog.SnapshotHeaderRecord
	var last kraftlog.ControlType = -1
	err := l.scan(snap.Path, true, sc, func(b kraftlog.Batch) error {
		if !b.Control() {
			last = -1
			return l.snapshotData(b, header != nil)
		}
		return l.each(b, func(r kraftlog.Record) error {
			m, err := kraftlog.DecodeControl(r.Key, r.Value, l.s.al)
			if err != nil {
				return at(err, r)
			}
			last = m.ControlType()
			if h, ok := m.(*kraftlog.SnapshotHeaderRecord); ok && header == nil {
				header = h
			} else if header == nil {
				return &kraftlog.Error{Offset: r.Offset, Pos: r.Pos, Reason: ErrCorrupt, Detail: "snapshot starts with " + last.String() + ", not a SnapshotHeader"}
			}
			return nil
		})
	})
	if err != nil {
		return err
	}
	if header == nil || last != kraftlog.ControlSnapshotFooter {
		return &FileError{File: snap.Path, Offset: -1, Pos: sc.Pos(), Reason: ErrCorrupt, Detail: "snapshot does not end with a SnapshotFooter: it is incomplete"}
	}
	l.prov = provenance{offset: snap.LastContainedOffset(), epoch: snap.Epoch, timeMs: header.LastContainedLogTimestamp}
	l.consumed = l.prov.offset
	return nil
}

// snapshotData applies the records of a data batch of a snapshot, whose
// SnapshotHeader has been read when started is set. PartitionRecords of
// the common shape, most of a snapshot, are read in place; those that
// follow their TopicRecord (counted by CountPartitionsAhead, which only
// a TopicRecord applied calls) without building a Record or a Frame.
func (l *loader) snapshotData(b kraftlog.Batch, started bool) error {
	l.rest.Reset(b)
	var h kraftlog.PartitionHead
	for {
		if offset, pos, ok := l.rest.NextPartitionHead(&h, l.s.al); ok {
			if err := l.s.applyPartitionHead(&h, offset); err != nil {
				return at(err, kraftlog.Record{Offset: offset, Pos: pos})
			}
			continue
		}
		r, ok, err := l.rest.Next()
		if err != nil || !ok {
			return err
		}
		if !started {
			return &kraftlog.Error{Offset: r.Offset, Pos: r.Pos, Reason: ErrCorrupt, Detail: "snapshot does not start with a SnapshotHeader control record"}
		}
		f, err := kraftlog.ParseFrame(r.Value)
		if err != nil {
			return at(err, r)
		}
		if f.ReadPartitionHead(&h, l.s.al) {
			err = l.s.applyPartitionHead(&h, r.Offset)
		} else {
			err = l.snapshotRecord(f, r)
		}
		if err != nil {
			return at(err, r)
		}
	}
}

// snapshotRecord applies a record of a snapshot; transaction records
// are refused, as Kafka's MetadataDelta refuses them.
func (l *loader) snapshotRecord(f kraftlog.Frame, r kraftlog.Record) error {
	switch f.Type {
	case kraftlog.BeginTransactionRecordType, kraftlog.EndTransactionRecordType, kraftlog.AbortTransactionRecordType:
		return &kraftlog.Error{Offset: r.Offset, Pos: r.Pos, Reason: ErrInconsistent, Detail: f.Type.String() + " in a snapshot"}
	}
	return l.dataRecord(f, r)
}

// at places a decoding error at record r.
func at(err error, r kraftlog.Record) error {
	if err == nil {
		return nil
	}
	var e *kraftlog.Error
	if errors.As(err, &e) {
		c := *e
		if c.Offset < 0 {
			c.Offset = r.Offset
		}
		if c.Pos < 0 {
			c.Pos = r.Pos
		}
		return &c
	}
	var fe *FileError
	if errors.As(err, &fe) {
		c := *fe
		if c.Pos < 0 {
			c.Pos = r.Pos
		}
		return &c
	}
	return err
}

// dataRecord decodes and applies a metadata record other than a
// transaction marker; records of types the image does not hold are
// decoded, checked and counted.
func (l *loader) dataRecord(f kraftlog.Frame, r kraftlog.Record) error {
	if f.Type == kraftlog.PartitionRecordType {
		var h kraftlog.PartitionHead
		if f.ReadPartitionHead(&h, l.s.al) {
			return at(l.s.applyPartitionHead(&h, r.Offset), r)
		}
		var p kraftlog.PartitionRecord
		if err := f.DecodePartition(&p, l.s.al); err != nil {
			return at(err, r)
		}
		if err := l.s.applyPartition(&p, r.Offset); err != nil {
			return at(err, r)
		}
		return nil
	}
	m := l.recs.message(f.Type)
	if m == nil {
		l.skipped[f.Type]++
		if f.Type == kraftlog.NoOpRecordType {
			return at(f.Decode(&l.noOp, l.s.al), r)
		}
		return at(f.Decode(f.Type.New(), l.s.al), r)
	}
	if err := f.Decode(m, l.s.al); err != nil {
		return at(err, r)
	}
	if f.Type == kraftlog.TopicRecordType {
		l.s.hint = l.rest.CountPartitionsAhead(l.recs.topic.TopicID)
	}
	return at(l.s.apply(&l.recs, f.Type, r.Offset), r)
}
