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

// producerIDBlockVersion is the only known version of the producer id
// block znode.
const producerIDBlockVersion = 1

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

// DecodeProducerIDBlock decodes the content of /latest_producer_id_block.
// The version must be 1 and all four keys are required. block_start and
// block_end must be strings holding decimal int64 (leading zeros are
// accepted). The block must not be empty or run backwards, start at 0 or
// later, and hold at most 2^31-1 ids, as Kafka requires of its size.
func DecodeProducerIDBlock(data []byte) (ProducerIDBlock, error) {
	o, err := parseObject(ProducerIDBlockPath, data)
	if err != nil {
		return ProducerIDBlock{}, err
	}
	if _, err := o.version(producerIDBlockVersion); err != nil {
		return ProducerIDBlock{}, err
	}
	broker, err := o.int("broker", 32)
	if err != nil {
		return ProducerIDBlock{}, err
	}
	start, err := o.decimalString("block_start")
	if err != nil {
		return ProducerIDBlock{}, err
	}
	end, err := o.decimalString("block_end")
	if err != nil {
		return ProducerIDBlock{}, err
	}
	if start < 0 {
		return ProducerIDBlock{}, o.fail("block_start", ErrOutOfRange, strconv.FormatInt(start, 10)+" is negative")
	}
	if end < start || end-start >= math.MaxInt32 {
		detail := "block " + strconv.FormatInt(start, 10) + " to " + strconv.FormatInt(end, 10) + " does not hold 1 to 2147483647 ids"
		return ProducerIDBlock{}, o.fail("block_end", ErrOutOfRange, detail)
	}
	return ProducerIDBlock{BrokerID: int32(broker), BlockStart: start, BlockEnd: end}, nil
}

// decimalString returns a required field holding a string of a decimal
// int64.
func (o *object) decimalString(field string) (int64, error) {
	s, err := o.str(field)
	if err != nil {
		return 0, err
	}
	if !isDecimal(s) {
		return 0, o.fail(field, ErrWrongType, "got "+strconv.Quote(shorten(s))+", want decimal integer")
	}
	return o.parseDecimal(field, s, 64)
}
