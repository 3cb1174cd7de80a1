package znode

import (
	"encoding/json"
	"strconv"
)

// Controller is the content of /controller: which broker or KRaft
// controller is the active controller.
type Controller struct {
	// Version is the format version, 1 or 2; Kafka 3.9 writes 2.
	Version int32
	// BrokerID is the id of the controller.
	BrokerID int32
	// Timestamp is when the controller was elected, in milliseconds since
	// the Unix epoch. It is written as a JSON string.
	Timestamp int64
	// KRaftControllerEpoch is the epoch of a KRaft controller, -1 for a
	// ZooKeeper-mode broker or when the key is absent.
	KRaftControllerEpoch int32
}

// maxControllerLen bounds the length of an encoded Controller.
const maxControllerLen = len(`{"version":,"brokerid":,"timestamp":"","kraftControllerEpoch":}`) + 3*11 + 20

// Encode returns the JSON encoding of c as Kafka writes it, for example
//
//	{"version":2,"brokerid":3000,"timestamp":"1729500000000","kraftControllerEpoch":5}
//
// A version 1 controller with KRaftControllerEpoch -1 is written in the
// legacy layout without kraftControllerEpoch,
//
//	{"version":1,"brokerid":1,"timestamp":"1729500000000"}
//
// and any other combination in the four-key layout above. Version is
// written as is, even if it is neither 1 nor 2.
func (c Controller) Encode() []byte {
	return c.AppendEncode(make([]byte, 0, maxControllerLen))
}

// AppendEncode appends the encoding of c, as returned by Encode, to dst
// and returns the extended slice.
func (c Controller) AppendEncode(dst []byte) []byte {
	dst = append(dst, `{"version":`...)
	dst = strconv.AppendInt(dst, int64(c.Version), 10)
	dst = append(dst, `,"brokerid":`...)
	dst = strconv.AppendInt(dst, int64(c.BrokerID), 10)
	dst = append(dst, `,"timestamp":"`...)
	dst = strconv.AppendInt(dst, c.Timestamp, 10)
	dst = append(dst, '"')
	if c.Version != 1 || c.KRaftControllerEpoch != -1 {
		dst = append(dst, `,"kraftControllerEpoch":`...)
		dst = strconv.AppendInt(dst, int64(c.KRaftControllerEpoch), 10)
	}
	return append(dst, '}')
}

// IsKRaft reports whether c names a KRaft controller rather than a
// ZooKeeper-mode broker.
func (c Controller) IsKRaft() bool { return c.KRaftControllerEpoch >= 0 }

// DecodeController decodes the content of /controller as Kafka 3.9's
// ControllerZNode.decodeController reads it: brokerid is a required int32
// and kraftControllerEpoch an optional one (-1 when absent). Kafka reads
// nothing else; so neither version nor timestamp can make the data
// undecodable. Version is the version when it is an int32, 0 otherwise;
// Timestamp is the timestamp when it is an int64, written as a JSON number
// or as a string of a decimal integer, 0 otherwise.
func DecodeController(data []byte) (Controller, error) {
	o := parseObject(ControllerPath, data)
	c := Controller{
		Version:              int32(o.informative("version", 32, false)),
		BrokerID:             o.int32("brokerid"),
		Timestamp:            o.informative("timestamp", 64, true),
		KRaftControllerEpoch: o.optInt32("kraftControllerEpoch", -1),
	}
	if o.failed() {
		return Controller{}, o.err()
	}
	return c, nil
}

// informative returns a field Kafka does not read as an integer of
// bitSize bits: a JSON integer or, when inString is set, a string of a
// decimal integer; 0 when it is absent or anything else. It never fails.
func (o *object) informative(field string, bitSize int, inString bool) int64 {
	raw := o.lookup(field)
	var s string
	switch kind(raw) {
	case "number":
		s = string(raw)
	case "string":
		if !inString || json.Unmarshal(raw, &s) != nil {
			return 0
		}
	}
	v, isNumber, fits := parseJavaInt(s, bitSize)
	if !isNumber || !fits {
		return 0
	}
	return v
}
