package migrationzk

import "fmt"

// Identity is a KRaft controller's tenure as /migration and /controller
// record it: its node id and the KRaft epoch it leads in.
type Identity struct {
	ControllerID    int32
	ControllerEpoch int32
}

// IdentityOf returns the identity s carries.
func IdentityOf(s State) Identity {
	return Identity{ControllerID: s.KRaftControllerID, ControllerEpoch: s.KRaftControllerEpoch}
}

func (id Identity) String() string {
	return fmt.Sprintf("KRaft controller %d epoch %d", id.ControllerID, id.ControllerEpoch)
}

// IdentityError is a write refused before anything was sent because its
// State names another controller, or another epoch, than the leadership
// claim of the Writer: a Writer that claimed leadership writes /migration
// and partition states only under the identity it claimed with. It
// matches ErrInvalidArgument.
type IdentityError struct {
	// Claimed is the identity of the Writer's claim.
	Claimed Identity
	// Given is the identity of the State the call was given.
	Given Identity
}

func (e *IdentityError) Error() string {
	return fmt.Sprintf("migrationzk: invalid argument: the State names %v, but this Writer claimed leadership as %v", e.Given, e.Claimed)
}

// Is makes errors.Is(err, ErrInvalidArgument) hold.
func (e *IdentityError) Is(target error) bool { return target == ErrInvalidArgument }

// checkState refuses a State with invalid fields, or, once the Writer
// claimed leadership, with another identity than the claim's.
func (w *Writer) checkState(s State) error {
	if err := s.validate(); err != nil {
		return err
	}
	claimed := w.claimed.Load()
	if given := IdentityOf(s); claimed != nil && given != *claimed {
		return &IdentityError{Claimed: *claimed, Given: given}
	}
	return nil
}

// setClaimed records the identity of a claim that succeeded.
func (w *Writer) setClaimed(s State) {
	id := IdentityOf(s)
	w.claimed.Store(&id)
}
