package kraftmeta

import (
	"strconv"

	"github.com/kraftmigration/zkwriter/internal/kraftlog"
)

// loadSegment replays a segment's batches from the loader's start to
// its target, and counts what follows the target.
func (l *loader) loadSegment(seg SegmentFile, sc *kraftlog.Scanner) error {
	return l.scan(seg.Path, false, sc, func(b kraftlog.Batch) error {
		if l.next < 0 && b.BaseOffset > l.start {
			return &kraftlog.Error{Offset: b.BaseOffset, Pos: b.Pos, Reason: ErrCorrupt,
				Detail: "the log resumes at offset " + strconv.FormatInt(b.BaseOffset, 10) + " after the snapshot ending at " + strconv.FormatInt(l.start, 10)}
		}
		if l.next >= 0 && b.BaseOffset != l.next {
			return &kraftlog.Error{Offset: b.BaseOffset, Pos: b.Pos, Reason: ErrCorrupt,
				Detail: "batch starts at offset " + strconv.FormatInt(b.BaseOffset, 10) + " where offset " + strconv.FormatInt(l.next, 10) + " was due"}
		}
		l.next = b.LastOffset() + 1
		prov := provenance{epoch: b.PartitionLeaderEpoch, timeMs: b.MaxTimestamp}
		return l.each(b, func(r kraftlog.Record) error {
			prov.offset = r.Offset
			switch {
			case r.Offset < l.start:
				return l.checkRecord(b, r, false)
			case r.Offset > l.target:
				return l.checkRecord(b, r, true)
			case b.Control():
				if err := l.controlRecord(r, b.PartitionLeaderEpoch); err != nil {
					return err
				}
			default:
				if err := l.logRecord(r); err != nil {
					return err
				}
			}
			l.prov, l.consumed = prov, r.Offset
			return nil
		})
	})
}

// logRecord applies a metadata record of the log, transaction markers
// included, as MetadataBatchLoader.replay does.
func (l *loader) logRecord(r kraftlog.Record) error {
	f, err := kraftlog.ParseFrame(r.Value)
	if err != nil {
		return at(err, r)
	}
	switch f.Type {
	case kraftlog.BeginTransactionRecordType:
		begin := &l.recs.begin
		if err := f.Decode(begin, l.s.al); err != nil {
			return at(err, r)
		}
		return at(l.s.begin(begin.Name, r.Offset, l.prov), r)
	case kraftlog.EndTransactionRecordType:
		if err := f.Decode(&l.end, l.s.al); err != nil {
			return at(err, r)
		}
		return at(l.s.end(r.Offset), r)
	case kraftlog.AbortTransactionRecordType:
		if err := f.Decode(&l.abort, l.s.al); err != nil {
			return at(err, r)
		}
		return at(l.s.abort(r.Offset), r)
	}
	return l.dataRecord(f, r)
}

// controlRecord reads a control record: a leader change is kept.
func (l *loader) controlRecord(r kraftlog.Record, epoch int32) error {
	m, err := kraftlog.DecodeControl(r.Key, r.Value, nil)
	if err != nil {
		return at(err, r)
	}
	if lc, ok := m.(*kraftlog.LeaderChangeMessage); ok {
		l.result.LastLeader = leaderChange(lc, r.Offset, epoch)
	}
	return nil
}

// checkRecord reads a record the replay does not apply: one before its
// start, or after its target, which is counted in the result's After.
func (l *loader) checkRecord(b kraftlog.Batch, r kraftlog.Record, after bool) error {
	if b.Control() {
		if err := l.controlRecord(r, b.PartitionLeaderEpoch); err != nil || !after {
			return err
		}
		l.lag().ControlRecords++
		l.lag().EndOffset = r.Offset
		return nil
	}
	m, _, err := kraftlog.DecodeValue(r.Value, nil)
	if err != nil || !after {
		return at(err, r)
	}
	lag := l.lag()
	lag.EndOffset = r.Offset
	lag.ByType[m.Type().String()]++
	if m.Type() == kraftlog.NoOpRecordType {
		lag.NoOps++
		return nil
	}
	lag.Records++
	if lag.FirstOffset < 0 {
		lag.FirstOffset = r.Offset
	}
	lag.LastOffset = r.Offset
	return nil
}

// lag returns the result's After, made on first use.
func (l *loader) lag() *Lag {
	if l.result.After == nil {
		l.result.After = &Lag{FirstOffset: -1, LastOffset: -1, ByType: map[string]int{}}
	}
	return l.result.After
}
