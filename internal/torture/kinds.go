package torture

// Fault kinds, as counted in Report.Faults.
const (
	FaultDropReply        = "drop-reply"         // reply dropped after commit
	FaultDropRequest      = "drop-request"       // request dropped before the server
	FaultCutRequest       = "cut-request"        // connection cut mid-frame
	FaultKillMember       = "kill-member"        // a random member killed (SIGKILL) and restarted
	FaultKillClientMember = "kill-client-member" // the member the writer uses killed and restarted
	FaultExpireSession    = "expire-session"     // the writer's session closed from another connection
	FaultRival            = "rival"              // a rival controller claims leadership
	FaultForeignWrite     = "foreign-write"      // a conflicting write to /migration or a payload znode
	FaultCallerDeadline   = "caller-deadline"    // the caller's context ends mid-call
	// FaultABAWrite: right after a write of ours committed, before its
	// reply, another party writes our exact bytes to /migration or to a
	// payload znode of the batch, so the version moves by two with content
	// equal to ours.
	FaultABAWrite = "aba-write"
	// FaultForeignDelta: before a delta through the remembering
	// dual-write Client, another party changes, deletes, or deletes and
	// recreates (with the same bytes, back at the same version: an ABA)
	// a partition state the delta changes.
	FaultForeignDelta = "foreign-delta"
	// FaultTenureEnds: right after a checkpoint or batch of ours committed,
	// before its reply, a rival controller claims leadership: our tenure
	// ends during a lost acknowledgement.
	FaultTenureEnds = "tenure-ends"
	// FaultRecreate: while a batch's outcome is in doubt (its reply lost,
	// and the call then stopped, or not), another party deletes a znode it
	// created and creates it again with the same bytes, rewrites it with
	// the same bytes, or creates again one it deleted.
	FaultRecreate = "recreate-in-doubt"
	// FaultClaimRace: a rival's claim is raced by another claim with the
	// same KRaft epoch and another controller id (refused), or the same
	// controller id with a lower KRaft epoch (claimed over).
	FaultClaimRace = "claim-race"
	// FaultBrokerWins: a ZooKeeper-mode broker wins /controller between a
	// rival's claim and its resend.
	FaultBrokerWins = "broker-wins"
	// FaultClaimTenureEnds: right after a rival's claim committed, before
	// its reply, another party raises /controller_epoch (or rewrites the
	// same value): the claim's tenure ends during its lost acknowledgement.
	FaultClaimTenureEnds = "claim-tenure-ends"
	// FaultClaimTwin: while a rival's claim with rollback-safe epochs is in
	// doubt (its request dropped) and would jump /controller_epoch, the
	// same controller and KRaft epoch claims by Kafka's rule (current+1):
	// /controller names the rival exactly, /controller_epoch does not hold
	// what it wrote.
	FaultClaimTwin = "claim-twin"
	// FaultDeadlineInDoubt: a write's reply is lost, and the caller's
	// context ends when the reread that would settle it reaches the server
	// (its request dropped): the call stops with a copy in doubt.
	FaultDeadlineInDoubt = "deadline-in-doubt"
	// FaultReloadInDoubt: a delta's reply is lost and its call stops in
	// doubt, as with FaultDeadlineInDoubt; the controller then reloads
	// its State from /migration instead of retrying, finds the delta
	// landed, and goes on with a delta of the same partitions, which its
	// Client must plan without what the doubtful transaction touched.
	FaultReloadInDoubt = "reload-in-doubt"
	// FaultNotificationInDoubt: the reply of a batch that writes change
	// notifications is lost, its copy landed: the resend is refused, and
	// the writer must find the notifications its copy created instead of
	// writing them again. Counted once the batch reports a notification
	// written.
	FaultNotificationInDoubt = "notification-in-doubt"
	// FaultLoser: a controller whose claim must lose arrives: the holder's
	// controller id or another, with a lower KRaft epoch, or another id
	// with an equal one; before a call, while a batch is in doubt, while a
	// rival's claim is in doubt, or between a rival's claim and its first
	// write. Its claim must be refused with ErrFenced, the holder going on.
	// (Rivals with a higher KRaft epoch, FaultRival, share the holder's
	// controller id sameIDShare of the time.)
	FaultLoser = "rival-loses"
	// FaultResume: a controller with the holder's very identity claims,
	// as a restarted controller would: it must resume the standing claim
	// (told the same /controller_epoch version), or, claiming with
	// rollback-safe epochs over a claim Kafka's rule left below the KRaft
	// epoch, claim again and take over.
	FaultResume = "rival-resumes"
	// FaultImitate: while a transaction is in doubt (its request dropped),
	// another party writes what it would have written, in separate
	// writes: the znodes it creates and then its /migration bytes; or the
	// partition states it sets, at the version it would have produced; or
	// its znodes deleted and created again with its bytes (czxid and
	// version start over).
	FaultImitate = "imitate-in-doubt"
	// FaultImitateCreate: while the create of /migration by the run's
	// first call, a GetOrCreate, is in doubt (its request dropped),
	// another party creates /migration with other bytes, then sets the
	// create's own bytes: /migration holds them at version 1, which no
	// create makes. The Writer must read it as another's checkpoint, not
	// report it created. Every run holds it.
	FaultImitateCreate = "imitate-create-in-doubt"
	// FaultIsolateLeader: the ensemble's leader cut from both followers
	// (the links between their quorum and election ports) for a few
	// seconds: the followers elect one of them, the old leader stops
	// serving clients.
	FaultIsolateLeader = "isolate-leader"
	// FaultClientMinority: the follower the writer's session uses cut
	// from the other two, a minority of one still answering reads for a
	// while; a rival claims through the majority, and the writer's own
	// controller, restarted on the same session, claims: it must be
	// refused, not resume from a stale read.
	FaultClientMinority = "client-member-minority"
	// FaultHeal: a partition healed, every member reaching every other.
	FaultHeal = "heal"
	// FaultEpochBoundary: another KRaft controller's claim stands with
	// /controller_epoch exactly one below, equal to or one above the KRaft
	// epoch of a rival claiming with rollback-safe epochs (one below: a
	// standing claim by Kafka's rule one epoch below the KRaft epoch).
	FaultEpochBoundary = "epoch-boundary"
)

// sameIDShare is the share of rivals with a higher KRaft epoch that have
// the holder's controller id.
const sameIDShare = 0.3
