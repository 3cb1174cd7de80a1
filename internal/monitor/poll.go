package monitor

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/kraftmigration/zkwriter/internal/zkerr"
	"github.com/kraftmigration/zkwriter/migrationzk"
	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

// errNoSession: the client holds no session, so nothing was read.
var errNoSession = errors.New("the client holds no ZooKeeper session")

// reading is one read of the control znodes, and of the quorum when one
// is configured.
type reading struct {
	// start is when the read started; done when it finished.
	start, done time.Time
	// err is why ZooKeeper could not be read; control holds nothing then.
	err     error
	control control
	// quorum and quorumErr are the quorum's answer, when asked.
	quorum    *Quorum
	quorumErr error
}

// control is what the control znodes hold, decoded.
type control struct {
	// migration is /migration's checkpoint; nil when absent or when its
	// data does not decode (migrationExists tells which).
	migration       *znode.Migration
	migrationExists bool
	migrationMtime  time.Time
	migrationVer    int32
	// controller is /controller; nil when absent or undecodable.
	controller *znode.Controller
	ephemeral  bool
	// epoch is /controller_epoch; nil when absent or undecodable.
	epoch *int32
}

// refresh makes sure a read started less than MinPoll ago has finished,
// starting one when none has, and returns the last read; it waits no
// longer than ctx. A read that has not finished by then counts as failed
// for this scrape (the read itself goes on, and later scrapes share it).
func (e *Exporter) refresh(ctx context.Context) *reading {
	e.mu.Lock()
	if e.last != nil && time.Since(e.last.start) < e.cfg.MinPoll {
		r := e.last
		e.mu.Unlock()
		return r
	}
	wait := e.inFlight
	if wait == nil {
		wait = make(chan struct{})
		e.inFlight = wait
		go e.poll(wait)
	}
	e.mu.Unlock()
	select {
	case <-wait:
		e.mu.Lock()
		defer e.mu.Unlock()
		return e.last
	case <-ctx.Done():
		return &reading{start: time.Now(), done: time.Now(), err: fmt.Errorf("no reply from ZooKeeper in time: %w", ctx.Err())}
	}
}

// poll reads once and closes done when the reading is recorded.
func (e *Exporter) poll(done chan struct{}) {
	r := &reading{start: time.Now()}
	ctx, cancel := context.WithTimeout(context.Background(), e.cfg.PollTimeout)
	defer cancel()
	// /migration first, then the high watermark: the lag between them is
	// then never below 0.
	r.control, r.err = e.readControl(ctx)
	if e.cfg.Quorum != nil {
		q, err := e.cfg.Quorum.DescribeQuorum(ctx)
		r.quorum, r.quorumErr = &q, err
		if err != nil {
			r.quorum = nil
			e.log.Warn("describe the KRaft quorum", "error", err)
		}
	}
	r.done = time.Now()
	e.polls.Inc()
	if r.err != nil {
		e.pollErrors.Inc()
		e.log.Warn("read the control znodes", "error", r.err)
	}
	e.mu.Lock()
	e.last, e.inFlight = r, nil
	if r.err == nil {
		e.lastOK = r.start
	}
	e.mu.Unlock()
	close(done)
}

// readControl reads /migration, /controller and /controller_epoch, once
// each, without a sync: a monitor can afford a follower a few
// milliseconds behind the leader.
func (e *Exporter) readControl(ctx context.Context) (control, error) {
	if e.cfg.Ready != nil && !e.cfg.Ready() {
		return control{}, errNoSession
	}
	ctx, stop := e.whileReady(ctx)
	defer stop()
	zs, err := e.cfg.Writer.ReadAfterSync(ctx, znode.MigrationPath, znode.ControllerPath, znode.ControllerEpochPath)
	if err != nil {
		if cause := context.Cause(ctx); errors.Is(cause, errNoSession) {
			return control{}, cause
		}
		return control{}, zkerr.FirstJoined(err)
	}
	return decodeControl(zs[0], zs[1], zs[2]), nil
}

// readyCheck is how often a read checks that the client still holds its
// session.
const readyCheck = 20 * time.Millisecond

// whileReady returns a context that ends with errNoSession as soon as
// Config.Ready reports the session lost: the Writer's reads wait for a
// lost session to come back, which a scrape must not.
func (e *Exporter) whileReady(ctx context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancelCause(ctx)
	if e.cfg.Ready == nil {
		return ctx, func() { cancel(nil) }
	}
	done := make(chan struct{})
	go func() {
		t := time.NewTicker(readyCheck)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				if !e.cfg.Ready() {
					cancel(errNoSession)
					return
				}
			}
		}
	}()
	return ctx, func() { close(done); cancel(nil) }
}

// decodeControl decodes the three control znodes; data that does not
// decode reads as no value.
func decodeControl(m, ctl, epoch migrationzk.Znode) control {
	c := control{migrationExists: m.Exists, migrationMtime: m.Modified, migrationVer: m.Version, ephemeral: ctl.EphemeralOwner != 0}
	if mig, err := znode.DecodeMigration(m.Data); m.Exists && err == nil {
		c.migration = &mig
	}
	if dec, err := znode.DecodeController(ctl.Data); ctl.Exists && err == nil {
		c.controller = &dec
	}
	if v, err := znode.DecodeControllerEpoch(epoch.Data); epoch.Exists && err == nil {
		c.epoch = &v
	}
	return c
}

// kraftController reports whether /controller names a KRaft controller.
func (c control) kraftController() bool { return c.controller != nil && c.controller.IsKRaft() }

// stalled reports whether, at now, the checkpoint counts as stalled: a
// KRaft controller holds /controller, /migration is past the initial
// load, and it was written longer than after ago.
func (c control) stalled(now time.Time, after time.Duration) bool {
	return c.kraftController() && c.migration != nil && c.migration.KRaftMetadataOffset >= 0 &&
		now.Sub(c.migrationMtime) > after
}

// identityMatches reports whether /migration names the KRaft controller
// /controller names, by id and epoch; ok is false when /controller names
// no KRaft controller or /migration holds no checkpoint.
func (c control) identityMatches() (matches, ok bool) {
	if !c.kraftController() || c.migration == nil {
		return false, false
	}
	return c.controller.BrokerID == c.migration.KRaftControllerID &&
		c.controller.KRaftControllerEpoch == c.migration.KRaftControllerEpoch, true
}
