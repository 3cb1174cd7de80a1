package main

import (
	"context"
	"fmt"

	"github.com/kraftmigration/zkwriter/migrationzk/dualwrite"
	"github.com/kraftmigration/zkwriter/migrationzk/kraftmeta"
)

// kraftSource is the metadata kraft sync makes ZooKeeper hold: the
// directory a Raft election would choose among those given, replayed to
// its end.
type kraftSource struct {
	path   string
	dir    *kraftmeta.Directory
	result *kraftmeta.Result
	// dirs are every directory given, in the order given.
	dirs []*kraftmeta.Directory
}

// voterView is one of the directories given to kraft sync.
type voterView struct {
	Path string `json:"path"`
	// Chosen is true for the directory whose image is synced.
	Chosen       bool  `json:"chosen"`
	LogEndOffset int64 `json:"log_end_offset"`
	LastEpoch    int32 `json:"last_epoch"`
	// ClusterID is its meta.properties' cluster.id, "" without one.
	ClusterID string `json:"cluster_id"`
	// ImageOffset is the offset its image stands at, at its end.
	ImageOffset int64 `json:"image_offset"`
	// Changes counts the changes that make its image into the chosen
	// one's.
	Changes int    `json:"changes"`
	Text    string `json:"text"`
}

// readVoters inspects each directory of paths and replays the one a Raft
// election would choose: the highest last epoch, then the highest log
// end offset. Each other directory is replayed too, to say how it
// differs.
func readVoters(ctx context.Context, paths []string) (kraftSource, []voterView, error) {
	var src kraftSource
	for _, p := range paths {
		d, err := kraftmeta.Inspect(ctx, p)
		if err != nil {
			return src, nil, metadataFailure(p, err)
		}
		src.dirs = append(src.dirs, d)
	}
	order := kraftmeta.ElectionOrder(src.dirs)
	src.path, src.dir = paths[order[0]], src.dirs[order[0]]
	var err error
	if src.result, err = replayMetadata(ctx, src.path, offsetFlag()); err != nil {
		return src, nil, err
	}
	voters := []voterView{viewVoter(src.dir, src.result, true)}
	if len(paths) > 1 {
		voters[0].Text = fmt.Sprintf("chosen, as a Raft election would choose among the %d given: the highest last epoch (%d), then the highest log end offset (%d)",
			len(paths), src.dir.LastEpoch, src.dir.LogEndOffset)
	}
	for _, i := range order[1:] {
		r, err := replayMetadata(ctx, paths[i], offsetFlag())
		if err != nil {
			return src, nil, err
		}
		v := viewVoter(src.dirs[i], r, false)
		v.Changes = len(dualwrite.Diff(r.Image, src.result.Image).Changes)
		v.Text = voterDifference(src, src.dirs[i], r, v.Changes)
		voters = append(voters, v)
	}
	return src, voters, nil
}

func viewVoter(d *kraftmeta.Directory, r *kraftmeta.Result, chosen bool) voterView {
	return voterView{Path: d.Path, Chosen: chosen, LogEndOffset: d.LogEndOffset, LastEpoch: d.LastEpoch, ClusterID: d.Meta.ClusterID,
		ImageOffset: r.Offset, Text: "chosen"}
}

// voterDifference says how directory d, replayed into r, differs from the
// chosen one.
func voterDifference(src kraftSource, d *kraftmeta.Directory, r *kraftmeta.Result, changes int) string {
	end, chosenEnd := d.LogEndOffset, src.dir.LogEndOffset
	var where string
	switch {
	case d.LastEpoch < src.dir.LastEpoch && end > chosenEnd:
		where = fmt.Sprintf("its log runs to offset %d, beyond the chosen one's, but ends in epoch %d, below %d: its tail was never committed by a later leader",
			end-1, d.LastEpoch, src.dir.LastEpoch)
	case end < chosenEnd:
		where = fmt.Sprintf("its log ends at offset %d (epoch %d), %d offsets before the chosen one's", end-1, d.LastEpoch, chosenEnd-end)
	default:
		where = fmt.Sprintf("its log ends at offset %d (epoch %d), as the chosen one's does", end-1, d.LastEpoch)
	}
	if changes == 0 {
		return fmt.Sprintf("%s; its image (offset %d) holds what the chosen one's does", where, r.Offset)
	}
	return fmt.Sprintf("%s; its image (offset %d) differs from the chosen one's by %s", where, r.Offset, pluralVerb(changes, "change", "changes"))
}

// highestEpoch is the highest leader epoch the directories name.
func (s kraftSource) highestEpoch() int32 {
	e := s.result.HighestEpoch
	for _, d := range s.dirs {
		e = max(e, d.HighestEpoch)
	}
	return e
}
