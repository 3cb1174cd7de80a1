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
// plans from what its Client remembers of the znodes it touches (what the
// Client read and wrote during its Writer's tenure: versions, existence,
// listings, a digest of each partition state) and reads the rest, after
// one sync, in one wave; it writes only what differs, each op conditioned
// on the version it planned from, so that a change applied twice is
// applied once, and a delta replayed after a crash finishes what the first
// attempt began. A delta whose znodes are all remembered sends its
// transaction and nothing else; a change the Client remembers as held
// already is confirmed by a read, never left out on memory alone. A
// transaction lands whole or not at all; when ZooKeeper refuses it because
// a znode is not as planned (another writer changed it), the call forgets
// what the transaction touched, reads it again and tries anew. What the
// Client remembers is bounded (WithRememberedPartitions) and dropped on
// request (Client.Forget); its one blind spot, shared with Kafka's cached
// zkVersions, is a znode another client deletes and recreates back to the
// remembered version (see Client).
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
// Each Change of a Plan carries the values it alters, old and new
// (Change.Fields), in its text and its JSON; password configs and SCRAM
// credentials only say that they changed.
//
// A change that Kafka's KRaft controller would refuse, or that
// ZooKeeper-mode brokers could not read back, fails with an error that
// wraps migrationzk.ErrInvalidArgument and names the field at fault and
// its value (never a config value, which may be a password); nothing is
// written, and nothing is sent unless a read decides. Content rules apply
// to every write: a partition has a replica list, neither empty nor
// naming a broker twice, and a reassignment's adding and removing
// replicas are among them; its leader is -1 or a replica, its ISR lists
// replicas, each once; config keys and values, principals, hosts, token
// fields and quota entities are valid UTF-8; an ACL entry's principal is
// Type:name and its operation and permission type are not Any; a quota is
// greater than 0; a token's renewers are Users. Name rules (Kafka's topic
// name rule, a broker id as a broker config's name, "kafka-cluster" as the
// Cluster resource's) apply only where a name is written anew: an entity
// ZooKeeper holds under its name already, as legacy data that never passed
// these rules, is written to, and nothing is refused a delete for its name.
// What KRaft accepts passes even where ZooKeeper mode was stricter: an
// operation the resource type has no use for, such as Group and Write, and
// an empty ACL host are written.
//
// Password configs are held in plain text in an Image, as KRaft holds them.
// A Client built WithPasswordEncoder decodes them when it reads and encodes
// them, as Kafka does, when it writes; without one they are read and
// written as they are, as Kafka without password.encoder.secret does. See
// package passwordencoder. An Image records which (Image.Secrets), and
// Sync refuses one its Client would store wrongly. Image.Redacted makes a
// copy to show, its password values and SCRAM credentials gone; what it
// redacted is never written back: every write refuses a password config
// holding RedactedValue and a SCRAM credential without its salt or keys,
// whatever image it came from, with a *SecretError, and writes nothing.
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
//
// Nothing is made up. A partition without a state znode is a Partition
// without a state (HasState), for which no state is written unless the
// desired image holds one (Kafka's migration read fills it with leader
// replicas[0] and ISR = replicas); a partition znode outside its topic's
// assignment is in Topic.Unassigned, deleted only by a desired image that
// lacks it. Diff of an image Read returned with itself is empty. A topic
// whose id changes is a ChangeReplaceTopic of its own; CreateTopic
// refuses to change an id (TopicIDError), where Kafka's createTopic
// silently leaves the topic as it is.
//
// Every deliberate difference from Kafka 3.9, of this package and the
// others, is listed in one place: the README's section "Where zkwriter
// differs from Kafka 3.9, on purpose".
package dualwrite
