// Package znode encodes and decodes the znodes Kafka 3.9 reads and writes
// during a ZooKeeper-to-KRaft migration.
//
// Encoders produce bytes identical to Kafka's own encoder, key order
// included, so that a write by this package cannot be told apart from one
// by Kafka. The one exception is the order of the entries of an ACL znode,
// which Kafka takes from identity hash codes of its JVM and which ACLs
// therefore writes sorted.
//
// Decoders read what Kafka 3.9's own decoder for the znode reads, into the
// same values: at the JSON level what Kafka's Jackson reads (UTF-8, UTF-16
// or UTF-32 text, one JSON value and whatever follows it unread;
// duplicate keys, the last one winning; no comments, trailing commas,
// leading zeros or NaN), a version only where Kafka checks it, optional
// fields where Kafka makes them optional, and numbers and names as Kafka
// converts them (Integer.parseInt for partition ids and /controller_epoch,
// case-insensitive ACL operations). They stay stricter than Kafka in two
// ways. What Kafka would silently read as an empty config, topic or state,
// such as data that is not JSON, is refused rather than read as empty.
// Strings that no UTF-8 text holds (unpaired surrogates, bytes that are not
// UTF-8 though Jackson decodes them) and values Kafka's controller cannot
// use (negative partition ids, the zero topic id, ACL principals without a
// type, unknown ACL operations, empty producer id blocks) are refused.
// Every decoder reports failures as a *DecodeError.
//
// Every deliberate difference from Kafka 3.9, of this package and the
// others, is listed in one place, numbered: docs/deviations.md in the
// repository, "Where zkwriter differs from Kafka 3.9, on purpose".
package znode

import "strconv"

// Paths of the znodes involved in a migration.
const (
	MigrationPath       = "/migration"
	ControllerEpochPath = "/controller_epoch"
	ControllerPath      = "/controller"
	TopicsPath          = "/brokers/topics"
)

// partitionStatePattern is the path reported by DecodePartitionState,
// which does not know the topic and partition.
const partitionStatePattern = TopicsPath + "/<topic>/partitions/<partition>/state"

// PartitionStatePath returns the path of the state znode of a partition,
// "/brokers/topics/<topic>/partitions/<partition>/state".
func PartitionStatePath(topic string, partition int32) string {
	return partitionPath(topic, partition, "/state")
}

// partitionPath returns the path of a partition's znode followed by
// suffix, built in one allocation: planning builds one for each partition
// of a topic.
func partitionPath(topic string, partition int32, suffix string) string {
	var buf [96]byte
	b := append(buf[:0], TopicsPath...)
	b = append(b, '/')
	b = append(b, topic...)
	b = append(b, "/partitions/"...)
	b = strconv.AppendInt(b, int64(partition), 10)
	return string(append(b, suffix...))
}
