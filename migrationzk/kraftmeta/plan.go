package kraftmeta

import (
	"fmt"
	"sort"
)

// plan is what a replay reads: a snapshot, if any, then segments.
type plan struct {
	snapshot *SnapshotFile
	segments []SegmentFile
}

// plan chooses the files for o's target: the latest snapshot whose last
// contained offset is at or below it, then the segments from the one
// holding the snapshot's end offset; without such a snapshot, the log
// from offset 0.
func (l layout) plan(o options) (plan, error) {
	var p plan
	if !o.noSnapshots {
		for i := len(l.snapshots) - 1; i >= 0; i-- {
			if l.snapshots[i].LastContainedOffset() <= o.target {
				s := l.snapshots[i]
				p.snapshot = &s
				break
			}
		}
	}
	start := int64(0)
	if p.snapshot != nil {
		start = p.snapshot.EndOffset
	} else if err := l.checkLogStart(o); err != nil {
		return plan{}, err
	}
	if l.single && p.snapshot != nil {
		return p, nil
	}
	first := sort.Search(len(l.segments), func(i int) bool { return l.segments[i].BaseOffset > start }) - 1
	switch {
	case first >= 0:
		p.segments = l.segments[first:]
	case len(l.segments) > 0 && l.segments[0].BaseOffset >= 0:
		return plan{}, fmt.Errorf("%s: %w: offsets %d to %d are in no segment", l.segments[0].Path, ErrCorrupt, start, l.segments[0].BaseOffset-1)
	case len(l.segments) > 0:
		p.segments = l.segments // one file, its base offset unknown
	}
	return p, nil
}

// checkLogStart checks that, without a snapshot, the log starts at
// offset 0.
func (l layout) checkLogStart(o options) error {
	if len(l.segments) > 0 && l.segments[0].BaseOffset <= 0 {
		return nil
	}
	if len(l.snapshots) > 0 && !o.noSnapshots {
		return &OffsetError{Target: o.target, Oldest: l.snapshots[0].LastContainedOffset(), End: -1, Reason: ErrBelowOldest}
	}
	if len(l.segments) > 0 {
		return fmt.Errorf("%s: %w: the log starts at offset %d, and no snapshot ends there", l.segments[0].Path, ErrBelowOldest, l.segments[0].BaseOffset)
	}
	return fmt.Errorf("%w: no segment to replay without a snapshot", ErrNoMetadata)
}
