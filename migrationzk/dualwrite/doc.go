// Package dualwrite mirrors KRaft metadata changes into ZooKeeper during a
// ZooKeeper-to-KRaft migration, in the vocabulary of Kafka's own migration
// clients: topics and their partitions, topic and broker configs, client
// quotas and SCRAM credentials, ACLs, delegation tokens and the producer-id
// block, each written byte for byte as Kafka 3.9 writes it (see package
// znode), under the paths a ZooKeeper-mode broker reads.
//
// Every change goes through a migrationzk.Writer in fenced transactions
// that carry the checkpoint: a Client's method is one transaction (unless
// the size limit splits it), and a Batch turns a whole KRaft delta into
// one. Changes are described by the state ZooKeeper must end in: each call
// reads, after a sync, what its change touches, and writes only what
// differs, so that a change applied twice is applied once, and a delta
// replayed after a crash finishes what the first attempt began. A
// transaction lands whole or not at all; when another writer changes a
// znode between the read and the write, the call reads again and tries
// anew.
//
// Partition states are stamped with the State's KRaftControllerEpoch as
// their controller_epoch, and the checkpoint names its KRaftControllerID:
// the identity of the leadership claim, which a Writer that claimed
// refuses to see replaced (migrationzk.IdentityError).
//
// Client.Sync is Kafka's full sync (handleSnapshot): it reads the whole
// tree (Client.Read, into an Image), plans what differs from the desired
// Image (Diff, a Plan that compares meaning, not bytes), and applies the
// plan as one Batch, its checkpoint written by the last transaction only.
// A Sync after a Sync writes nothing; a Sync stopped partway is finished
// by the next; znodes that do not decode are reported and left alone.
//
// Where Kafka 3.9 errs, this package does better. Change notifications
// (config_change_, acl_changes_) are created inside the fenced transaction
// of their change, so they exist exactly once and only if the change
// landed; a partition's state is deleted before the partition; partitions
// missing in ZooKeeper are created rather than set; deletes of what is gone
// and creates of what exists are no-ops, and the State returned always
// carries the version ZooKeeper holds; a config entity's znode gets the ACL
// of its own path; a full sync writes the producer-id block only when it
// differs, and lands atomically with the checkpoint last instead of in
// independent requests that each move it.
package dualwrite
