package migrationzk

// This file is the whole answer to "did my write land?". A client resends a
// request unchanged when its connection drops; if the first copy had
// committed, ZooKeeper rejects the resend (BadVersion, NodeExists, NoNode, a
// failed multi) although nothing is wrong. Taking that rejection for a
// conflict leaves the caller with a stale znode version forever; taking a
// real conflict for success loses data. So after a rejection the writer
// rereads the znodes on the same session, after a sync, and the rules below
// give the verdict. Nothing else in the package decides; executor.go only
// carries verdicts out, and knows two fates of its own: acknowledged, and
// unknown when a call must stop while a copy is in doubt and no reread has
// settled it. For a batch, batchrequest.go sends each request and records
// it once in, and batchevidence.go gathers what a rejected one shows, for
// these rules to judge.
//
// A write counts as ours only with exact evidence: the version it must have
// produced (expected+1 for SetData, 0 for a create) and, for a fenced
// write, /controller_epoch still at the version that fenced it; for a
// leadership claim, /controller_epoch at expected+1 holding the value the
// claim wrote, jumped or not (WithRollbackSafeEpochs). Content that merely
// matches is never enough: another writer may have written the same bytes.

import (
	"errors"
	"fmt"
	"slices"

	"github.com/go-zookeeper/zk"

	"github.com/kraftmigration/zkwriter/checker"
	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

// verdict is what the rules conclude about a write ZooKeeper rejected.
type verdict uint8

const (
	verdictNotLanded verdict = iota // did not land; the error with it says why and is the call's result
	verdictLanded                   // an earlier copy landed: its acknowledgement was lost
	verdictResend                   // did not land, nothing in its way: send it (as amended) again
	verdictReread                   // did not land; the znodes hold another's state: read and decide afresh
	verdictMoot                     // did not land and need not: what it was for holds already
	verdictByOps                    // /migration shows a transaction with our content: judge its ops (heldOps)
	verdictAcked                    // no verdict of these rules: ZooKeeper acknowledged the write
)

// intent is one znode write as it was sent.
type intent struct {
	kind opKind
	// expected is the version the write was conditioned on; -1 for an
	// unconditional SetData or Delete.
	expected int32
	data     []byte
	chk      checker.Checker
}

// holds reports whether cur shows the write in: a SetData at exactly
// expected+1 (every setData bumps the version by one, so a later write
// shows more; an unconditional one cannot be told from another's), a
// create at version 0, with bytes the checker finds equivalent; a delete
// by the znode being gone. A checker error means no.
func holds(in intent, cur znodeState) (bool, error) {
	switch {
	case in.kind == kindDelete:
		return !cur.exists, nil
	case !cur.exists:
		return false, nil
	case in.kind == kindSetData && (in.expected < 0 || cur.version != in.expected+1):
		return false, nil
	case in.kind == kindCreate && cur.version != 0:
		return false, nil
	case in.kind != kindCreate && in.kind != kindSetData:
		return false, nil // no other kind writes data
	}
	chk := in.chk
	if chk == nil {
		chk = checker.Bytes{}
	}
	return chk.Landed(in.data, cur.data)
}

// createVerdict judges a rejected create of path. A missing parent cannot
// be mended by sending again. Only a copy sent earlier in this call can be
// ours; a znode that is there otherwise is someone else's, read again by
// the caller (which reports data that does not decode).
func createVerdict(in intent, path string, rejection error, cur znodeState, resent bool) (verdict, error) {
	if errors.Is(rejection, zk.ErrNoNode) {
		return verdictNotLanded, fmt.Errorf("migrationzk: create %s: parent missing: %w", path, rejection)
	}
	if ok, _ := holds(in, cur); ok && resent {
		return verdictLanded, nil
	}
	if cur.exists {
		return verdictReread, nil
	}
	return verdictResend, nil // gone again: create it
}

// ensureVerdict judges a rejected create of a path that only has to
// exist: whoever made it, it is there.
func ensureVerdict(path string, rejection error) (verdict, error) {
	if errors.Is(rejection, zk.ErrNodeExists) {
		return verdictMoot, nil
	}
	return verdictNotLanded, fmt.Errorf("migrationzk: create %s: %w", path, rejection)
}

// replaceVerdict judges a rejected SetData that replaces data /migration
// cannot hold (null or empty): ours if a copy sent in this call holds,
// otherwise someone else's, read again by the caller (which reports data
// that does not decode).
func replaceVerdict(in intent, cur znodeState, resent bool) verdict {
	if ok, _ := holds(in, cur); ok && resent {
		return verdictLanded
	}
	return verdictReread
}

// transactionVerdict judges a rejected write of s to /migration fenced by
// /controller_epoch at fence (no fence when fence < 0): it landed when the
// fence still holds and /migration holds it. Otherwise the error says
// whether another controller took over, /migration is gone, or another
// writer moved it.
func (w *Writer) transactionVerdict(s State, mine intent, fence int32, cur, epoch znodeState) (verdict, error) {
	if fence >= 0 && (!epoch.exists || epoch.version != fence) {
		return verdictNotLanded, &FencedError{Path: znode.ControllerEpochPath, Reason: fmt.Sprintf("version %d, expected %d: another controller was elected", epoch.version, fence)}
	}
	ok, cerr := holds(mine, cur)
	switch {
	case ok:
		return verdictLanded, nil
	case !cur.exists:
		return verdictNotLanded, fmt.Errorf("%w: %s does not exist", ErrNoMigrationState, w.migrationPath)
	}
	s.MigrationZkVersion = mine.expected
	return verdictNotLanded, w.migrationConflict(s, cur, cerr)
}

// migrationConflict reports /migration found at another version than s
// expects: fenced when a newer KRaft controller wrote it, else a conflict.
func (w *Writer) migrationConflict(s State, cur znodeState, cerr error) error {
	ce := &ConflictError{Path: w.migrationPath, ExpectedVersion: s.MigrationZkVersion,
		CurrentVersion: cur.version, CurrentData: cur.data, Err: cerr}
	m, err := znode.DecodeMigration(cur.data)
	if err != nil {
		ce.Err = w.withPath(err, w.migrationPath)
		return ce
	}
	if m.KRaftControllerEpoch > s.KRaftControllerEpoch {
		return &FencedError{Path: znode.MigrationPath, Reason: fmt.Sprintf(
			"written by KRaft controller %d with epoch %d, newer than ours (%d)", m.KRaftControllerID, m.KRaftControllerEpoch, s.KRaftControllerEpoch)}
	}
	current := s.withMigration(m, cur.version, cur.mtime)
	ce.Current, ce.Err = &current, nil
	return ce
}

// batchVerdict judges a rejected transaction of a batch, [Check
// /controller_epoch, SetData /migration, ops...]. When the /migration write
// holds under the fence, a transaction with this content landed: a copy
// this call sent, or an earlier call's, whose ops may differ. But another
// writer may have written the same bytes to /migration alone, so what
// landed is judged from the ops' znodes (heldOps): the ops of the
// transaction that wrote /migration carry its zxid.
func (w *Writer) batchVerdict(s State, mine intent, fence int32, cur, epoch znodeState) (verdict, error) {
	if cur.exists && cur.version == mine.expected && epoch.exists && epoch.version == fence {
		return verdictNotLanded, fmt.Errorf("migrationzk: transaction on %s refused with /migration and %s unchanged", w.migrationPath, w.epochPath)
	}
	v, err := w.transactionVerdict(s, mine, fence, cur, epoch)
	if v == verdictLanded {
		return verdictByOps, nil
	}
	return v, err
}

// Layout of a batch's transaction: the fencing check of /controller_epoch,
// the /migration write, then the ops, as Kafka lays out its own. ZooKeeper
// checks a multi's ops in order and reports the first that fails, so a
// failure reported at an op proves that the first two passed.
const (
	migrationIndex = 1
	firstOpIndex   = 2
)

// refusedAtOp returns the position among the nops ops, and the error, of
// a refusal that ZooKeeper reported after the fence and the /migration
// write, or -1. Such a refusal proves that the transaction did not land:
// the fence and /migration passed, so no earlier copy had moved /migration,
// and none will, since ZooKeeper answered on this session after it.
func refusedAtOp(res []zk.MultiResponse, nops int) (int, error) {
	for i, r := range res {
		if r.Error != nil && i >= firstOpIndex && i < firstOpIndex+nops {
			return i - firstOpIndex, r.Error
		} else if r.Error != nil {
			return -1, nil
		}
	}
	return -1, nil
}

// evidence is what the znode of one op of a request shows of T, the
// transaction that wrote /migration at a given zxid.
type evidence uint8

const (
	// evidenceHidden: the znode changed after T in a way that hides
	// whether T held the op (deleted, created again, set again).
	evidenceHidden evidence = iota
	// evidenceHeld: the znode carries T's zxid: T created it or set it
	// last (all ops of a multi share one zxid).
	evidenceHeld
	// evidenceNotHeld: the znode shows that T did not hold the op: a create
	// whose znode is absent or older than T, a SetData whose znode nothing
	// set since before T, a delete whose znode stands from before T.
	evidenceNotHeld
)

// opEvidence reads what cur, the znode of op, shows of the transaction at
// zxid.
func opEvidence(op Op, cur znodeState, zxid int64) evidence {
	switch {
	case op.kind == kindCreate && (!cur.exists || cur.czxid < zxid):
		return evidenceNotHeld
	case op.kind == kindCreate && cur.czxid == zxid:
		return evidenceHeld
	case op.kind == kindSetData && cur.exists && cur.mzxid < zxid:
		return evidenceNotHeld
	case op.kind == kindSetData && cur.exists && cur.mzxid == zxid:
		return evidenceHeld
	case op.kind == kindDelete && cur.exists && cur.czxid < zxid:
		return evidenceNotHeld
	}
	return evidenceHidden
}

// heldOps decides from the evidence of each op of a request which of them
// T held. Each candidate marks the ops of a transaction of ours that may
// be T, in doubt at /migration's expected version with this content: a
// copy of this request sent earlier in this call (every op), or the
// transaction an earlier call of this Writer left in doubt. T is ours when
// an op carries its zxid, or when some candidate holds ops and none of
// them denies it; with no candidate, when no op denies it. T then held
// every op whose evidence does not deny it, and the others are sent again.
// Otherwise T is not ours: another writer wrote our bytes to /migration
// alone.
func heldOps(ev []evidence, candidates ...[]bool) (held []bool, ours bool) {
	if len(candidates) == 0 {
		candidates = [][]bool{allOps(len(ev))}
	}
	for _, e := range ev {
		ours = ours || e == evidenceHeld
	}
	for _, marks := range candidates {
		ours = ours || consistent(ev, marks)
	}
	if !ours {
		return nil, false
	}
	held = make([]bool, len(ev))
	for i, e := range ev {
		held[i] = e != evidenceNotHeld
	}
	return held, true
}

// consistent reports whether the ops marks picks could all be T's: some
// are picked, and none denies it.
func consistent(ev []evidence, marks []bool) bool {
	picked := false
	for j, e := range ev {
		if marks[j] && e == evidenceNotHeld {
			return false
		}
		picked = picked || marks[j]
	}
	return picked
}

// heldVerdict judges a request of a batch once /migration, at cur, showed a
// transaction T with the request's content (verdictByOps) and heldOps
// judged its ops: landed when T is ours and held every op; when it held
// only some, the others are sent again after it. When T is not ours,
// another writer wrote the batch's bytes to /migration alone: a conflict
// with the version the request expected.
func heldVerdict(path string, expected int32, cur znodeState, held []bool, ours bool) (verdict, error) {
	switch {
	case !ours:
		return verdictNotLanded, &ConflictError{Path: path, ExpectedVersion: expected, CurrentVersion: cur.version,
			CurrentData: cur.data, Err: errors.New("its content matches this batch, but the batch's ops show that another writer wrote it")}
	case slices.Contains(held, false):
		return verdictResend, nil
	}
	return verdictLanded, nil
}

// allOps marks n ops.
func allOps(n int) []bool {
	marks := make([]bool, n)
	for j := range marks {
		marks[j] = true
	}
	return marks
}

// claim is a leadership claim as it was sent: /controller_epoch raised
// from value current at znode version expected to newEpoch, and
// /controller naming this KRaft controller.
type claim struct {
	expected   int32
	current    int32
	newEpoch   int32
	controller int32
	kraftEpoch int32
}

// claimEpoch is the value a claim over /controller_epoch holding current
// writes: current+1, as Kafka does; with rollbackSafe, at least the
// claimant's KRaft epoch as well, so that no partition state it stamps
// is above /controller_epoch (WithRollbackSafeEpochs). It is never below
// current+1, which overflows, as in Kafka, at the largest epoch.
func claimEpoch(current, kraftEpoch int32, rollbackSafe bool) int32 {
	if rollbackSafe && kraftEpoch-1 > current {
		return kraftEpoch
	}
	return current + 1
}

// claimLanded reports whether c is in ZooKeeper: /controller_epoch holds
// the very value c wrote (a jumped one included) at exactly expected+1,
// and /controller names this controller with its KRaft epoch. Trust the
// epoch, not a matching payload: a /controller naming us proves nothing
// alone (another claim by the same controller and KRaft epoch, by
// Kafka's rule, holds current+1 where c jumped), and data that does not
// decode is not ours.
func claimLanded(c claim, epoch, controller znodeState) bool {
	if !epoch.exists || epoch.version != c.expected+1 || !controller.exists {
		return false
	}
	value, err := znode.DecodeControllerEpoch(epoch.data)
	if err != nil || value != c.newEpoch {
		return false
	}
	ctl, err := znode.DecodeController(controller.data)
	return err == nil && ctl.BrokerID == c.controller && ctl.KRaftControllerEpoch == c.kraftEpoch
}

// claimVerdict judges a rejected claim: ours only if a copy sent earlier
// in this call, or by an earlier call of this Writer whose outcome was
// unknown, is in ZooKeeper exactly; otherwise the znodes moved and the
// claim is decided afresh from them.
func claimVerdict(c claim, epoch, controller znodeState, resent bool) verdict {
	if resent && claimLanded(c, epoch, controller) {
		return verdictLanded
	}
	return verdictReread
}

// holder is what /controller_epoch and /controller hold before a claim.
type holder struct {
	epoch, controller znodeState
	epochValue        int32
	current           znode.Controller // decoded when controller exists
}

// standingClaim reports whether the holder h is a claim by this very
// controller and KRaft epoch that still stands: the transaction that
// created /controller is the last that wrote /controller_epoch (all ops of
// a multi share one zxid), so /controller_epoch holds the version and
// value that claim gave it and no election has moved it since. A
// /controller naming us is not enough on its own: /controller_epoch may
// have moved on, and with it the tenure that claim made.
func standingClaim(h holder, controller, kraftEpoch int32) bool {
	return h.controller.exists && h.epoch.exists && h.epoch.mzxid == h.controller.czxid &&
		h.current.BrokerID == controller && h.current.KRaftControllerEpoch == kraftEpoch
}

// resumable reports whether a standing claim (standingClaim) may be
// resumed as it is: always by Kafka's rule; with rollbackSafe only when
// /controller_epoch is at least the KRaft epoch, as a claim with
// rollback-safe epochs leaves it. A standing claim below it was made by
// Kafka's rule and is claimed again, with the jump.
func resumable(h holder, kraftEpoch int32, rollbackSafe bool) bool {
	return !rollbackSafe || h.epochValue >= kraftEpoch
}

// claimRefusal refuses, as Kafka does, a claim with KRaft epoch ours while
// /controller names a KRaft controller with an epoch at least as high,
// this controller's own included unless its claim stands (standingClaim).
func (w *Writer) claimRefusal(ctl znode.Controller, ours int32) error {
	if !ctl.IsKRaft() || ctl.KRaftControllerEpoch < ours {
		return nil
	}
	return &FencedError{Path: znode.ControllerPath, Reason: fmt.Sprintf(
		"KRaft controller %d holds it with epoch %d; ours is %d", ctl.BrokerID, ctl.KRaftControllerEpoch, ours)}
}

// releaseVerdict judges a rejected release, [Check /controller_epoch at
// fence, Delete /controller]: nothing is left to release once another
// controller was elected or /controller is gone; the release landed only
// if /controller went while a copy of it was in doubt.
func releaseVerdict(fence int32, epoch, controller znodeState, resent bool) verdict {
	switch {
	case !epoch.exists || epoch.version != fence:
		return verdictMoot
	case controller.exists:
		return verdictResend
	case resent:
		return verdictLanded
	}
	return verdictMoot
}

// conditionalVerdict judges a rejected ConditionalUpdate or
// ConditionalDelete of path: ours if the znode shows the write by the
// version rule and the checker (a delete: gone, which is as good when no
// copy was in doubt); a conflict if it moved on otherwise.
func conditionalVerdict(in intent, path string, rejection error, cur znodeState, resent bool) (verdict, error) {
	ok, cerr := holds(in, cur)
	switch {
	case ok && in.kind == kindDelete && !resent:
		return verdictMoot, nil
	case ok:
		return verdictLanded, nil
	case !cur.exists:
		return verdictNotLanded, fmt.Errorf("migrationzk: update %s: %w", path, rejection)
	}
	return verdictNotLanded, &ConflictError{Path: path, ExpectedVersion: in.expected, CurrentVersion: cur.version, CurrentData: cur.data, Err: cerr}
}
