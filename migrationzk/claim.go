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
// version), and creates /controller naming itself (persistent).
//
// It is refused with a *FencedError when /controller already names a KRaft
// controller with an epoch at least s.KRaftControllerEpoch, unless that is
// this very controller and epoch: then an earlier claim landed, and it is
// returned as Recovered. A /controller or /controller_epoch that does not
// decode is reported as a *DecodeError and left alone. The returned State
// carries the new ZkControllerEpoch and ZkControllerEpochZkVersion, which
// fence every later write.
func (w *Writer) ClaimLeadership(ctx context.Context, s State) (State, error) {
	return w.do(ctx, "claim leadership", w.epochPath, s, epochVersion, w.claim)
}

func (w *Writer) claim(ctx context.Context, s State) (State, outcome, error) {
	if err := s.validate(); err != nil {
		return s, outcomeError, err
	}
	if s.KRaftControllerID < 0 || s.KRaftControllerEpoch < 0 {
		return s, outcomeError, invalidf("ClaimLeadership needs KRaftControllerID and KRaftControllerEpoch (got %d, %d)", s.KRaftControllerID, s.KRaftControllerEpoch)
	}
	r := w.x.retrier()
	for round := 0; round < maxClaimRounds; round++ {
		st, o, err := w.claimOnce(ctx, r, s)
		if errors.Is(err, errReread) {
			continue
		}
		return st, o, err
	}
	return s, outcomeConflict, fmt.Errorf("%w: %s and %s kept changing during the claim", ErrConflict, w.epochPath, w.controllerPath)
}

func (w *Writer) claimOnce(ctx context.Context, r *retrier, s State) (State, outcome, error) {
	zs, err := w.x.reread(ctx, r, w.epochPath, w.controllerPath)
	if err != nil {
		return s, outcomeError, fmt.Errorf("migrationzk: read %s and %s: %w", w.epochPath, w.controllerPath, err)
	}
	epoch, ctl := zs[0], zs[1]
	if !epoch.exists {
		// A cluster whose controller never ran: start the epoch at 0.
		if err := w.createEpoch(ctx, r); err != nil {
			return s, outcomeError, err
		}
		return s, outcomeError, errReread
	}
	current, err := znode.DecodeControllerEpoch(epoch.data)
	if err != nil {
		return s, outcomeError, w.withPath(err, w.epochPath)
	}
	if ctl.exists {
		c, err := znode.DecodeController(ctl.data)
		if err != nil {
			return s, outcomeError, w.withPath(err, w.controllerPath)
		}
		if c.IsKRaft() && c.KRaftControllerEpoch >= s.KRaftControllerEpoch {
			if c.KRaftControllerEpoch == s.KRaftControllerEpoch && c.BrokerID == s.KRaftControllerID {
				// Our own claim, landed earlier (its acknowledgement lost).
				st := s
				st.ZkControllerEpoch, st.ZkControllerEpochZkVersion, st.Recovered = current, epoch.version, true
				w.x.opts.logger.Info("leadership already claimed by this controller", "path", w.controllerPath,
					"version", epoch.version, "outcome", "recovered")
				return st, outcomeRecovered, nil
			}
			return s, outcomeFenced, &FencedError{Path: w.controllerPath, Reason: fmt.Sprintf(
				"KRaft controller %d holds it with epoch %d; ours is %d", c.BrokerID, c.KRaftControllerEpoch, s.KRaftControllerEpoch)}
		}
	}

	c := claim{expected: epoch.version, newEpoch: current + 1, controller: s.KRaftControllerID, kraftEpoch: s.KRaftControllerEpoch}
	reg := znode.Controller{Version: 2, BrokerID: c.controller, Timestamp: w.x.opts.now().UnixMilli(), KRaftControllerEpoch: c.kraftEpoch}
	reqs := []interface{}{&zk.SetDataRequest{Path: w.epochPath, Data: znode.EncodeControllerEpoch(c.newEpoch), Version: c.expected}}
	if ctl.exists {
		reqs = append(reqs, &zk.DeleteRequest{Path: w.controllerPath, Version: ctl.version})
	}
	reqs = append(reqs, &zk.CreateRequest{Path: w.controllerPath, Data: reg.Encode(), Acl: w.x.opts.acl})

	var newVersion int32
	o, err := w.x.run(ctx, r, write{
		path:     w.epochPath,
		expected: c.expected,
		send: func() error {
			res, err := w.x.conn.Multi(reqs...)
			if err == nil {
				newVersion = res[0].Stat.Version
			}
			return err
		},
		verify: func(ctx context.Context, r *retrier, _ error, _ bool) (bool, error) {
			zs, err := w.x.reread(ctx, r, w.epochPath, w.controllerPath)
			if err != nil {
				return false, err
			}
			ok, _ := claimLanded(c, zs[0], zs[1])
			if ok {
				newVersion = zs[0].version
				return true, nil
			}
			// Someone else moved /controller_epoch or /controller: read
			// again and decide afresh (a newer KRaft controller fences us).
			return false, errReread
		},
	})
	if err != nil {
		return s, o, err
	}
	st := s
	st.ZkControllerEpoch, st.ZkControllerEpochZkVersion, st.Recovered = c.newEpoch, newVersion, o == outcomeRecovered
	return st, o, nil
}

// createEpoch creates /controller_epoch holding 0; one that appeared
// meanwhile is as good.
func (w *Writer) createEpoch(ctx context.Context, r *retrier) error {
	_, err := w.create(ctx, r, w.epochPath, znode.EncodeControllerEpoch(0), checker.ControllerEpoch{})
	if errors.Is(err, errReread) {
		return nil
	}
	return err
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

// errMoved: another controller was elected; nothing to release.
var errMoved = errors.New("controller moved")

func (w *Writer) release(ctx context.Context, s State) (State, outcome, error) {
	if err := s.validate(); err != nil {
		return s, outcomeError, err
	}
	fence := s.ZkControllerEpochZkVersion
	if fence < 0 {
		return s, outcomeError, invalidf("ZkControllerEpochZkVersion %d: ReleaseLeadership needs the version from ClaimLeadership", fence)
	}
	check := &zk.CheckVersionRequest{Path: w.epochPath, Version: fence}
	del := &zk.DeleteRequest{Path: w.controllerPath, Version: -1}
	r := w.x.retrier()
	o, err := w.x.run(ctx, r, write{
		path:     w.controllerPath,
		expected: fence,
		send: func() error {
			_, err := w.x.conn.Multi(check, del)
			return err
		},
		verify: func(ctx context.Context, r *retrier, _ error, _ bool) (bool, error) {
			zs, err := w.x.reread(ctx, r, w.epochPath, w.controllerPath)
			if err != nil {
				return false, err
			}
			if epoch := zs[0]; !epoch.exists || epoch.version != fence {
				return false, errMoved
			}
			if ok, _ := landed(intent{kind: kindDelete, expected: -1}, zs[1]); ok {
				return true, nil
			}
			return false, nil
		},
	})
	if errors.Is(err, errMoved) {
		w.x.opts.logger.Info("another controller was elected; nothing to release", "path", w.epochPath, "expected_version", fence)
		err, o = nil, outcomeOK
	}
	if err != nil {
		return s, o, err
	}
	st := s
	st.ZkControllerEpoch, st.ZkControllerEpochZkVersion, st.Recovered = -1, -1, o == outcomeRecovered
	return st, o, nil
}
