//go:build unix

package main

import (
	"context"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/kraftmigration/zkwriter/migrationzk"
	"github.com/kraftmigration/zkwriter/migrationzk/dualwrite"
	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

// describe writes to out what the cluster under the Writer's root holds
// now, as read from ZooKeeper, never what it was seeded with: who holds
// /controller, /controller_epoch, the checkpoint in /migration, the
// topics and the controller epochs stamped on their partition states.
func describe(ctx context.Context, w *migrationzk.Writer, img dualwrite.Image, out io.Writer) error {
	zs, err := w.Read(ctx, znode.ControllerPath, znode.ControllerEpochPath, znode.MigrationPath)
	if err != nil {
		return err
	}
	stamps, err := stampedEpochs(ctx, w, img)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "  /controller        %s\n", describeController(zs[0]))
	fmt.Fprintf(out, "  /controller_epoch  %s\n", describeEpoch(zs[1]))
	fmt.Fprintf(out, "  /migration         %s\n", describeMigration(zs[2]))
	fmt.Fprintf(out, "  topics             %s\n", describeTopics(img, stamps))
	return nil
}

func describeController(z migrationzk.Znode) string {
	if !z.Exists {
		return "absent: no controller is elected"
	}
	c, err := znode.DecodeController(z.Data)
	switch {
	case err != nil:
		return "does not decode"
	case c.IsKRaft():
		return fmt.Sprintf("KRaft controller %d (KRaft epoch %d)", c.BrokerID, c.KRaftControllerEpoch)
	}
	return fmt.Sprintf("ZooKeeper-mode broker %d", c.BrokerID)
}

func describeEpoch(z migrationzk.Znode) string {
	if !z.Exists {
		return "absent"
	}
	e, err := znode.DecodeControllerEpoch(z.Data)
	if err != nil {
		return "does not decode"
	}
	return fmt.Sprint(e)
}

func describeMigration(z migrationzk.Znode) string {
	if !z.Exists {
		return "absent: no migration has started"
	}
	m, err := znode.DecodeMigration(z.Data)
	if err != nil {
		return "does not decode"
	}
	return fmt.Sprintf("checkpoint at offset %d, written by KRaft controller %d (KRaft epoch %d)",
		m.KRaftMetadataOffset, m.KRaftControllerID, m.KRaftControllerEpoch)
}

// stampedEpochs reads the controller epoch stamped on each partition
// state img holds.
func stampedEpochs(ctx context.Context, w *migrationzk.Writer, img dualwrite.Image) ([]int32, error) {
	var paths []string
	for name, t := range img.Topics {
		for id, p := range t.Partitions {
			if p.HasState() {
				paths = append(paths, znode.PartitionStatePath(name, id))
			}
		}
	}
	zs, err := w.Read(ctx, paths...)
	if err != nil {
		return nil, err
	}
	var stamps []int32
	for _, z := range zs {
		if st, err := znode.DecodePartitionState(z.Data); err == nil {
			stamps = append(stamps, st.ControllerEpoch)
		}
	}
	return stamps, nil
}

func describeTopics(img dualwrite.Image, stamps []int32) string {
	if len(img.Topics) == 0 {
		return "none"
	}
	partitions := 0
	for _, t := range img.Topics {
		partitions += len(t.Partitions)
	}
	s := fmt.Sprintf("%s: %d partitions", strings.Join(slices.Sorted(maps.Keys(img.Topics)), ", "), partitions)
	if len(stamps) > 0 {
		s += fmt.Sprintf(", their states stamped with controller epochs %d to %d", slices.Min(stamps), slices.Max(stamps))
	}
	return s
}
