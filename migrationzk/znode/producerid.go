package znode

import (
	"math"
	"strconv"
)

// ProducerIDBlockPath is the path of the znode holding the latest block of
// producer ids handed out.
const ProducerIDBlockPath = "/latest_producer_id_block"

// ProducerIDBlockSize is the number of ids in a block Kafka hands out.
const ProducerIDBlockSize = 1000

// ProducerIDBlock is the content of /latest_producer_id_block: the latest
// block of producer ids handed out, from BlockStart to BlockEnd
// inclusive. The next block starts after it.
type ProducerIDBlock struct {
	// BrokerID is the broker the block went to; the KRaft controller
	// writes -1.
	BrokerID   int32
	BlockStart int64
	BlockEnd   int64
}

// maxProducerIDBlockLen bounds the length of an encoded ProducerIDBlock.
const maxProducerIDBlockLen = len(`{"version":1,"broker":,"block_start":"","block_end":""}`) + 11 + 2*20

// MigrationProducerIDBlock returns the block a KRaft controller in
// dual-write writes for nextProducerID, the first id KRaft has not handed
// out: [nextProducerID, nextProducerID+999] for broker -1. Read back, that
// block says the next id is nextProducerID+1000, not nextProducerID.
func MigrationProducerIDBlock(nextProducerID int64) ProducerIDBlock {
	return ProducerIDBlock{BrokerID: -1, BlockStart: nextProducerID, BlockEnd: nextProducerID + ProducerIDBlockSize - 1}
}

// NextBlockFirstID returns the first id of the block after b, BlockEnd+1:
// the next producer id to hand out.
func (b ProducerIDBlock) NextBlockFirstID() int64 { return b.BlockEnd + 1 }

// Encode returns the JSON encoding of b as Kafka writes it, for example
//
//	{"version":1,"broker":-1,"block_start":"6000","block_end":"6999"}
//
// The bounds are JSON strings.
func (b ProducerIDBlock) Encode() []byte {
	return b.AppendEncode(make([]byte, 0, maxProducerIDBlockLen))
}

// AppendEncode appends the encoding of b, as returned by Encode, to dst
// and returns the extended slice.
func (b ProducerIDBlock) AppendEncode(dst []byte) []byte {
	dst = append(dst, `{"version":1,"broker":`...)
	dst = strconv.AppendInt(dst, int64(b.BrokerID), 10)
	dst = append(dst, `,"block_start":"`...)
	dst = strconv.AppendInt(dst, b.BlockStart, 10)
	dst = append(dst, `","block_end":"`...)
	dst = strconv.AppendInt(dst, b.BlockEnd, 10)
	return append(dst, `"}`...)
}

// DecodeProducerIDBlock decodes the content of /latest_producer_id_block
// as Kafka 3.9's ProducerIdBlockZNode.parseProducerIdBlockData reads it:
// the version is never read, broker is a required int32, and block_start
// and block_end are required strings read as Long.parseLong reads them
// (leading zeros and a '+' accepted). Beyond Kafka, which takes any block,
// the block must not be empty or run backwards, must start at 0 or later,
// and hold at most 2^31-1 ids, as Kafka requires of its size.
func DecodeProducerIDBlock(data []byte) (ProducerIDBlock, error) {
	o := parseObject(ProducerIDBlockPath, data)
	b := ProducerIDBlock{
		BrokerID:   o.int32("broker"),
		BlockStart: o.decimalString("block_start"),
		BlockEnd:   o.decimalString("block_end"),
	}
	start, end := b.BlockStart, b.BlockEnd
	switch {
	case o.failed():
	case start < 0:
		o.fail("block_start", ErrOutOfRange, strconv.FormatInt(start, 10)+" is negative")
	case end < start || end-start >= math.MaxInt32:
		detail := "block " + strconv.FormatInt(start, 10) + " to " + strconv.FormatInt(end, 10) + " does not hold 1 to 2147483647 ids"
		o.fail("block_end", ErrOutOfRange, detail)
	}
	if o.failed() {
		return ProducerIDBlock{}, o.err()
	}
	return b, nil
}

// decimalString returns a required field holding a string of a decimal
// int64, as Long.parseLong reads it.
func (o *object) decimalString(field string) int64 {
	s := o.str(field)
	if o.failed() {
		return 0
	}
	v, isNumber, fits := parseJavaInt(s, 64)
	switch {
	case !isNumber:
		o.fail(field, ErrWrongType, "got "+strconv.Quote(shorten(s))+", want decimal integer")
	case !fits:
		o.fail(field, ErrOutOfRange, shorten(s)+" does not fit in int64")
	}
	return v
}
