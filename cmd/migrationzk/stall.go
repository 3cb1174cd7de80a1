package main

import (
	"context"
	"flag"
	"fmt"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

// Defaults of status's stall flags. In dual-write Kafka 3.9's active
// controller rewrites /migration after every committed metadata batch and
// commits a NoOpRecord every metadata.max.idle.interval.ms (500 ms) when
// idle, so a healthy /migration is at most about a second old. That is
// read in Kafka's code, not observed on a running cluster, hence settings.
const (
	defaultStallWindow = 2 * time.Second
	defaultStallAfter  = 30 * time.Second
)

// Kinds of the stall verdict, the json output's stall.kind.
const (
	// stallStalled: a KRaft controller holds /controller and /migration is
	// older than --stall-after (and did not move in the window): stalled,
	// or finalized.
	stallStalled = "stalled"
	// stallLoading: /migration holds offset -1, the initial load.
	stallLoading = "loading"
	// stallCurrent: a KRaft controller holds /controller and /migration
	// is fresh, or moved in the window.
	stallCurrent = "current"
	// stallNoKRaft: /controller names no KRaft controller (a ZooKeeper-mode
	// broker, none, or it does not decode): nothing writes /migration.
	stallNoKRaft = "no_kraft_controller"
	// stallNoCheckpoint: /migration is absent or holds no checkpoint.
	stallNoCheckpoint = "no_checkpoint"
)

// stallFlags are status's flags for the stall verdict.
type stallFlags struct {
	window, after time.Duration
}

func (f *stallFlags) register(fs *flag.FlagSet) {
	fs.DurationVar(&f.window, "stall-window", defaultStallWindow, "read /migration a second time this long after the first, to tell whether its offset moves (0 skips the second read)")
	fs.DurationVar(&f.after, "stall-after", defaultStallAfter, "call the checkpoint stalled when a KRaft controller holds /controller and /migration was last written longer ago than this")
}

func (f stallFlags) check() error {
	switch {
	case f.window < 0:
		return usageError{fmt.Errorf("--stall-window %v: must not be negative", f.window)}
	case f.after <= 0:
		return usageError{fmt.Errorf("--stall-after %v: must be positive", f.after)}
	}
	return nil
}

// stallView is the stall verdict in status's output.
type stallView struct {
	// Kind is stalled, loading, current, no_kraft_controller or
	// no_checkpoint.
	Kind string `json:"kind"`
	// AgeSeconds is this host's clock minus /migration's mtime at the
	// last read, absent without /migration. Clock skew between ZooKeeper
	// and this host is its limit.
	AgeSeconds        *float64 `json:"age_seconds,omitempty"`
	StallAfterSeconds float64  `json:"stall_after_seconds"`
	WindowSeconds     float64  `json:"window_seconds"`
	// Offset is the checkpoint's offset at the first read; SecondOffset
	// at the second, and Moved whether it changed, when the second read
	// was made.
	Offset       *int64 `json:"offset,omitempty"`
	SecondOffset *int64 `json:"second_offset,omitempty"`
	Moved        *bool  `json:"offset_moved,omitempty"`
	// Text says what the kind means here.
	Text string `json:"text"`
}

// checkpointReads are /migration's reads of status: the first with the
// other control znodes, the second --stall-window later, if made.
type checkpointReads struct {
	first, second migrationView
	// at is when the last of them was read.
	at time.Time
}

// readCheckpointAgain reads /migration a second time, window after the
// first read, when the stall verdict could use it: a KRaft controller in
// /controller and a checkpoint past the initial load. It returns the reads
// as they are otherwise.
func (a *app) readCheckpointAgain(ctx context.Context, conn *zk.Conn, c control, window time.Duration) (checkpointReads, error) {
	r := checkpointReads{first: c.migration, at: time.Now()}
	if window == 0 || !c.controller.isKRaft() || checkpointOffset(c.migration) < 0 {
		return r, nil
	}
	t := time.NewTimer(window)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return r, ctx.Err()
	case <-t.C:
	}
	rctx, cancel := a.step(ctx)
	defer cancel()
	z, err := a.readZnode(rctx, conn, znode.MigrationPath)
	if err != nil {
		return r, fmt.Errorf("read %s again: %w", a.path(znode.MigrationPath), err)
	}
	second := viewMigration(a.path(znode.MigrationPath), z)
	r.second, r.at = second, time.Now()
	return r, nil
}

// checkpointOffset is the offset /migration holds, -1 when it holds none
// (absent, undecodable, or the initial state).
func checkpointOffset(v migrationView) int64 {
	if v.State != stateOK || v.Checkpoint == nil {
		return -1
	}
	return v.Checkpoint.KRaftMetadataOffset
}

// judgeStall gives the stall verdict of the reads, /controller as ctl
// read, with --stall-after after and --stall-window window.
func judgeStall(ctl controllerView, r checkpointReads, after, window time.Duration) stallView {
	v := stallView{StallAfterSeconds: after.Seconds(), WindowSeconds: window.Seconds()}
	last := r.first
	if r.second.Path != "" {
		last = r.second
	}
	var age time.Duration
	if last.State != stateAbsent {
		age = r.at.Sub(last.mtime)
		secs := max(age, 0).Seconds()
		v.AgeSeconds = &secs
	}
	if r.first.State == stateOK {
		off := r.first.Checkpoint.KRaftMetadataOffset
		v.Offset = &off
	}
	if r.second.State == stateOK && v.Offset != nil {
		off, moved := r.second.Checkpoint.KRaftMetadataOffset, *v.Offset != r.second.Checkpoint.KRaftMetadataOffset
		v.SecondOffset, v.Moved = &off, &moved
	}
	v.Kind, v.Text = stallKind(ctl, last, age, after, v)
	return v
}

// stallKind classifies the checkpoint last read, age old, given the
// offsets v holds.
func stallKind(ctl controllerView, last migrationView, age, after time.Duration, v stallView) (kind, text string) {
	window := time.Duration(v.WindowSeconds * float64(time.Second))
	switch {
	case last.State == stateAbsent:
		return stallNoCheckpoint, fmt.Sprintf("%s is absent: no migration has started, so there is no checkpoint to stall", last.Path)
	case last.State != stateOK:
		return stallNoCheckpoint, fmt.Sprintf("%s holds no checkpoint (%s data), so no stall can be told", last.Path, last.State)
	case !ctl.isKRaft():
		return stallNoKRaft, fmt.Sprintf("/controller names no KRaft controller, so nothing writes %s: no stall can be told", last.Path)
	case last.Checkpoint.KRaftMetadataOffset < 0:
		return stallLoading, fmt.Sprintf("loading: %s holds offset -1, so %s is still copying the metadata from ZooKeeper (the initial load, which can take minutes); that is not called a stall",
			last.Path, ctl.who())
	}
	offset := last.Checkpoint.KRaftMetadataOffset
	ago := describeAge(age)
	switch {
	case v.Moved != nil && *v.Moved:
		text = fmt.Sprintf("current: the checkpoint moved from offset %d to %d in %v; %s was last written %s", *v.Offset, offset, window, last.Path, ago)
		if age > after {
			text += fmt.Sprintf(", which is more than --stall-after %v on this host's clock: the clocks of ZooKeeper and this host differ", after)
		}
		return stallCurrent, text
	case age <= after:
		text = fmt.Sprintf("current: %s was last written %s, at offset %d", last.Path, ago, offset)
		if v.Moved != nil {
			text += fmt.Sprintf("; it did not move in %v", window)
		}
		return stallCurrent, text
	}
	text = fmt.Sprintf("stalled, or finalized: %s holds /controller, but %s was last written %s (more than --stall-after %v) at offset %d",
		ctl.who(), last.Path, ago, after, offset)
	if v.Moved != nil {
		text += fmt.Sprintf(", and it did not move in %v", window)
	}
	text += ". In dual-write the active controller rewrites it after every committed metadata batch, at least every metadata.max.idle.interval.ms (500 ms), " +
		"so ZooKeeper and the ZooKeeper-mode brokers no longer receive KRaft's changes; unless the migration was finalized, " +
		"or metadata.max.idle.interval.ms=0 keeps an idle cluster from committing. Ask the quorum for the true lag: migrationzk lag"
	return stallStalled, text
}

// describeAge says how long ago something was, "0.4s ago"; a negative age
// says the host's clock is behind ZooKeeper's.
func describeAge(age time.Duration) string {
	if age < 0 {
		return fmt.Sprintf("%v in the future of this host's clock (the clocks of ZooKeeper and this host differ)", (-age).Round(time.Millisecond))
	}
	return age.Round(time.Millisecond).String() + " ago"
}

// printStall prints the stall verdict as text; a stall itself is printed
// among the problems.
func (a *app) printStall(v stallView) {
	if v.Kind == stallStalled {
		return
	}
	a.printf("Checkpoint: %s.\n", v.Text)
}
