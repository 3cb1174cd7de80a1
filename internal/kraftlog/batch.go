package kraftlog

import (
	"encoding/binary"
	"hash/crc32"
)

// Sizes and positions of a record batch v2 (DefaultRecordBatch).
const (
	// BatchHeaderSize is the size of a batch's header, RECORD_BATCH_OVERHEAD.
	BatchHeaderSize = 61
	// logOverhead is the base offset and length before a batch's length
	// counts: a batch's size is its Length + 12.
	logOverhead = 12
	// headerUpToMagic is how much of a batch's start Kafka needs before
	// it reads a batch at all.
	headerUpToMagic = 17
	crcPos          = 17
	attributesPos   = 21
)

// Attribute bits of a batch.
const (
	compressionMask   = 0x07
	transactionalFlag = 0x10
	controlFlag       = 0x20
	timestampTypeFlag = 0x08
	deleteHorizonFlag = 0x40
)

// castagnoli is the CRC-32C table, hardware-accelerated where the CPU can.
var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// BatchHeader is the 61-byte header of a record batch of magic 2.
type BatchHeader struct {
	BaseOffset int64
	// Length counts the bytes after it: the batch is Length+12 bytes.
	Length               int32
	PartitionLeaderEpoch int32
	Magic                int8
	CRC                  uint32
	Attributes           int16
	LastOffsetDelta      int32
	BaseTimestamp        int64
	MaxTimestamp         int64
	ProducerID           int64
	ProducerEpoch        int16
	BaseSequence         int32
	RecordCount          int32
}

// Control reports whether the batch holds control records.
func (h BatchHeader) Control() bool { return h.Attributes&controlFlag != 0 }

// Compression returns the codec id of the batch: 0 none, 1 gzip, 2
// snappy, 3 lz4, 4 zstd.
func (h BatchHeader) Compression() int { return int(h.Attributes & compressionMask) }

// Size is the size of the whole batch in bytes.
func (h BatchHeader) Size() int64 { return int64(h.Length) + logOverhead }

// LastOffset is the offset of the batch's last record as Kafka's Raft
// layer counts it: base offset + record count - 1.
func (h BatchHeader) LastOffset() int64 { return h.BaseOffset + int64(h.RecordCount) - 1 }

// parseHeader reads the header at the start of b, which holds at least
// BatchHeaderSize bytes.
func parseHeader(b []byte) BatchHeader {
	return BatchHeader{
		BaseOffset:           int64(binary.BigEndian.Uint64(b[0:])),
		Length:               int32(binary.BigEndian.Uint32(b[8:])),
		PartitionLeaderEpoch: int32(binary.BigEndian.Uint32(b[12:])),
		Magic:                int8(b[16]),
		CRC:                  binary.BigEndian.Uint32(b[17:]),
		Attributes:           int16(binary.BigEndian.Uint16(b[21:])),
		LastOffsetDelta:      int32(binary.BigEndian.Uint32(b[23:])),
		BaseTimestamp:        int64(binary.BigEndian.Uint64(b[27:])),
		MaxTimestamp:         int64(binary.BigEndian.Uint64(b[35:])),
		ProducerID:           int64(binary.BigEndian.Uint64(b[43:])),
		ProducerEpoch:        int16(binary.BigEndian.Uint16(b[51:])),
		BaseSequence:         int32(binary.BigEndian.Uint32(b[53:])),
		RecordCount:          int32(binary.BigEndian.Uint32(b[57:])),
	}
}

// compressionNames names the codecs by id.
var compressionNames = [8]string{"none", "gzip", "snappy", "lz4", "zstd", "codec 5", "codec 6", "codec 7"}

// Batch is one record batch: its header, where it starts, and its bytes.
type Batch struct {
	BatchHeader
	// Pos is the byte position of the batch in its file.
	Pos int64
	// Bytes are the batch's bytes, header included. They belong to the
	// Scanner and are valid until its next call to Next.
	Bytes []byte
}

// checkBatch checks a whole batch as Kafka does before it reads its
// records: magic 2, a size of at least the header, the CRC, no
// compression, at least one record.
func checkBatch(b []byte) (BatchHeader, error) {
	if len(b) < BatchHeaderSize {
		return BatchHeader{}, errorf(ErrCorrupt, "batch of %d bytes is smaller than its %d-byte header", len(b), BatchHeaderSize)
	}
	h := parseHeader(b)
	if h.Magic != 2 {
		return h, errorf(ErrCorrupt, "batch of magic %d: the metadata log holds only magic 2", h.Magic)
	}
	if crc := crc32.Checksum(b[attributesPos:], castagnoli); crc != h.CRC {
		return h, errorf(ErrCRC, "stored CRC-32C %d, computed %d", h.CRC, crc)
	}
	switch {
	case h.Compression() != 0:
		return h, errorf(ErrCompressed, "batch compressed with %s: Kafka 3.9 never compresses metadata batches, and they are not read here", compressionNames[h.Compression()])
	case h.RecordCount <= 0:
		return h, errorf(ErrCorrupt, "batch holds %d records: a batch holds at least one", h.RecordCount)
	}
	return h, nil
}
