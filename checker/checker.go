// Package checker decides whether a write to a znode already happened.
//
// After ZooKeeper rejects a conditional write (BadVersion, NodeExists), for
// example because a resent request had in fact been applied before the
// connection dropped, the writer rereads the znode. A Checker then decides
// whether the current bytes show that the intended write already
// happened, by content equivalence. The rule on the znode version is
// applied by the caller, not here.
package checker

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

// ErrIntended is matched, through errors.Is, by the errors a Checker
// returns when the intended data, the caller's own input, cannot be
// decoded. Such errors read "intended data: " followed by the decode error.
var ErrIntended = errors.New("intended data")

// Checker decides whether a znode's current bytes show that the intended
// write already happened.
type Checker interface {
	// Landed reports whether current is equivalent to intended. When
	// current (or intended) cannot be decoded it reports false and returns
	// the decode error, so the caller can include it in its report.
	Landed(intended, current []byte) (bool, error)
}

// Compile-time checks that the checkers implement Checker.
var (
	_ Checker = Func(nil)
	_ Checker = Bytes{}
	_ Checker = JSON{}
	_ Checker = MigrationState{}
	_ Checker = LeaderAndIsr{}
	_ Checker = ControllerEpoch{}
)

// Func adapts a function to the Checker interface.
type Func func(intended, current []byte) (bool, error)

// Landed returns f(intended, current).
func (f Func) Landed(intended, current []byte) (bool, error) { return f(intended, current) }

// Bytes is a Checker for byte equality. Null data (nil) and empty data are
// different. It never returns an error.
type Bytes struct{}

// Landed reports whether intended and current are the same bytes, both
// null or both non-null.
func (Bytes) Landed(intended, current []byte) (bool, error) {
	return (intended == nil) == (current == nil) && bytes.Equal(intended, current), nil
}

// MigrationState is a Checker for /migration: the checkpoints must decode
// with znode.DecodeMigration to equal fields.
type MigrationState struct{}

// Landed reports whether intended and current hold the same checkpoint.
func (MigrationState) Landed(intended, current []byte) (bool, error) {
	return landed(intended, current, znode.DecodeMigration, func(a, b znode.Migration) bool { return a == b })
}

// LeaderAndIsr is a Checker for partition state znodes: the states must
// decode with znode.DecodePartitionState to equal fields, the in-sync
// replicas in the same order.
type LeaderAndIsr struct{}

// Landed reports whether intended and current hold the same partition
// state.
func (LeaderAndIsr) Landed(intended, current []byte) (bool, error) {
	return landed(intended, current, znode.DecodePartitionState, znode.PartitionState.Equal)
}

// ControllerEpoch is a Checker for /controller_epoch: the epochs must
// decode with znode.DecodeControllerEpoch to the same number, so "043"
// and "43" are equivalent.
type ControllerEpoch struct{}

// Landed reports whether intended and current hold the same epoch.
func (ControllerEpoch) Landed(intended, current []byte) (bool, error) {
	return landed(intended, current, znode.DecodeControllerEpoch, func(a, b int32) bool { return a == b })
}

// landed decodes intended and current and compares them with equal.
func landed[T any](intended, current []byte, decode func([]byte) (T, error), equal func(a, b T) bool) (bool, error) {
	want, err := decode(intended)
	if err != nil {
		return false, intendedError(err)
	}
	got, err := decode(current)
	if err != nil {
		return false, err
	}
	return equal(want, got), nil
}

// intendedError wraps err, a failure to decode the intended data.
func intendedError(err error) error {
	return fmt.Errorf("%w: %w", ErrIntended, err)
}
