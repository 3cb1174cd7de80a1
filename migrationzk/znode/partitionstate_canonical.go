package znode

import "bytes"

// decodeCanonicalPartitionState reads data written exactly as Encode
// writes it, the form Kafka writes and nearly every state znode holds. It
// returns the state and true only when Encode of that state gives data
// back byte for byte; since DecodePartitionState reads Encode's bytes
// back to the state they encode, it then agrees with the general decoder.
// Anything else, valid or not, returns false for the general decoder to
// judge.
func decodeCanonicalPartitionState(data []byte) (PartitionState, bool) {
	c := canonicalReader{data: data}
	var p PartitionState
	c.expect(`{"controller_epoch":`)
	p.ControllerEpoch = c.int32()
	c.expect(`,"leader":`)
	p.Leader = c.int32()
	c.expect(`,"version":1`)
	if c.has(`,"leader_recovery_state":1`) {
		p.LeaderRecoveryState = 1
	}
	c.expect(`,"leader_epoch":`)
	p.LeaderEpoch = c.int32()
	c.expect(`,"isr":[`)
	p.ISR = make([]int32, 0, bytes.Count(data[min(c.at, len(data)):], []byte{','})+1)
	for !c.failed && !c.has("]}") {
		if len(p.ISR) > 0 {
			c.expect(",")
		}
		p.ISR = append(p.ISR, c.int32())
	}
	if c.failed || c.at != len(data) {
		return PartitionState{}, false
	}
	var room [160]byte
	if !bytes.Equal(p.AppendEncode(room[:0]), data) {
		return PartitionState{}, false
	}
	return p, true
}

// canonicalReader reads the fixed text and the numbers of an encoding;
// once something does not match, failed is set and it reads nothing more.
type canonicalReader struct {
	data   []byte
	at     int
	failed bool
}

// has consumes s if the data goes on with it.
func (c *canonicalReader) has(s string) bool {
	if c.failed || !bytes.HasPrefix(c.data[c.at:], []byte(s)) {
		return false
	}
	c.at += len(s)
	return true
}

// expect consumes s, or fails.
func (c *canonicalReader) expect(s string) {
	if !c.has(s) {
		c.failed = true
	}
}

// int32 reads an optional minus sign and up to ten digits; the check
// against Encode's bytes rejects leading zeros, "-0" and values outside
// int32 that this lets through.
func (c *canonicalReader) int32() int32 {
	if c.failed {
		return 0
	}
	negative := c.has("-")
	var v int64
	digits := 0
	for c.at < len(c.data) && c.data[c.at] >= '0' && c.data[c.at] <= '9' && digits < 10 {
		v = v*10 + int64(c.data[c.at]-'0')
		c.at++
		digits++
	}
	if negative {
		v = -v
	}
	if digits == 0 || v != int64(int32(v)) {
		c.failed = true
		return 0
	}
	return int32(v)
}
