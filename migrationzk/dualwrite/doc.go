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
// written, and nothing is sent unless a read decides (deviation 13 of the
// list linked below). Content rules apply to every write: a partition has
// a replica list, neither empty nor naming a broker twice, and a
// reassignment's adding and removing replicas are among them; its leader
// is -1 or a replica, its ISR lists replicas, each once; config keys and
// values, principals, hosts, token fields and quota entities are valid
// UTF-8; an ACL entry's principal is Type:name and its operation and
// permission type are not Any; a quota is greater than 0; a token's
// renewers are Users. Name rules (Kafka's topic name rule, a broker id as
// a broker config's name, "kafka-cluster" as the Cluster resource's) apply
// only where a name is written anew: an entity ZooKeeper holds under its
// name already, as legacy data that never passed these rules, is written
// to, and nothing is refused a delete for its name. What KRaft accepts
// passes even where ZooKeeper mode was stricter: an operation the resource
// type has no use for, such as Group and Write, and an empty ACL host are
// written.
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
// Where Kafka 3.9 errs, this package does better, each time for the
// reason given in the one list of every deliberate difference from Kafka
// 3.9, of this package and of the others:
// https://github.com/kraftmigration/zkwriter/blob/main/docs/deviations.md.
// The dual-write's are deviations 6 to 13 there, the full sync's (Sync)
// 14 to 16.
//
// Nothing is made up. A partition without a state znode is a Partition
// without a state (HasState), for which no state is written unless the
// desired image holds one (deviation 14); a partition znode outside its
// topic's assignment is in Topic.Unassigned, deleted only by a desired
// image that lacks it (deviation 15). Diff of an image Read returned with
// itself is empty. A topic whose id changes is a ChangeReplaceTopic of its
// own; CreateTopic refuses to change an id (TopicIDError, deviation 12).
//
// # Errors and what to do
//
// Every call returns the State ZooKeeper holds, on error too: pass it to
// the next call. The errors are package migrationzk's, and a controller
// handles them as the README's quick start (handle) does:
//
//   - migrationzk.ErrFenced: another controller took over. The Writer,
//     and the Client with it, write nothing more: step down.
//   - A *migrationzk.ConflictError: another writer moved /migration.
//     Reload with Writer.GetOrCreate, passing the State of this tenure,
//     then call again.
//   - migrationzk.ErrOutcomeUnknown: the context ended before the
//     outcome was known. Call again with the same State and changes: the
//     replay finds what landed, writes what is missing, and creates no
//     second notification.
//   - Any other error matching migrationzk.ErrConflict (a
//     *migrationzk.OpError): ZooKeeper refused the transaction in every
//     round a call or a Batch may take (eight, besides those that relied
//     on what the Client remembered), because other writers kept changing
//     the znodes it writes between its read and its write. The checkpoint
//     did not move (of a delta larger than one request, the transactions
//     before the refused one may have landed; the next call finds them).
//     Find what else writes those znodes, such as a ZooKeeper-mode
//     controller still running or an operator's tool, then call again
//     with the same State and changes.
//   - migrationzk.ErrInvalidArgument: a change Kafka's controller would
//     refuse, or a Plan's change that Diff did not make (ErrNotPlanned);
//     nothing was sent. A *TopicIDError: CreateTopic of a topic ZooKeeper
//     holds under another id, left as it is; a Diff and Sync replace it.
//
// # Adding a domain
//
// Each domain (topics, partitions, configs, client quotas with SCRAM
// credentials, ACLs, delegation tokens, the producer-id block) lives in a
// file of its own; tokens.go is a model. A new domain needs:
//
//   - Its file, named after it. Its Batch methods, one a verb, each
//     stating the contract of its change; its Client methods, each one
//     line that applies its Batch method (c.apply); the rules its input
//     must pass, built on checkName, checkUTF8 and view.admitName
//     (validate.go); its Read step, an imageReader method; its Diff step,
//     a differ method; and its values for Change.Fields, a []fieldValue
//     (fieldchange.go).
//   - An Image field (image.go), made by NewImage, whose znodes
//     Image.Holds knows (imageholds.go), and Image.Redacted too
//     (secrets.go) if it holds secrets.
//   - Its JSON in the two image JSON files: a key and an element type
//     in imagejson.go, written by Image.WriteJSON (writeList), and a case
//     of imageDecoder.member in readimagejson.go, read by ReadImageJSON
//     (readList and an add method). A domain is added within
//     ImageSchemaVersion: a reader that does not know its key skips it.
//   - A ChangeKind per verb and a Diff line that calls its differ method
//     (diff.go).
//   - A Read step: its imageReader method among Client.Read's steps
//     (read.go).
//   - Its test file, named after its file: its tests, and its rows
//     (domainRows) of the tables every domain runs, listed by domains in
//     helpers_test.go; its calls in the fault table (faults_test.go); some
//     of it in fullImage (helpers_test.go) and richImage
//     (imagejson_test.go).
//   - Where it differs from Kafka 3.9, an entry in
//     https://github.com/kraftmigration/zkwriter/blob/main/docs/deviations.md.
package dualwrite
