// Package migrationzk writes Kafka's ZooKeeper state during a
// ZooKeeper-to-KRaft migration without getting stuck or losing data.
//
// A KRaft controller in a migration checkpoints its progress in /migration
// with conditional writes, mirrors metadata into ZooKeeper in fenced
// transactions, and claims leadership through /controller_epoch and
// /controller. When a connection drops after ZooKeeper committed such a
// write but before the reply arrived, the client resends it and ZooKeeper
// rejects the resend (BadVersion, NodeExists, NoNode) because the first copy
// landed. Kafka 3.9 takes that for a conflict and never corrects its cached
// znode version, so every later write fails.
//
// A Writer performs these writes and, after any rejection, rereads the
// znodes on the same session (after a sync) to tell its own landed write
// apart from a real conflict; the rules are in landed.go. It always returns
// the version ZooKeeper holds (State.MigrationZkVersion), marks a write
// whose acknowledgement was lost as Recovered, reports a real conflict as a
// *ConflictError, and retires itself when another controller took over
// (*FencedError, then ErrRetired).
//
// A typical controller:
//
//	w, err := migrationzk.New(conn, migrationzk.WithRoot("/kafka"), migrationzk.WithLogger(logger))
//	s, err := w.ClaimLeadership(ctx, state)     // fences every later write
//	s, found, err := w.GetOrCreate(ctx, s)       // reads or creates /migration
//	s, err = w.Update(ctx, s)                    // names this controller in /migration
//	s, results, err := w.Apply(ctx, s, ops...)   // a dual-write batch ending in a checkpoint
//	s, err = w.Update(ctx, s)                    // a checkpoint alone
//
// Always pass the State the last call returned to the next one.
//
// The identity comes from the tenure: the KRaft controller id and epoch a
// Writer writes to /migration (and that package dualwrite stamps on
// partition states) are those of its leadership claim. GetOrCreate keeps
// the State's identity and reports the one /migration held (found.Stored)
// without adopting it. Once ClaimLeadership succeeded, every write whose
// State names another KRaftControllerID or KRaftControllerEpoch than the
// claim's is refused before anything is sent, with an *IdentityError
// (matching ErrInvalidArgument): it is the caller's mistake, and stamping
// the claim's identity over it would hide which State was stale. A Writer
// that never claimed writes the identity its States carry.
//
// New checks every option: an invalid one fails it with an error wrapping
// ErrInvalidArgument, and no option silently means its default. Results
// say what a call did (State.Recovered, UpdateResult, DeleteResult,
// GetOrCreateResult), so that no caller reads logs or Stats to learn it.
//
// Every deliberate difference from Kafka 3.9, of this package and the
// others, is listed in one place: the README's section "Where zkwriter
// differs from Kafka 3.9, on purpose".
package migrationzk
