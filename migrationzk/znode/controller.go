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

// DecodeController decodes the content of /controller. The version must
// be 1 or 2 and brokerid is required. The timestamp is optional (0 when
// absent) but, when present, must be a string holding a decimal integer.
// kraftControllerEpoch is optional (-1 when absent).
func DecodeController(data []byte) (Controller, error) {
	o, err := parseObject(ControllerPath, data)
	if err != nil {
		return Controller{}, err
	}
	version, err := o.version(1, 2)
	if err != nil {
		return Controller{}, err
	}
	id, err := o.int("brokerid", 32)
	if err != nil {
		return Controller{}, err
	}
	ts, err := o.timestamp()
	if err != nil {
		return Controller{}, err
	}
	epoch, err := o.optInt("kraftControllerEpoch", 32, -1)
	if err != nil {
		return Controller{}, err
	}
	return Controller{
		Version:              version,
		BrokerID:             int32(id),
		Timestamp:            ts,
		KRaftControllerEpoch: int32(epoch),
	}, nil
}

// timestamp returns the optional timestamp field, a string holding a
// decimal int64.
func (o *object) timestamp() (int64, error) {
	const field = "timestamp"
	if _, ok := o.members[field]; !ok {
		return 0, nil
	}
	raw, err := o.get(field)
	if err != nil {
		return 0, err
	}
	if k := kind(raw); k != "string" {
		return 0, o.fail(field, ErrWrongType, "got "+k+", want string")
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return 0, o.fail(field, ErrInvalidJSON, err.Error())
	}
	if !isDecimal(s) {
		return 0, o.fail(field, ErrWrongType, "got "+strconv.Quote(shorten(s))+", want decimal integer")
	}
	return o.parseDecimal(field, s, 64)
}
