// Package history records what the torture suite's calls did, as
// operations of a model of ZooKeeper, and checks the record.
//
// A Recorder stamps each call with the history's clock (Record); the
// caller turns what the call reported into operations of the model
// (Step, Op) of a group of znodes checked together: /migration with
// /controller_epoch, whose version fences every write to it
// (MigrationGroup), or one payload znode alone. Besides the operations,
// the history keeps the facts the other checks need: the writes of other
// parties, the conflicts and successes reported, and the claims of
// /controller_epoch.
//
// Check runs every check of a whole history: linearizability of each
// group (with porcupine), no conflict reported with no other writer in
// the way, none missed, and the invariants, which hold of every history
// whatever its faults and so of every part of one (Invariants): one
// tenure per /controller_epoch version, rollback-safe epochs, no write
// accepted once the tenure ended.
//
// A History knows the cluster's root path (New), and nothing of the
// writers, the faults or the ensemble that made it.
package history
