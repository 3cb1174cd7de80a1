// Package kraftmeta reads KRaft's own metadata, the snapshots and log
// segments of __cluster_metadata, and replays it into the
// dualwrite.Image ZooKeeper must hold during a ZooKeeper-to-KRaft
// migration: the image to compare with what ZooKeeper holds (Read, Diff)
// after a stall, before a rollback to ZooKeeper mode, or before
// finalizing.
//
// Replay reads a Kafka log directory, the metadata log's own directory,
// or a single .checkpoint or .log, without the directory's lock: a
// running node's directory can be read. It starts from the latest
// snapshot at or below its target and replays the log after it, as
// Kafka 3.9's MetadataBatchLoader publishes images one batch at a time
// (transactions, aborted ones and ones still open included), and maps
// the image as Kafka's dual-write (KRaftMigrationZkWriter) writes it to
// ZooKeeper. Its Result says which offset and epoch the image stands at
// (what /migration records), the metadata.version, the migration state,
// the cluster id, the records it skipped, what KRaft holds that
// ZooKeeper never mirrors, and, for a replay to an offset, what the log
// holds after it.
//
// Inspect says what a directory holds, file by file, and ElectionOrder
// orders several voters' directories as a Raft election would choose
// among them.
//
// Decoding accepts what Kafka 3.9 accepts, with the refusals the
// README's list of differences names: a record version Kafka 3.9 does
// not define, a compressed batch, a snapshot without its footer. Where
// Kafka 3.9's loader gives a different image when many batches arrive in
// one commit (an aborted transaction's records applied, a deleted
// topic's configs kept, a SCRAM credential lost), the replay gives the
// image Kafka publishes batch by batch.
package kraftmeta
