// Package kraftlog reads and writes the files of KRaft's metadata log,
// __cluster_metadata, byte for byte as Kafka 3.9 does: record batches of
// magic 2 with their CRC-32C, the control records of the Raft layer
// (leader changes, snapshot headers and footers, kraft.version and voter
// sets), the ApiMessageAndVersion frame of metadata records, and the
// flexible bodies of every metadata record type Kafka 3.9 defines.
//
// Decoding accepts what Kafka 3.9's readers accept (RecordsIterator,
// MetadataRecordSerde and the generated message readers), with three
// refusals Kafka does not make, each named in its error: a version of a
// record above the highest Kafka 3.9 defines (Kafka's generated readers
// read it as the highest they know), a compressed batch (Kafka 3.9 never
// writes one) and ABORT or COMMIT control records, which Kafka's Raft
// reader refuses too. A decoder never reads past its input and never
// allocates by a length it has not checked against the bytes left.
//
// Encoding writes what Kafka 3.9's writers write: tagged fields in
// ascending tag order, known ones before unknown ones, a tagged field at
// its default omitted, batches of one timestamp with the CRC over
// everything after it.
package kraftlog
