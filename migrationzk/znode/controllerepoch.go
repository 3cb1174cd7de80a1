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

// DecodeControllerEpoch decodes the content of /controller_epoch: ASCII
// decimal digits with an optional leading minus sign, nothing else.
// Leading zeros are accepted.
func DecodeControllerEpoch(data []byte) (int32, error) {
	if err := checkData(ControllerEpochPath, data); err != nil {
		return 0, err
	}
	if !isDecimal(data) {
		return 0, newError(ControllerEpochPath, "", ErrWrongType, "not a decimal integer", data)
	}
	v, err := strconv.ParseInt(string(data), 10, 32)
	if err != nil {
		detail := shorten(string(data)) + " does not fit in int32"
		return 0, newError(ControllerEpochPath, "", ErrOutOfRange, detail, data)
	}
	return int32(v), nil
}
