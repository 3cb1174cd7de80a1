// Package migrationzk writes Kafka's ZooKeeper state during a
// ZooKeeper-to-KRaft migration without getting stuck or losing data.
//
// It is the Writer, the second of five layers. A package imports only
// from its own line and those above it, and the packages beside the
// Writer from their own line only: the Writer knows nothing of
// connections, TLS or SASL. A short name is a package below migrationzk/
// (znode is migrationzk/znode); checker and the commands sit at the
// module's top:
//
//	bytes               znode, checker, passwordencoder
//	the Writer          migrationzk
//	Kafka's vocabulary  dualwrite, zkmetrics
//	beside the Writer   zkconn, zkconn/sasl, zktls, zktest
//	the tools           cmd/migrationzk, cmd/zksandbox
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
// A typical controller, as the README's quick start has it, writes
// Kafka's vocabulary through package dualwrite:
//
//	w, err := migrationzk.New(conn, migrationzk.WithRoot("/kafka"), migrationzk.WithLogger(logger))
//	err = w.CreateTopLevelPaths(ctx)          // the chroot and Kafka's persistent paths
//	s, err := w.ClaimLeadership(ctx, state)   // fences every later write
//	s, found, err := w.GetOrCreate(ctx, s)    // reads or creates /migration
//	s, err = w.Update(ctx, s)                 // names this controller in /migration
//	c, err := dualwrite.New(w)
//	s, err = c.CreateTopic(ctx, s, topic)     // a change and its checkpoint: one fenced transaction
//	s, _, err = c.Batch().UpdatePartitions(name, states).WriteConfigs(r, cfg).Apply(ctx, s) // a whole delta
//	s, err = w.Update(ctx, s)                 // a checkpoint alone
//
// Apply and ApplyAtomic write ops a caller builds itself, for what package
// dualwrite does not cover; unlike a dualwrite Client they create no
// missing parents (an op refused for one is reported in its OpResult).
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
// # Errors and what to do
//
// Every write returns the State ZooKeeper holds, on error too. What a
// controller does with an error, as the README's quick start (handle)
// does:
//
//   - ErrFenced (a *FencedError): another controller took over. This
//     Writer is retired, and every later write returns ErrRetired: step
//     down.
//   - A *ConflictError (matching ErrConflict) on /migration: another
//     writer moved it (CurrentVersion; Current names it). Reload with
//     GetOrCreate, passing the State of this tenure, before writing
//     again; the reloaded State keeps this controller's identity. Never
//     write a State taken from /migration or from Current.
//   - ErrOutcomeUnknown: the context ended before the outcome was known.
//     Call again with the same State and arguments: the reread tells a
//     write that landed from one that did not, and nothing lands twice.
//   - An error matching ErrConflict from a dualwrite call that is no
//     *ConflictError: other writers changed the znodes it writes in every
//     one of its rounds, and the checkpoint did not move. Find what else
//     writes them, then call again with the same State and changes.
//   - ErrStaleSession: close the client, connect again and make a new
//     Writer; then calling again with the same State is safe.
//   - ErrInvalidArgument (an *IdentityError among them): a mistake in the
//     call; nothing was sent. ErrNotAuthorized, ErrAuthFailed: the
//     credentials or the ACLs; nothing was written.
//
// Every deliberate difference from Kafka 3.9, of this package and the
// others, is listed in one place, numbered: docs/deviations.md in the
// repository, "Where zkwriter differs from Kafka 3.9, on purpose".
package migrationzk
