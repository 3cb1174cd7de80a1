package migrationzk

import (
	"context"
	"errors"
	"fmt"

	"github.com/go-zookeeper/zk"

	"github.com/kraftmigration/zkwriter/checker"
	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

// maxClaimRounds bounds how often a claim is retried when the znodes move
// under it (ZooKeeper-mode brokers electing a controller meanwhile).
const maxClaimRounds = 20

// ClaimLeadership registers the KRaft controller s.KRaftControllerID with
// epoch s.KRaftControllerEpoch as the active controller in ZooKeeper, as
// Kafka does when a KRaft controller becomes leader during a migration: in
// one transaction it raises /controller_epoch by one (conditioned on the
// version read), deletes /controller if present (conditioned on its
// version), and creates /controller naming itself (persistent). With
// WithRollbackSafeEpochs it raises /controller_epoch to at least
// s.KRaftControllerEpoch instead; the znode version still moves by one.
//
// It is refused with a *FencedError when /controller already names a KRaft
// controller with an epoch at least s.KRaftControllerEpoch, as Kafka
// refuses it, with one exception: a claim by this very controller and
// epoch that still stands, /controller_epoch not written since the
// transaction that created /controller, is returned as it is (a restarted
// controller resumes its tenure instead of locking itself out); with
// WithRollbackSafeEpochs such a claim whose /controller_epoch is below
// s.KRaftControllerEpoch is claimed again instead. A /controller naming
// this controller is refused when /controller_epoch has moved since: the
// tenure that claim made may have ended. When the claim found is this
// Writer's own from an earlier call that ended with ErrOutcomeUnknown,
// exactly as it sent it, the returned State says Recovered. A /controller
// or /controller_epoch that does not decode is reported as a *DecodeError
// and left alone. The returned State carries the new ZkControllerEpoch and
// ZkControllerEpochZkVersion, which fence every later write. From then on the Writer writes only under the identity of
// this claim, s.KRaftControllerID and s.KRaftControllerEpoch (see
// IdentityError), until a later claim succeeds.
func (w *Writer) ClaimLeadership(ctx context.Context, s State) (State, error) {
	st, err := w.do(ctx, "claim leadership", w.epochPath, s, epochVersion, w.claim)
	if err == nil {
		w.setClaimed(st)
	}
	return st, err
}

func (w *Writer) claim(ctx context.Context, s State) (State, verdict, error) {
	if err := s.validate(); err != nil {
		return s, verdictNotLanded, err
	}
	if s.KRaftControllerID < 0 || s.KRaftControllerEpoch < 0 {
		return s, verdictNotLanded, invalidf("ClaimLeadership needs KRaftControllerID and KRaftControllerEpoch (got %d, %d)", s.KRaftControllerID, s.KRaftControllerEpoch)
	}
	r := w.exec.retrier()
	for round := 0; round < maxClaimRounds; round++ {
		st, v, err := w.claimOnce(ctx, r, s)
		if v != verdictReread {
			return st, v, err
		}
	}
	return s, verdictNotLanded, fmt.Errorf("%w: %s and %s kept changing during the claim", ErrConflict, w.epochPath, w.controllerPath)
}

// claimOnce reads the holder and claims over it; verdictReread sends it
// round again when the znodes moved.
func (w *Writer) claimOnce(ctx context.Context, r *retrier, s State) (State, verdict, error) {
	h, created, err := w.readHolder(ctx, r)
	if err != nil {
		return s, verdictNotLanded, err
	}
	if created {
		return s, verdictReread, nil
	}
	if c := w.takeDoubtfulClaim(); c != nil && claimVerdict(*c, h.epoch, h.controller, true) == verdictLanded {
		w.exec.recovered(w.epochPath, c.expected, 0)
		return withFence(s, c.newEpoch, h.epoch.version, true), verdictLanded, nil
	}
	safe := w.exec.opts.rollbackSafeEpochs
	standing := standingClaim(h, s.KRaftControllerID, s.KRaftControllerEpoch)
	if standing && resumable(h, s.KRaftControllerEpoch, safe) {
		w.exec.opts.logger.Info("leadership already claimed by this controller and epoch", "path", w.controllerPath, "version", h.epoch.version)
		return withFence(s, h.epochValue, h.epoch.version, false), verdictAcked, nil
	}
	if h.controller.exists && !standing {
		if err := w.claimRefusal(h.current, s.KRaftControllerEpoch); err != nil {
			return s, verdictNotLanded, err
		}
	}
	c := claim{expected: h.epoch.version, current: h.epochValue, controller: s.KRaftControllerID, kraftEpoch: s.KRaftControllerEpoch,
		newEpoch: claimEpoch(h.epochValue, s.KRaftControllerEpoch, safe)}
	version, v, err := w.sendClaim(ctx, r, c, h)
	if err != nil || v == verdictReread {
		return s, v, err
	}
	return withFence(s, c.newEpoch, version, v == verdictLanded), v, nil
}

// withFence returns s fenced by a claim that left /controller_epoch holding
// epoch at version.
func withFence(s State, epoch, version int32, recovered bool) State {
	s.ZkControllerEpoch, s.ZkControllerEpochZkVersion, s.Recovered = epoch, version, recovered
	return s
}

// readHolder syncs and reads /controller_epoch and /controller. On a
// cluster whose controller never ran it creates /controller_epoch (epoch
// 0) instead and reports created: the caller reads again.
func (w *Writer) readHolder(ctx context.Context, r *retrier) (h holder, created bool, err error) {
	zs, err := w.exec.reread(ctx, r, w.epochPath, w.controllerPath)
	if err != nil {
		return h, false, fmt.Errorf("migrationzk: read %s and %s: %w", w.epochPath, w.controllerPath, err)
	}
	h = holder{epoch: zs[0], controller: zs[1]}
	if !h.epoch.exists {
		_, err := w.create(ctx, r, w.epochPath, znode.EncodeControllerEpoch(0), checker.ControllerEpoch{})
		return h, err == nil, err
	}
	if h.epochValue, err = znode.DecodeControllerEpoch(h.epoch.data); err != nil {
		return h, false, w.withPath(err, w.epochPath)
	}
	if h.controller.exists {
		if h.current, err = znode.DecodeController(h.controller.data); err != nil {
			return h, false, w.withPath(err, w.controllerPath)
		}
	}
	return h, false, nil
}

// sendClaim sends claim c over holder h and returns the version it left
// /controller_epoch at. A call that ends with the outcome unknown leaves c
// for the next call to find.
func (w *Writer) sendClaim(ctx context.Context, r *retrier, c claim, h holder) (int32, verdict, error) {
	reg := znode.Controller{Version: 2, BrokerID: c.controller, Timestamp: w.exec.opts.now().UnixMilli(), KRaftControllerEpoch: c.kraftEpoch}
	reqs := []interface{}{&zk.SetDataRequest{Path: w.epochPath, Data: znode.EncodeControllerEpoch(c.newEpoch), Version: c.expected}}
	if h.controller.exists {
		reqs = append(reqs, &zk.DeleteRequest{Path: w.controllerPath, Version: h.controller.version})
	}
	reqs = append(reqs, &zk.CreateRequest{Path: w.controllerPath, Data: reg.Encode(), Acl: w.exec.opts.aclFor(w.controllerPath)})
	var version int32
	var res []zk.MultiResponse
	paths, ops := []string{w.epochPath}, []string{"setData"}
	if h.controller.exists {
		paths, ops = append(paths, w.controllerPath), append(ops, "delete")
	}
	paths, ops = append(paths, w.controllerPath), append(ops, "create")
	v, err := w.exec.run(ctx, r, write{
		path:     w.epochPath,
		expected: c.expected,
		send: func() error {
			var err error
			res, err = w.exec.conn.Multi(reqs...)
			if err == nil {
				version = res[0].Stat.Version
			}
			return err
		},
		refused: func(error) (string, string) { return multiRefused(res, paths, ops) },
		verify: func(ctx context.Context, r *retrier, _ error, resent bool) (verdict, error) {
			zs, err := w.exec.reread(ctx, r, w.epochPath, w.controllerPath)
			if err != nil {
				return verdictNotLanded, err
			}
			v := claimVerdict(c, zs[0], zs[1], resent)
			if v == verdictLanded {
				version = zs[0].version
			}
			return v, nil
		},
	})
	if errors.Is(err, ErrOutcomeUnknown) {
		w.setDoubtfulClaim(c)
	}
	return version, v, err
}

// setDoubtfulClaim records c, whose outcome is unknown.
func (w *Writer) setDoubtfulClaim(c claim) {
	w.mu.Lock()
	w.doubtfulClaim = &c
	w.mu.Unlock()
}

// takeDoubtfulClaim returns and forgets the claim in doubt, if any.
func (w *Writer) takeDoubtfulClaim() *claim {
	w.mu.Lock()
	defer w.mu.Unlock()
	c := w.doubtfulClaim
	w.doubtfulClaim = nil
	return c
}

// ReleaseLeadership gives up the leadership claimed with s: it deletes
// /controller, fenced by /controller_epoch at s.ZkControllerEpochZkVersion,
// so that a ZooKeeper-mode broker can be elected (after a rollback). If
// another controller was elected meanwhile there is nothing to release and
// it succeeds, as Kafka does. The returned State has no ZooKeeper
// controller epoch (-1).
func (w *Writer) ReleaseLeadership(ctx context.Context, s State) (State, error) {
	return w.do(ctx, "release leadership", w.controllerPath, s, epochVersion, w.release)
}

func (w *Writer) release(ctx context.Context, s State) (State, verdict, error) {
	if err := s.validate(); err != nil {
		return s, verdictNotLanded, err
	}
	fence := s.ZkControllerEpochZkVersion
	if fence < 0 {
		return s, verdictNotLanded, invalidf("ZkControllerEpochZkVersion %d: ReleaseLeadership needs the version from ClaimLeadership", fence)
	}
	check := &zk.CheckVersionRequest{Path: w.epochPath, Version: fence}
	del := &zk.DeleteRequest{Path: w.controllerPath, Version: -1}
	var res []zk.MultiResponse
	v, err := w.exec.run(ctx, w.exec.retrier(), write{
		path:     w.controllerPath,
		expected: fence,
		send: func() error {
			var err error
			res, err = w.exec.conn.Multi(check, del)
			return err
		},
		refused: func(error) (string, string) {
			return multiRefused(res, []string{w.epochPath, w.controllerPath}, []string{"check", "delete"})
		},
		verify: func(ctx context.Context, r *retrier, _ error, resent bool) (verdict, error) {
			zs, err := w.exec.reread(ctx, r, w.epochPath, w.controllerPath)
			if err != nil {
				return verdictNotLanded, err
			}
			return releaseVerdict(fence, zs[0], zs[1], resent), nil
		},
	})
	if err != nil {
		return s, v, err
	}
	if v == verdictMoot {
		w.exec.opts.logger.Info("nothing to release: another controller was elected or /controller is gone", "path", w.controllerPath, "expected_version", fence)
	}
	st := s
	st.ZkControllerEpoch, st.ZkControllerEpochZkVersion, st.Recovered = -1, -1, v == verdictLanded
	return st, v, nil
}
