package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/kraftmigration/zkwriter/internal/kraftdiff"
	"github.com/kraftmigration/zkwriter/migrationzk/kraftmeta"
)

// Kinds of error, in the json output's "error_kind", of the commands that
// read KRaft's metadata.
const (
	// kindKRaftMetadata: a metadata file or directory that cannot be
	// read: missing, holding no metadata, or corrupt.
	kindKRaftMetadata = "kraft_metadata"
	// kindKRaftOffset: the offset to compare at is not in the metadata.
	kindKRaftOffset = "kraft_offset"
	// kindNoMigration: /migration records no offset to compare at.
	kindNoMigration = "no_migration"
)

// metadataError is KRaft's metadata that cannot be read or replayed to
// the offset asked for.
type metadataError struct{ err error }

func (e *metadataError) Error() string { return e.err.Error() }
func (e *metadataError) Unwrap() error { return e.err }

func (e *metadataError) errorKind() string {
	var end *kraftdiff.EndError
	switch {
	case errors.As(e.err, &end), errors.As(e.err, new(*kraftmeta.OffsetError)):
		return kindKRaftOffset
	case errors.Is(e.err, kraftdiff.ErrNoMigration):
		return kindNoMigration
	}
	return kindKRaftMetadata
}

// metadataFailure wraps an error of reading KRaft's metadata at path for
// the output, saying what the path was when the error does not.
func metadataFailure(path string, err error) error {
	var fe *kraftmeta.FileError
	var oe *kraftmeta.OffsetError
	switch {
	case errors.As(err, new(*kraftdiff.EndError)):
		return &metadataError{err}
	case errors.As(err, &oe):
		return &metadataError{fmt.Errorf("KRaft metadata %s: %w", path, err)}
	case errors.As(err, &fe), errors.Is(err, kraftmeta.ErrNoMetadata):
		return &metadataError{fmt.Errorf("cannot read the KRaft metadata: %w", err)}
	case errors.Is(err, fs.ErrNotExist):
		return &metadataError{fmt.Errorf("KRaft metadata %s: no such file or directory: give a Kafka log directory (holding %s), the metadata log's own directory, a .checkpoint or a .log",
			path, kraftmeta.MetadataPartitionDir)}
	case errors.As(err, new(*fs.PathError)), errors.Is(err, kraftmeta.ErrChanging):
		return &metadataError{fmt.Errorf("KRaft metadata %s: %w", path, err)}
	}
	return err
}

// oneMetadataPath checks the arguments of a command that reads one
// metadata directory or file.
func oneMetadataPath(args []string) error {
	switch len(args) {
	case 1:
		return nil
	case 0:
		return usageError{errors.New("give KRaft's metadata: a Kafka log directory (holding " + kraftmeta.MetadataPartitionDir +
			"), the metadata log's own directory, a .checkpoint or a .log")}
	}
	return usageError{fmt.Errorf("want one metadata directory or file, got %d: %s", len(args), strings.Join(args, " "))}
}

// wholeFlag is a flag holding a whole number from 0 to max, set or not:
// --at's offset, --controller-id.
type wholeFlag struct {
	n   int64
	set bool
	// max is the largest value; what says what the value is.
	max  int64
	what string
}

// offsetFlag returns an unset --at.
func offsetFlag() wholeFlag {
	return wholeFlag{max: math.MaxInt64, what: "an offset of the metadata log"}
}

func (f *wholeFlag) String() string {
	if f == nil || !f.set {
		return ""
	}
	return strconv.FormatInt(f.n, 10)
}

func (f *wholeFlag) Set(s string) error {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 || n > f.max {
		return fmt.Errorf("want %s, a whole number from 0 to %d", f.what, f.max)
	}
	f.n, f.set = n, true
	return nil
}

// replayView is KRaft's image as a replay reached it.
type replayView struct {
	// Offset and Epoch are the image's: what /migration records of it.
	Offset int64 `json:"offset"`
	Epoch  int32 `json:"epoch"`
	// LastContainedLogTime is the timestamp of the batch of Offset.
	LastContainedLogTime string `json:"last_contained_log_time,omitempty"`
	MetadataVersion      string `json:"metadata_version"`
	MigrationState       string `json:"migration_state"`
	// Snapshot is the snapshot the replay started from.
	Snapshot string `json:"snapshot,omitempty"`
	// OpenTransaction is a transaction open at the offset, which the
	// image does not hold.
	OpenTransaction *transactionView `json:"open_transaction,omitempty"`
	Topics          int              `json:"topics"`
	Partitions      int              `json:"partitions"`
	// Skipped counts by type the records that do not change what
	// ZooKeeper holds.
	Skipped    map[string]int `json:"skipped"`
	Unmirrored unmirroredView `json:"unmirrored"`
	// Tails lists the files that end in a batch cut short or in zeros.
	Tails []tailView `json:"tails"`
}

// transactionView is a metadata transaction.
type transactionView struct {
	Name        string `json:"name"`
	BeginOffset int64  `json:"begin_offset"`
}

// unmirroredView counts what KRaft holds that ZooKeeper never mirrors.
type unmirroredView struct {
	Configs                int              `json:"configs"`
	ClientQuotas           int              `json:"client_quotas"`
	Scram                  int              `json:"scram"`
	ACLs                   int              `json:"acls"`
	Features               map[string]int16 `json:"features"`
	Directories            int              `json:"directories"`
	EligibleLeaderReplicas int              `json:"eligible_leader_replicas"`
}

// tailView is how a file read ended, when not cleanly.
type tailView struct {
	File  string `json:"file"`
	Kind  string `json:"kind"`
	Bytes int64  `json:"bytes"`
}

func viewReplay(r *kraftmeta.Result) replayView {
	v := replayView{
		Offset: r.Offset, Epoch: r.Epoch,
		MetadataVersion: r.MetadataVersion.String(), MigrationState: r.MigrationState.String(),
		Topics: len(r.Image.Topics), Partitions: countPartitions(r.Image), Skipped: r.Skipped, Tails: []tailView{},
		Unmirrored: unmirroredView{
			Configs: len(r.Unmirrored.Configs), ClientQuotas: len(r.Unmirrored.ClientQuotas), Scram: len(r.Unmirrored.Scram),
			ACLs: len(r.Unmirrored.ACLs), Features: r.Unmirrored.Features, Directories: r.Unmirrored.Directories,
			EligibleLeaderReplicas: r.Unmirrored.EligibleLeaderReplicas,
		},
	}
	if v.Unmirrored.Features == nil {
		v.Unmirrored.Features = map[string]int16{}
	}
	if r.Offset >= 0 && r.LastContainedLogTimeMs > 0 {
		v.LastContainedLogTime = timeText(time.UnixMilli(r.LastContainedLogTimeMs))
	}
	if r.Snapshot != nil {
		v.Snapshot = filepath.Base(r.Snapshot.Path)
	}
	if t := r.OpenTransaction; t != nil {
		v.OpenTransaction = &transactionView{Name: t.Name, BeginOffset: t.BeginOffset}
	}
	for _, f := range r.Files {
		if f.Tail.Kind != "" && f.Tail.Kind != "clean" {
			v.Tails = append(v.Tails, tailView{File: filepath.Base(f.Path), Kind: f.Tail.Kind, Bytes: f.Tail.Bytes})
		}
	}
	return v
}

// describe says in a few lines what the image is.
func (v replayView) describe() []string {
	lines := []string{fmt.Sprintf("offset %d, epoch %d, metadata.version %s, migration state %s: %s, %s",
		v.Offset, v.Epoch, v.MetadataVersion, v.MigrationState, pluralVerb(v.Topics, "topic", "topics"), pluralVerb(v.Partitions, "partition", "partitions"))}
	if t := v.OpenTransaction; t != nil {
		lines = append(lines, fmt.Sprintf("a transaction %q begun at offset %d is open there: the image is the one Kafka published before it began", t.Name, t.BeginOffset))
	}
	for _, t := range v.Tails {
		lines = append(lines, fmt.Sprintf("%s ends in %s of %d bytes after its last complete batch (a segment being written, or torn)", t.File, t.Kind, t.Bytes))
	}
	if u := v.Unmirrored.describe(); u != "" {
		lines = append(lines, "held by KRaft, never mirrored into ZooKeeper: "+u)
	}
	return lines
}

// describe lists what is unmirrored, "" for nothing.
func (u unmirroredView) describe() string {
	var parts []string
	for _, c := range []struct {
		n          int
		one, other string
	}{
		{u.Configs, "config resource of another type", "config resources of other types"},
		{u.ClientQuotas, "client quota entity ZooKeeper cannot name", "client quota entities ZooKeeper cannot name"},
		{u.Scram, "SCRAM credential of another mechanism", "SCRAM credentials of other mechanisms"},
		{u.ACLs, "ACL ZooKeeper cannot hold", "ACLs ZooKeeper cannot hold"},
		{u.Directories, "partition with log directories", "partitions with log directories"},
		{u.EligibleLeaderReplicas, "partition with eligible leader replicas", "partitions with eligible leader replicas"},
	} {
		if c.n > 0 {
			parts = append(parts, pluralVerb(c.n, c.one, c.other))
		}
	}
	for _, name := range slices.Sorted(maps.Keys(u.Features)) {
		parts = append(parts, fmt.Sprintf("feature %s level %d", name, u.Features[name]))
	}
	return strings.Join(parts, ", ")
}

// afterView is what the metadata log holds after an offset: what KRaft
// may have committed that ZooKeeper lacks.
type afterView struct {
	// Kind is "behind" when metadata records other than NoOps follow
	// the offset, else "current".
	Kind string `json:"kind"`
	// Offset is the offset compared at.
	Offset int64 `json:"offset"`
	// Records counts the metadata records after Offset, NoOps aside;
	// FirstOffset and LastOffset are the first and last of them, -1 for
	// none.
	Records     int   `json:"records"`
	FirstOffset int64 `json:"first_offset"`
	LastOffset  int64 `json:"last_offset"`
	// NoOps and ControlRecords count the NoOps and control records after
	// Offset; ByType counts the records by type, NoOps included.
	NoOps          int            `json:"noops"`
	ControlRecords int            `json:"control_records"`
	ByType         map[string]int `json:"by_type"`
	// EndOffset is the last offset the log holds.
	EndOffset int64  `json:"end_offset"`
	Text      string `json:"text"`
}

// Kinds of afterView.
const (
	afterBehind  = "behind"
	afterCurrent = "current"
)

// viewAfter says what lag holds after offset; who names what stands at
// offset ("/migration's offset"), and lacks says ZooKeeper lacks it.
func viewAfter(offset int64, lag *kraftmeta.Lag, who string, lacks bool) afterView {
	v := afterView{Kind: afterCurrent, Offset: offset, Records: lag.Records, FirstOffset: lag.FirstOffset, LastOffset: lag.LastOffset,
		NoOps: lag.NoOps, ControlRecords: lag.ControlRecords, ByType: lag.ByType, EndOffset: lag.EndOffset}
	if v.ByType == nil {
		v.ByType = map[string]int{}
	}
	besides := fmt.Sprintf("%s and %s", pluralVerb(lag.NoOps, "NoOp", "NoOps"), pluralVerb(lag.ControlRecords, "control record", "control records"))
	if lag.Records == 0 {
		v.Text = fmt.Sprintf("none: KRaft's log holds nothing after %s %d but %s; it ends at offset %d", who, offset, besides, lag.EndOffset)
		return v
	}
	v.Kind = afterBehind
	var types []string
	for _, t := range slices.Sorted(maps.Keys(lag.ByType)) {
		if t != "NoOpRecord" {
			types = append(types, fmt.Sprintf("%s %d", t, lag.ByType[t]))
		}
	}
	lacking := ""
	if lacks {
		lacking = " that ZooKeeper lacks"
	}
	v.Text = fmt.Sprintf("KRaft's log holds %s after %s %d%s, offsets %d to %d (%s), besides %s; it ends at offset %d",
		pluralVerb(lag.Records, "metadata record", "metadata records"), who, offset, lacking, lag.FirstOffset, lag.LastOffset, strings.Join(types, ", "), besides, lag.EndOffset)
	return v
}

// replayMetadata replays the metadata at path, to offset at when set.
func replayMetadata(ctx context.Context, path string, at wholeFlag) (*kraftmeta.Result, error) {
	var opts []kraftmeta.Option
	if at.set {
		opts = append(opts, kraftmeta.AtOffset(at.n))
	}
	r, err := kraftmeta.Replay(ctx, path, opts...)
	if err != nil {
		return nil, metadataFailure(path, err)
	}
	return r, nil
}

// tailWarning is the warning of a comparison at an offset given with
// --at: the end of a log may not be committed.
func tailWarning(offset int64) string {
	return fmt.Sprintf("compared at offset %d (--at), not at /migration's: the end of a node's log may hold records the quorum has not committed "+
		"(a log's end offset is only an upper bound of what is committed), which a KRaft controller would never mirror", offset)
}
