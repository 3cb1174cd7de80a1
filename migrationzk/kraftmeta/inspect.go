package kraftmeta

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"

	"github.com/kraftmigration/zkwriter/internal/kraftlog"
)

// Directory is what a metadata directory holds, file by file.
type Directory struct {
	// Path is the path Inspect was given; LogDir the Kafka log directory
	// holding meta.properties, "" when unknown.
	Path, LogDir string
	// Meta is what meta.properties says; zero without one.
	Meta      MetaProperties
	Snapshots []SnapshotFile
	Segments  []SegmentInfo
	// QuorumState is __cluster_metadata-0/quorum-state, nil without one.
	QuorumState *QuorumState
	// BootstrapMetadataVersion is the metadata.version bootstrap.checkpoint
	// holds, 0 without one.
	BootstrapMetadataVersion MetadataVersion
	// LastLeader is the last leader change the segments name, nil for
	// none.
	LastLeader *LeaderChange
	// LogEndOffset is the offset after the log's last record, as
	// Kafka's log end offset: an upper bound of what is committed. The
	// latest snapshot's end offset when no segment holds more.
	LogEndOffset int64
	// LastEpoch is the epoch of the log's last record (the latest
	// snapshot's when no segment holds more), what a Raft election
	// compares first.
	LastEpoch int32
	// HighestEpoch is the highest leader epoch the directory names: in a
	// batch, a snapshot's name, or quorum-state.
	HighestEpoch int32
}

// SegmentInfo is a segment and what its batches hold.
type SegmentInfo struct {
	SegmentFile
	// FirstOffset and LastOffset are those of its first and last
	// records, -1 for none.
	FirstOffset, LastOffset int64
	Batches                 int
	// FirstEpoch and LastEpoch are the leader epochs of its first and
	// last batches.
	FirstEpoch, LastEpoch int32
	Tail                  Tail
}

// QuorumState is what quorum-state says: Raft's election state, no
// offsets.
type QuorumState struct {
	LeaderID    int32 `json:"leaderId"`
	LeaderEpoch int32 `json:"leaderEpoch"`
	VotedID     int32 `json:"votedId"`
}

// OldestOffset is the oldest offset Replay can give an image at: -1 (the
// empty image) when the log starts at offset 0, else the oldest
// snapshot's last contained offset; -2 when there is none.
func (d *Directory) OldestOffset() int64 {
	if len(d.Segments) > 0 && d.Segments[0].BaseOffset == 0 {
		return -1
	}
	if len(d.Snapshots) > 0 {
		return d.Snapshots[0].LastContainedOffset()
	}
	return -2
}

// Inspect lists what the metadata directory at path holds and reads
// each segment's batches (checking their CRCs, decoding their control
// records, not their metadata records) to say which offsets and epochs
// it holds and how it ends. Like Replay, it takes no lock.
func Inspect(ctx context.Context, path string) (*Directory, error) {
	l, err := list(path)
	if err != nil {
		return nil, err
	}
	d := &Directory{Path: path, LogDir: l.logDir, Snapshots: l.snapshots, LogEndOffset: 0, LastEpoch: -1}
	if d.Meta, err = readMetaProperties(l.logDir); err != nil {
		return nil, err
	}
	for _, s := range l.snapshots {
		d.HighestEpoch = max(d.HighestEpoch, s.Epoch)
		if s.EndOffset >= d.LogEndOffset {
			d.LogEndOffset, d.LastEpoch = s.EndOffset, s.Epoch
		}
	}
	for _, seg := range l.segments {
		info, err := d.inspectSegment(ctx, seg)
		if err != nil {
			return nil, err
		}
		d.Segments = append(d.Segments, info)
	}
	if err := d.readSideFiles(l); err != nil {
		return nil, err
	}
	return d, nil
}

// inspectSegment reads a segment's batches.
func (d *Directory) inspectSegment(ctx context.Context, seg SegmentFile) (SegmentInfo, error) {
	info := SegmentInfo{SegmentFile: seg, FirstOffset: -1, LastOffset: -1, FirstEpoch: -1, LastEpoch: -1}
	err := readFile(seg.Path, func(sc *kraftlog.Scanner) error {
		for {
			if err := ctx.Err(); err != nil {
				return err
			}
			b, err := sc.Next()
			if err != nil {
				t := sc.Tail()
				info.Tail = Tail{Kind: t.Kind.String(), Bytes: t.Bytes}
				return ignoreEOF(err)
			}
			if err := d.inspectBatch(&info, b); err != nil {
				return err
			}
		}
	})
	if errors.Is(err, errVanished) {
		return info, fmt.Errorf("%s: %w", seg.Path, fs.ErrNotExist)
	}
	return info, inFile(seg.Path, err)
}

// inspectBatch records a batch of a segment.
func (d *Directory) inspectBatch(info *SegmentInfo, b kraftlog.Batch) error {
	if info.FirstOffset < 0 {
		info.FirstOffset, info.FirstEpoch = b.BaseOffset, b.PartitionLeaderEpoch
	}
	info.LastOffset, info.LastEpoch = b.LastOffset(), b.PartitionLeaderEpoch
	info.Batches++
	d.HighestEpoch = max(d.HighestEpoch, b.PartitionLeaderEpoch)
	if b.LastOffset()+1 >= d.LogEndOffset {
		d.LogEndOffset, d.LastEpoch = b.LastOffset()+1, b.PartitionLeaderEpoch
	}
	if !b.Control() {
		return nil
	}
	return eachRecord(b, func(r kraftlog.Record) error {
		m, err := kraftlog.DecodeControl(r.Key, r.Value, nil)
		if err != nil {
			return at(err, r)
		}
		if lc, ok := m.(*kraftlog.LeaderChangeMessage); ok {
			d.LastLeader = leaderChange(lc, r.Offset, b.PartitionLeaderEpoch)
		}
		return nil
	})
}

// readSideFiles reads quorum-state and bootstrap.checkpoint, when there.
func (d *Directory) readSideFiles(l layout) error {
	partDir := filepath.Join(l.logDir, MetadataPartitionDir)
	if len(l.segments) > 0 {
		partDir = filepath.Dir(l.segments[0].Path)
	} else if len(l.snapshots) > 0 {
		partDir = filepath.Dir(l.snapshots[0].Path)
	}
	data, err := os.ReadFile(filepath.Join(partDir, "quorum-state"))
	switch {
	case err == nil:
		var q QuorumState
		if err := json.Unmarshal(data, &q); err != nil {
			return fmt.Errorf("%s: %w: %v", filepath.Join(partDir, "quorum-state"), ErrCorrupt, err)
		}
		d.QuorumState = &q
		d.HighestEpoch = max(d.HighestEpoch, q.LeaderEpoch)
	case !errors.Is(err, fs.ErrNotExist):
		return err
	}
	if l.logDir == "" {
		return nil
	}
	mv, err := bootstrapMetadataVersion(filepath.Join(l.logDir, "bootstrap.checkpoint"))
	d.BootstrapMetadataVersion = mv
	return err
}

// bootstrapMetadataVersion reads the metadata.version of a
// bootstrap.checkpoint; 0 when there is none.
func bootstrapMetadataVersion(path string) (MetadataVersion, error) {
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	r, err := Replay(context.Background(), path)
	if err != nil {
		return 0, err
	}
	return r.MetadataVersion, nil
}

// ElectionOrder returns the indexes of dirs, the one a Raft election
// would choose first: the highest last epoch, then the highest log end
// offset. Ties keep their order.
func ElectionOrder(dirs []*Directory) []int {
	order := make([]int, len(dirs))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(i, j int) bool {
		a, b := dirs[order[i]], dirs[order[j]]
		if a.LastEpoch != b.LastEpoch {
			return a.LastEpoch > b.LastEpoch
		}
		return a.LogEndOffset > b.LogEndOffset
	})
	return order
}

// leaderChange returns a LEADER_CHANGE record's content.
func leaderChange(lc *kraftlog.LeaderChangeMessage, offset int64, epoch int32) *LeaderChange {
	c := &LeaderChange{Offset: offset, Epoch: epoch, LeaderID: lc.LeaderID}
	for _, v := range lc.Voters {
		c.Voters = append(c.Voters, v.VoterID)
	}
	for _, v := range lc.GrantingVoters {
		c.GrantingVoters = append(c.GrantingVoters, v.VoterID)
	}
	return c
}

func ignoreEOF(err error) error {
	if errors.Is(err, io.EOF) {
		return nil
	}
	return err
}
