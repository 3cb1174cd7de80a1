package history

// The checks of a whole history, as named in Finding.Check.
const (
	// CheckLinearizable: the history of /migration and /controller_epoch,
	// or of a payload znode, has no linearization: what the writer
	// reported cannot be what ZooKeeper did.
	CheckLinearizable = "linearizable"
	// CheckFalseConflict: a conflict reported with no other writer in the
	// way: a conflict reported for the writer's own write.
	CheckFalseConflict = "false-conflict"
	// CheckMissedConflict: a success although another writer's write
	// landed in the way, or two writes that produced the same version.
	CheckMissedConflict = "missed-conflict"
	// CheckFenceAdopted: a claim that reported a /controller_epoch version
	// another party produced.
	CheckFenceAdopted = "fence-adopted"
	// CheckTenure: a /controller_epoch version held by two identities, or
	// by one after another party produced it, or a claim resumed after
	// the tenure it resumes ended.
	CheckTenure = "tenure"
	// CheckRollbackSafe: a claim with rollback-safe epochs that left
	// /controller_epoch below the claimant's KRaft epoch, or a partition
	// state written under it above /controller_epoch.
	CheckRollbackSafe = "rollback-safe"
	// CheckAfterTenure: a write accepted from a writer after its tenure
	// ended (ZooKeeper was known to have seen a later claim before the
	// call).
	CheckAfterTenure = "write-after-tenure"
)

// Finding is what a check of the history found wrong.
type Finding struct {
	// Check names the check (one of the Check constants).
	Check, Text string
}
