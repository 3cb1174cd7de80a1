package kraftmeta

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"

	"github.com/magiconair/properties"
)

// MetadataPartitionDir is the directory of the metadata log inside a
// Kafka log directory.
const MetadataPartitionDir = "__cluster_metadata-0"

// File names Kafka gives the metadata log's files: segments by base
// offset, snapshots by end offset and epoch (Snapshots.java).
var (
	segmentName  = regexp.MustCompile(`^([0-9]{20})\.log$`)
	snapshotName = regexp.MustCompile(`^([0-9]{20})-([0-9]{10})\.checkpoint$`)
)

// SnapshotFile is a snapshot of the metadata log: the image after every
// record below EndOffset.
type SnapshotFile struct {
	Path string
	// EndOffset is the offset after the snapshot's last record: its last
	// contained offset is EndOffset-1.
	EndOffset int64
	// Epoch is the leader epoch of its last record.
	Epoch int32
	Size  int64
}

// LastContainedOffset is the offset of the last record the snapshot
// holds, what /migration records of its image.
func (s SnapshotFile) LastContainedOffset() int64 { return s.EndOffset - 1 }

// SegmentFile is a segment of the metadata log.
type SegmentFile struct {
	Path string
	// BaseOffset is the offset its name gives: that of its first record.
	BaseOffset int64
	Size       int64
}

// layout is what a path holds: a Kafka log directory, a metadata log
// directory, or one file.
type layout struct {
	// logDir holds meta.properties and bootstrap.checkpoint, "" when
	// unknown.
	logDir    string
	snapshots []SnapshotFile // by end offset
	segments  []SegmentFile  // by base offset
	// single is set when the path is one file.
	single bool
}

// list reads what path holds: a directory holding __cluster_metadata-0,
// the metadata log's directory itself, a .checkpoint or a .log. Files
// other than segments and snapshots are ignored: .checkpoint.part and
// .deleted files, producer-state .snapshot files, indexes.
func list(path string) (layout, error) {
	st, err := os.Stat(path)
	if err != nil {
		return layout{}, err
	}
	if !st.IsDir() {
		return listFile(path, st)
	}
	l := layout{logDir: path}
	dir := filepath.Join(path, MetadataPartitionDir)
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		dir, l.logDir = path, filepath.Dir(path)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return layout{}, err
	}
	for _, e := range entries {
		if err := l.add(dir, e); err != nil {
			return layout{}, err
		}
	}
	sort.Slice(l.snapshots, func(i, j int) bool { return l.snapshots[i].EndOffset < l.snapshots[j].EndOffset })
	sort.Slice(l.segments, func(i, j int) bool { return l.segments[i].BaseOffset < l.segments[j].BaseOffset })
	if len(l.snapshots) == 0 && len(l.segments) == 0 {
		return layout{}, fmt.Errorf("%s: %w: no segment (.log) and no snapshot (.checkpoint)", dir, ErrNoMetadata)
	}
	return l, nil
}

// add adds a directory entry that is a segment or a snapshot; one that
// vanished since it was listed is left out.
func (l *layout) add(dir string, e fs.DirEntry) error {
	name := e.Name()
	seg, snap := segmentName.FindStringSubmatch(name), snapshotName.FindStringSubmatch(name)
	if seg == nil && snap == nil || e.IsDir() {
		return nil
	}
	info, err := e.Info()
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	path := filepath.Join(dir, name)
	if seg != nil {
		base, _ := strconv.ParseInt(seg[1], 10, 64)
		l.segments = append(l.segments, SegmentFile{Path: path, BaseOffset: base, Size: info.Size()})
		return nil
	}
	end, _ := strconv.ParseInt(snap[1], 10, 64)
	epoch, _ := strconv.ParseInt(snap[2], 10, 32)
	l.snapshots = append(l.snapshots, SnapshotFile{Path: path, EndOffset: end, Epoch: int32(epoch), Size: info.Size()})
	return nil
}

// listFile is the layout of one file: a snapshot, named as Kafka names
// them or not (bootstrap.checkpoint, whose image stands at no offset), or
// a segment.
func listFile(path string, st fs.FileInfo) (layout, error) {
	return fileLayout(path, st.Size())
}

// fileLayout is the layout of one file of size bytes at path.
func fileLayout(path string, size int64) (layout, error) {
	name := filepath.Base(path)
	l := layout{single: true}
	switch {
	case snapshotName.MatchString(name):
		m := snapshotName.FindStringSubmatch(name)
		end, _ := strconv.ParseInt(m[1], 10, 64)
		epoch, _ := strconv.ParseInt(m[2], 10, 32)
		l.snapshots = []SnapshotFile{{Path: path, EndOffset: end, Epoch: int32(epoch), Size: size}}
	case filepath.Ext(name) == ".checkpoint":
		l.snapshots = []SnapshotFile{{Path: path, EndOffset: 0, Epoch: 0, Size: size}}
	case segmentName.MatchString(name):
		base, _ := strconv.ParseInt(segmentName.FindStringSubmatch(name)[1], 10, 64)
		l.segments = []SegmentFile{{Path: path, BaseOffset: base, Size: size}}
	case filepath.Ext(name) == ".log":
		l.segments = []SegmentFile{{Path: path, BaseOffset: -1, Size: size}}
	default:
		return layout{}, fmt.Errorf("%s: %w: not a .log or a .checkpoint", path, ErrNoMetadata)
	}
	return l, nil
}

// MetaProperties is what a log directory's meta.properties says.
type MetaProperties struct {
	ClusterID   string
	NodeID      string
	DirectoryID string
	Version     string
}

// readMetaProperties reads logDir/meta.properties; absent, it is the
// zero MetaProperties and no error.
func readMetaProperties(logDir string) (MetaProperties, error) {
	if logDir == "" {
		return MetaProperties{}, nil
	}
	path := filepath.Join(logDir, "meta.properties")
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return MetaProperties{}, nil
	}
	if err != nil {
		return MetaProperties{}, err
	}
	loader := &properties.Loader{Encoding: properties.ISO_8859_1, DisableExpansion: true}
	p, err := loader.LoadBytes(data)
	if err != nil {
		return MetaProperties{}, fmt.Errorf("%s: %w", path, err)
	}
	return MetaProperties{
		ClusterID:   p.GetString("cluster.id", ""),
		NodeID:      p.GetString("node.id", ""),
		DirectoryID: p.GetString("directory.id", ""),
		Version:     p.GetString("version", ""),
	}, nil
}
