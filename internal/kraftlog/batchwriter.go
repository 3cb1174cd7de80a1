package kraftlog

import (
	"encoding/binary"
	"hash/crc32"
)

// NewBatch is a batch to write, as Kafka's BatchAccumulator and
// MemoryRecordsBuilder write a metadata batch: no producer, no
// compression, every record at the batch's one timestamp.
type NewBatch struct {
	BaseOffset int64
	// Epoch is the batch's partition leader epoch.
	Epoch     int32
	Timestamp int64
	// Control marks a batch of control records, whose records have keys.
	Control bool
	Records []NewRecord
}

// NewRecord is a record to write: a nil Key is null.
type NewRecord struct {
	Key, Value []byte
}

// AppendBatch appends b to dst, its CRC-32C computed.
func AppendBatch(dst []byte, b NewBatch) []byte {
	start := len(dst)
	var attrs int16
	if b.Control {
		attrs |= controlFlag
	}
	dst = binary.BigEndian.AppendUint64(dst, uint64(b.BaseOffset))
	dst = binary.BigEndian.AppendUint32(dst, 0) // length, set below
	dst = binary.BigEndian.AppendUint32(dst, uint32(b.Epoch))
	dst = append(dst, 2)                        // magic
	dst = binary.BigEndian.AppendUint32(dst, 0) // CRC, set below
	dst = binary.BigEndian.AppendUint16(dst, uint16(attrs))
	dst = binary.BigEndian.AppendUint32(dst, uint32(len(b.Records)-1))
	dst = binary.BigEndian.AppendUint64(dst, uint64(b.Timestamp))
	dst = binary.BigEndian.AppendUint64(dst, uint64(b.Timestamp))
	dst = binary.BigEndian.AppendUint64(dst, ^uint64(0)) // producer id -1
	dst = binary.BigEndian.AppendUint16(dst, ^uint16(0)) // producer epoch -1
	dst = binary.BigEndian.AppendUint32(dst, ^uint32(0)) // base sequence -1
	dst = binary.BigEndian.AppendUint32(dst, uint32(len(b.Records)))
	for i, r := range b.Records {
		dst = appendRecord(dst, int32(i), r)
	}
	batch := dst[start:]
	binary.BigEndian.PutUint32(batch[8:], uint32(len(batch)-logOverhead))
	binary.BigEndian.PutUint32(batch[crcPos:], crc32.Checksum(batch[attributesPos:], castagnoli))
	return dst
}

// appendRecord appends one record of a batch at offset delta i.
func appendRecord(dst []byte, i int32, r NewRecord) []byte {
	size := 1 + 1 + varintLen(i) // attributes, timestamp delta 0, offset delta
	size += sizedLen(r.Key) + sizedLen(r.Value) + 1
	dst = appendVarint(dst, int32(size))
	dst = append(dst, 0, 0) // attributes, timestamp delta
	dst = appendVarint(dst, i)
	dst = appendSized(dst, r.Key)
	dst = appendSized(dst, r.Value)
	return append(dst, 0) // no headers
}

func sizedLen(b []byte) int {
	if b == nil {
		return varintLen(-1)
	}
	return varintLen(int32(len(b))) + len(b)
}

func appendSized(dst, b []byte) []byte {
	if b == nil {
		return appendVarint(dst, -1)
	}
	return append(appendVarint(dst, int32(len(b))), b...)
}

// MetadataRecord returns the record holding m at version.
func MetadataRecord(m Message, version int16) (NewRecord, error) {
	v, err := AppendValue(nil, m, version)
	return NewRecord{Value: v}, err
}

// ControlRecord returns the control record holding m.
func ControlRecord(m ControlMessage) NewRecord {
	return NewRecord{Key: AppendControlKey(nil, m.ControlType()), Value: AppendControlValue(nil, m)}
}

// FixCRC sets the CRC-32C of the batch at the start of b from its bytes
// and returns b: for tests that compose batches.
func FixCRC(b []byte) []byte {
	n := int(binary.BigEndian.Uint32(b[8:])) + logOverhead
	binary.BigEndian.PutUint32(b[crcPos:], crc32.Checksum(b[attributesPos:n], castagnoli))
	return b
}

// AppendSnapshot appends a snapshot as Kafka's RecordsSnapshotWriter
// writes one: a control batch holding a SnapshotHeader at offset 0, the
// data batches given (their records' offsets following from 1), and a
// control batch holding a SnapshotFooter; every batch at the snapshot's
// epoch and timestamp. The header holds lastContained, the timestamp of
// the image's last batch: a snapshot of the log writes it as timestamp,
// kafka-storage's bootstrap.checkpoint writes 0.
func AppendSnapshot(dst []byte, epoch int32, timestamp, lastContained int64, batches [][]NewRecord) []byte {
	header := ControlRecord(&SnapshotHeaderRecord{LastContainedLogTimestamp: lastContained})
	dst = AppendBatch(dst, NewBatch{Epoch: epoch, Timestamp: timestamp, Control: true, Records: []NewRecord{header}})
	offset := int64(1)
	for _, recs := range batches {
		dst = AppendBatch(dst, NewBatch{BaseOffset: offset, Epoch: epoch, Timestamp: timestamp, Records: recs})
		offset += int64(len(recs))
	}
	footer := ControlRecord(&SnapshotFooterRecord{})
	return AppendBatch(dst, NewBatch{BaseOffset: offset, Epoch: epoch, Timestamp: timestamp, Control: true, Records: []NewRecord{footer}})
}
