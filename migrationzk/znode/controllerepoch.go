package znode

import "strconv"

// maxControllerEpochLen is the length of the longest encoded controller
// epoch, "-2147483648".
const maxControllerEpochLen = 11

// EncodeControllerEpoch returns the content of /controller_epoch for
// epoch: its ASCII decimal form without a newline, for example "43".
func EncodeControllerEpoch(epoch int32) []byte {
	return AppendControllerEpoch(make([]byte, 0, maxControllerEpochLen), epoch)
}

// AppendControllerEpoch appends the encoding of epoch, as returned by
// EncodeControllerEpoch, to dst and returns the extended slice.
func AppendControllerEpoch(dst []byte, epoch int32) []byte {
	return strconv.AppendInt(dst, int64(epoch), 10)
}

// DecodeControllerEpoch decodes the content of /controller_epoch as Kafka
// 3.9's ControllerEpochZNode.decode reads it, with Integer.parseInt of its
// UTF-8 text: an optional '+' or '-', then decimal digits, leading zeros
// accepted, nothing else. Digits of other scripts, which parseInt also
// takes, are accepted too.
func DecodeControllerEpoch(data []byte) (int32, error) {
	if err := checkData(ControllerEpochPath, data); err != nil {
		return 0, err
	}
	v, isNumber, fits := parseJavaInt(string(data), 32)
	switch {
	case !isNumber:
		return 0, newError(ControllerEpochPath, "", ErrWrongType, "not a decimal integer", data)
	case !fits:
		detail := shorten(string(data)) + " does not fit in int32"
		return 0, newError(ControllerEpochPath, "", ErrOutOfRange, detail, data)
	}
	return int32(v), nil
}
