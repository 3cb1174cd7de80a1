package migrationzk

// This file holds the decision the package exists for: after ZooKeeper
// rejected a write (BadVersion, NodeExists, NoNode, a failed multi), did an
// earlier copy of that same write land? A client resends a request
// unchanged when its connection drops; if the first copy had committed, the
// resend is rejected although nothing is wrong. Treating that rejection as a
// conflict leaves the caller with a stale znode version forever. Treating a
// real conflict as success loses data. So the writer rereads the znode on
// the same session, after a sync, and applies the rules below; nothing else
// in the package decides.

import (
	"bytes"
	"errors"

	"github.com/kraftmigration/zkwriter/checker"
	"github.com/kraftmigration/zkwriter/migrationzk/znode"
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

// landed decides from a reread whether the write in landed.
//
//   - SetData landed iff the znode exists at exactly expected+1 (every
//     setData bumps the version by one, so any later write shows more) and
//     the checker finds its bytes equivalent to ours. An unconditional
//     SetData cannot be told apart from someone else's and never counts.
//   - Create landed iff the znode exists at version 0 with equivalent bytes.
//   - Delete landed iff the znode is gone.
//
// A checker error (current bytes that do not decode) means not landed; the
// error is returned for the caller's report.
func landed(in intent, cur znodeState) (bool, error) {
	switch in.kind {
	case kindSetData:
		if in.expected < 0 || !cur.exists || cur.version != in.expected+1 {
			return false, nil
		}
	case kindCreate:
		if !cur.exists || cur.version != 0 {
			return false, nil
		}
	case kindDelete:
		return !cur.exists, nil
	default:
		return false, errors.New("migrationzk: unknown write kind")
	}
	chk := in.chk
	if chk == nil {
		chk = checker.Bytes{}
	}
	return chk.Landed(in.data, cur.data)
}

// transactionLanded decides whether a fenced transaction, [Check
// /controller_epoch at fence, ..., SetData /migration at expected], landed:
// its /migration write landed and /controller_epoch is still at the version
// that fenced it. The /migration write is what proves the transaction, since
// all of a multi's ops commit together.
func transactionLanded(migration intent, cur znodeState, fence int32, epoch znodeState) (bool, error) {
	if !epoch.exists || epoch.version != fence {
		return false, nil
	}
	return landed(migration, cur)
}

// claim is a leadership claim as it was sent: /controller_epoch raised to
// newEpoch from the znode version expected, and /controller naming this
// KRaft controller.
type claim struct {
	expected   int32
	newEpoch   int32
	controller int32
	kraftEpoch int32
}

// claimLanded decides whether a leadership claim landed: /controller_epoch
// holds the new epoch at exactly expected+1, and /controller names this
// controller with its KRaft epoch.
func claimLanded(c claim, epoch, controller znodeState) (bool, error) {
	if !epoch.exists || epoch.version != c.expected+1 || !controller.exists {
		return false, nil
	}
	value, err := znode.DecodeControllerEpoch(epoch.data)
	if err != nil || value != c.newEpoch {
		return false, err
	}
	ctl, err := znode.DecodeController(controller.data)
	if err != nil {
		return false, err
	}
	return ctl.BrokerID == c.controller && ctl.KRaftControllerEpoch == c.kraftEpoch, nil
}

// effectHeld decides whether ZooKeeper shows the effect of one op of a
// transaction that this call never saw land: the znode exists with the op's
// bytes (for SetData, at exactly version+1 when it was conditional), or is
// gone after a Delete. It serves when /migration proves that some earlier
// transaction with our content landed but not which ops it held.
func effectHeld(kind opKind, version int32, data []byte, cur znodeState) bool {
	switch kind {
	case kindCreate:
		return cur.exists && bytes.Equal(cur.data, data)
	case kindSetData:
		return cur.exists && bytes.Equal(cur.data, data) && (version < 0 || cur.version == version+1)
	case kindDelete:
		return !cur.exists
	}
	return false
}
