package kraftlog_test

import (
	"encoding/binary"
	"hash/crc32"

	"github.com/kraftmigration/zkwriter/internal/kraftlog"
	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

// Bytes composed from the schemas, for the cases the fixtures lack.

var topicID = znode.Uuid{MostSignificantBits: 0x0123456789abcdef, LeastSignificantBits: 0x0fedcba987654321}

// uv appends unsigned varints.
func uv(dst []byte, vs ...uint32) []byte {
	for _, v := range vs {
		for v >= 0x80 {
			dst = append(dst, byte(v)|0x80)
			v >>= 7
		}
		dst = append(dst, byte(v))
	}
	return dst
}

func i32(dst []byte, v int32) []byte { return binary.BigEndian.AppendUint32(dst, uint32(v)) }

func uuidBytes(dst []byte, u znode.Uuid) []byte {
	dst = binary.BigEndian.AppendUint64(dst, uint64(u.MostSignificantBits))
	return binary.BigEndian.AppendUint64(dst, uint64(u.LeastSignificantBits))
}

// frame returns a record value: frame version 1, apiKey, version, body.
func frame(apiKey, version uint32, body []byte) []byte {
	return append(uv(nil, 1, apiKey, version), body...)
}

// changeBody is a PartitionChangeRecord body with the given tagged
// section (count included).
func changeBody(tags []byte) []byte {
	b := i32(nil, 0)
	b = uuidBytes(b, topicID)
	return append(b, tags...)
}

// topicBody is a TopicRecord body naming "orders", with the given tagged
// section.
func topicBody(tags []byte) []byte {
	b := uv(nil, uint32(len("orders")+1))
	b = append(b, "orders"...)
	b = uuidBytes(b, topicID)
	return append(b, tags...)
}

// oneBatch returns a file of one data batch holding values.
func oneBatch(values ...[]byte) []byte {
	nb := kraftlog.NewBatch{BaseOffset: 0, Epoch: 1, Timestamp: 1732093200000}
	for _, v := range values {
		nb.Records = append(nb.Records, kraftlog.NewRecord{Value: v})
	}
	return kraftlog.AppendBatch(nil, nb)
}

// rawBatch returns a batch of one record given as its raw bytes (length
// varint included), with attrs and a correct CRC.
func rawBatch(attrs int16, count int32, rawRecords []byte) []byte {
	b := binary.BigEndian.AppendUint64(nil, 0)
	b = i32(b, 0)
	b = i32(b, 1)
	b = append(b, 2)
	b = i32(b, 0)
	b = binary.BigEndian.AppendUint16(b, uint16(attrs))
	b = i32(b, count-1)
	b = binary.BigEndian.AppendUint64(b, 1732093200000)
	b = binary.BigEndian.AppendUint64(b, 1732093200000)
	b = binary.BigEndian.AppendUint64(b, ^uint64(0))
	b = binary.BigEndian.AppendUint16(b, ^uint16(0))
	b = i32(b, -1)
	b = i32(b, count)
	b = append(b, rawRecords...)
	binary.BigEndian.PutUint32(b[8:], uint32(len(b)-12))
	return fixCRC(b)
}

// fixCRC sets the CRC of the batch at the start of b.
func fixCRC(b []byte) []byte {
	n := int(binary.BigEndian.Uint32(b[8:])) + 12
	binary.BigEndian.PutUint32(b[17:], crc32.Checksum(b[21:n], crc32.MakeTable(crc32.Castagnoli)))
	return b
}

// rawRecord returns a record's bytes from its parts after the length:
// attributes, timestamp delta, offset delta, key, value, header count.
func rawRecord(parts ...[]byte) []byte {
	var body []byte
	for _, p := range parts {
		body = append(body, p...)
	}
	return append(zz(nil, int64(len(body))), body...)
}

// zz appends zigzag varints.
func zz(dst []byte, vs ...int64) []byte {
	for _, v := range vs {
		x := uint64(v<<1) ^ uint64(v>>63)
		for x >= 0x80 {
			dst = append(dst, byte(x)|0x80)
			x >>= 7
		}
		dst = append(dst, byte(x))
	}
	return dst
}
