package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/go-zookeeper/zk"

	"github.com/kraftmigration/zkwriter/migrationzk/kraftmeta"
)

// kraftStatusReport is the output of kraft status.
type kraftStatusReport struct {
	header
	Metadata metadataView `json:"metadata"`
	// Image is KRaft's image at the end of the log.
	Image     replayView    `json:"image"`
	Migration migrationView `json:"migration"`
	// Behind says how far /migration is behind this log.
	Behind   afterView `json:"behind"`
	Problems []string  `json:"problems"`
}

// Kinds of kraftStatusReport.Behind besides afterBehind and afterCurrent.
const (
	// behindUnknown: /migration holds no offset.
	behindNoCheckpoint = "no_checkpoint"
	// behindCleaned: /migration's offset is below the oldest image the
	// directory holds: ZooKeeper is behind by more than it can show.
	behindCleaned = "cleaned"
	// behindDirectory: the log ends below /migration's offset: an old
	// copy, or a follower that lags.
	behindDirectory = "directory_behind"
)

// metadataView is what a metadata directory holds, file by file.
type metadataView struct {
	Path        string         `json:"path"`
	LogDir      string         `json:"log_dir,omitempty"`
	ClusterID   string         `json:"cluster_id"`
	NodeID      string         `json:"node_id,omitempty"`
	DirectoryID string         `json:"directory_id,omitempty"`
	Snapshots   []snapshotView `json:"snapshots"`
	Segments    []segmentView  `json:"segments"`
	// QuorumState is quorum-state's election state.
	QuorumState *kraftmeta.QuorumState `json:"quorum_state,omitempty"`
	// BootstrapMetadataVersion is bootstrap.checkpoint's metadata.version.
	BootstrapMetadataVersion string            `json:"bootstrap_metadata_version,omitempty"`
	LastLeader               *leaderChangeView `json:"last_leader,omitempty"`
	// OldestOffset is the oldest offset an image can be had at: -1 for a
	// log from offset 0.
	OldestOffset int64 `json:"oldest_offset"`
	// LogEndOffset is the offset after the last record: an upper bound of
	// what this node may count as committed.
	LogEndOffset int64 `json:"log_end_offset"`
	LastEpoch    int32 `json:"last_epoch"`
	HighestEpoch int32 `json:"highest_epoch"`
}

type snapshotView struct {
	File                string `json:"file"`
	EndOffset           int64  `json:"end_offset"`
	LastContainedOffset int64  `json:"last_contained_offset"`
	Epoch               int32  `json:"epoch"`
	Bytes               int64  `json:"bytes"`
}

type segmentView struct {
	File        string `json:"file"`
	BaseOffset  int64  `json:"base_offset"`
	FirstOffset int64  `json:"first_offset"`
	LastOffset  int64  `json:"last_offset"`
	Batches     int    `json:"batches"`
	FirstEpoch  int32  `json:"first_epoch"`
	LastEpoch   int32  `json:"last_epoch"`
	Bytes       int64  `json:"bytes"`
	Tail        string `json:"tail"`
	TailBytes   int64  `json:"tail_bytes"`
}

type leaderChangeView struct {
	Offset   int64   `json:"offset"`
	Epoch    int32   `json:"epoch"`
	LeaderID int32   `json:"leader_id"`
	Voters   []int32 `json:"voters"`
}

func viewMetadata(d *kraftmeta.Directory) metadataView {
	v := metadataView{Path: d.Path, LogDir: d.LogDir, ClusterID: d.Meta.ClusterID, NodeID: d.Meta.NodeID, DirectoryID: d.Meta.DirectoryID,
		Snapshots: []snapshotView{}, Segments: []segmentView{}, QuorumState: d.QuorumState,
		OldestOffset: d.OldestOffset(), LogEndOffset: d.LogEndOffset, LastEpoch: d.LastEpoch, HighestEpoch: d.HighestEpoch}
	if d.BootstrapMetadataVersion != 0 {
		v.BootstrapMetadataVersion = d.BootstrapMetadataVersion.String()
	}
	if l := d.LastLeader; l != nil {
		v.LastLeader = &leaderChangeView{Offset: l.Offset, Epoch: l.Epoch, LeaderID: l.LeaderID, Voters: l.Voters}
	}
	for _, s := range d.Snapshots {
		v.Snapshots = append(v.Snapshots, snapshotView{File: filepath.Base(s.Path), EndOffset: s.EndOffset, LastContainedOffset: s.LastContainedOffset(), Epoch: s.Epoch, Bytes: s.Size})
	}
	for _, s := range d.Segments {
		v.Segments = append(v.Segments, segmentView{File: filepath.Base(s.Path), BaseOffset: s.BaseOffset, FirstOffset: s.FirstOffset, LastOffset: s.LastOffset,
			Batches: s.Batches, FirstEpoch: s.FirstEpoch, LastEpoch: s.LastEpoch, Bytes: s.Size, Tail: s.Tail.Kind, TailBytes: s.Tail.Bytes})
	}
	return v
}

// describe says what the directory holds, a line a file, then its ends.
func (v metadataView) describe() []string {
	head := v.Path
	var facts []string
	if v.LogDir != "" {
		facts = append(facts, "log directory "+v.LogDir)
	}
	if v.ClusterID != "" {
		facts = append(facts, "cluster id "+v.ClusterID)
	} else {
		facts = append(facts, "no cluster id (no meta.properties)")
	}
	if v.NodeID != "" {
		facts = append(facts, "node "+v.NodeID)
	}
	lines := []string{head + ": " + strings.Join(facts, ", ")}
	for _, s := range v.Snapshots {
		lines = append(lines, fmt.Sprintf("snapshot %s: the image at offset %d, epoch %d, %s bytes", s.File, s.LastContainedOffset, s.Epoch, commas(int(s.Bytes))))
	}
	for _, s := range v.Segments {
		l := fmt.Sprintf("segment %s: offsets %d to %d, epochs %d to %d, %s, %s bytes", s.File, s.FirstOffset, s.LastOffset, s.FirstEpoch, s.LastEpoch,
			pluralVerb(s.Batches, "batch", "batches"), commas(int(s.Bytes)))
		if s.Tail != "" && s.Tail != "clean" {
			l += fmt.Sprintf(", then %s of %d bytes", s.Tail, s.TailBytes)
		}
		lines = append(lines, l)
	}
	if q := v.QuorumState; q != nil {
		lines = append(lines, fmt.Sprintf("quorum-state: leader %d, epoch %d, voted for %d", q.LeaderID, q.LeaderEpoch, q.VotedID))
	}
	if v.BootstrapMetadataVersion != "" {
		lines = append(lines, "bootstrap.checkpoint: metadata.version "+v.BootstrapMetadataVersion)
	}
	end := fmt.Sprintf("log end offset %d (an upper bound of what this node counts as committed), last epoch %d, highest epoch named %d", v.LogEndOffset, v.LastEpoch, v.HighestEpoch)
	if l := v.LastLeader; l != nil {
		end += fmt.Sprintf("; last leader %d, elected in epoch %d at offset %d", l.LeaderID, l.Epoch, l.Offset)
	}
	return append(lines, end)
}

// setupKRaftStatus returns what runs kraft status.
func setupKRaftStatus(a *app, fs *flag.FlagSet) sessionCommand {
	return sessionCommand{args: oneMetadataPath, run: func(ctx context.Context, conn *zk.Conn, args []string) int {
		return a.kraftStatus(ctx, conn, args[0])
	}}
}

// kraftStatus reports what the metadata at path holds and how far
// /migration is behind it: exit 1 when it is, or cannot be told.
func (a *app) kraftStatus(ctx context.Context, conn *zk.Conn, path string) int {
	d, err := kraftmeta.Inspect(ctx, path)
	if err != nil {
		return a.fail(metadataFailure(path, err))
	}
	end, err := replayMetadata(ctx, path, offsetFlag())
	if err != nil {
		return a.fail(err)
	}
	m, err := a.readMigration(ctx, conn)
	if err != nil {
		return a.fail(err)
	}
	r := kraftStatusReport{header: a.header(), Metadata: viewMetadata(d), Image: viewReplay(end), Migration: m, Problems: []string{}}
	if r.Behind, err = behindMigration(ctx, path, r.Migration, d); err != nil {
		return a.fail(err)
	}
	if k := r.Behind.Kind; k != afterCurrent && k != behindNoCheckpoint {
		r.Problems = append(r.Problems, r.Behind.Text)
	}
	return a.emit(r, r.Problems, func() { a.printKRaftStatus(r) })
}

// printKRaftStatus prints a kraft status report as text.
func (a *app) printKRaftStatus(r kraftStatusReport) {
	a.printHeader()
	label := "KRaft metadata"
	w := labelWidth(r.Migration.Path, label, "Image at the end")
	a.field(w, label, r.Metadata.describe()...)
	a.field(w, "Image at the end", r.Image.describe()...)
	a.field(w, r.Migration.Path, describeMigration(r.Migration)...)
	a.printf("\nBehind: %s.\n", r.Behind.Text)
}

// behindMigration says how far /migration, m, is behind the log at path.
func behindMigration(ctx context.Context, path string, m migrationView, d *kraftmeta.Directory) (afterView, error) {
	offset := checkpointOffset(m)
	if m.State != stateOK || offset < 0 {
		return afterView{Kind: behindNoCheckpoint, Offset: offset, FirstOffset: -1, LastOffset: -1, ByType: map[string]int{}, EndOffset: d.LogEndOffset - 1,
			Text: fmt.Sprintf("%s holds no checkpoint, so how far ZooKeeper is behind cannot be told", m.Path)}, nil
	}
	r, err := kraftmeta.Replay(ctx, path, kraftmeta.AtOffset(offset))
	var oe *kraftmeta.OffsetError
	switch {
	case errors.As(err, &oe) && errors.Is(oe, kraftmeta.ErrBeyondEnd):
		return afterView{Kind: behindDirectory, Offset: offset, FirstOffset: -1, LastOffset: -1, ByType: map[string]int{}, EndOffset: oe.End,
			Text: fmt.Sprintf("this log ends at offset %d, below %s's offset %d: ZooKeeper holds more than this directory (an old copy, or a follower that lags)", oe.End, m.Path, offset)}, nil
	case errors.As(err, &oe):
		return afterView{Kind: behindCleaned, Offset: offset, FirstOffset: -1, LastOffset: -1, ByType: map[string]int{}, EndOffset: d.LogEndOffset - 1,
			Text: fmt.Sprintf("%s's offset %d is below the oldest image this directory holds (offset %d): ZooKeeper is behind by at least %d offsets, more than the directory still shows",
				m.Path, offset, oe.Oldest, d.LogEndOffset-1-offset)}, nil
	case err != nil:
		return afterView{}, metadataFailure(path, err)
	}
	return viewAfter(offset, r.After, m.Path+"'s offset", true), nil
}
