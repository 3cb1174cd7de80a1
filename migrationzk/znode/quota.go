package znode

import (
	"fmt"
	"math"
	"strconv"

	"github.com/kraftmigration/zkwriter/internal/jvm"
)

// The client quota keys of a user, client or IP config znode.
const (
	// Bytes per second, LONG.
	QuotaProducerByteRate = "producer_byte_rate"
	QuotaConsumerByteRate = "consumer_byte_rate"
	// Percentage of request handler and network thread time, DOUBLE.
	QuotaRequestPercentage = "request_percentage"
	// Partition mutations per second, DOUBLE.
	QuotaControllerMutationRate = "controller_mutation_rate"
	// Connections per second from an IP, INT.
	QuotaConnectionCreationRate = "connection_creation_rate"
)

// quotaKind is the Java type Kafka declares a quota key with.
type quotaKind int

const (
	quotaUnknown quotaKind = iota
	quotaDouble
	quotaLong
	quotaInt
)

// quotaKindOf returns the type of a quota key.
func quotaKindOf(key string) quotaKind {
	switch key {
	case QuotaRequestPercentage, QuotaControllerMutationRate:
		return quotaDouble
	case QuotaProducerByteRate, QuotaConsumerByteRate:
		return quotaLong
	case QuotaConnectionCreationRate:
		return quotaInt
	}
	return quotaUnknown
}

// quotaEpsilon is the tolerance within which Kafka takes a quota value
// for an integer.
const quotaEpsilon = 1e-6

// FormatQuota returns the config value Kafka's migration writes for a
// client quota: for the DOUBLE keys (request_percentage,
// controller_mutation_rate) Double.toString of value (58.58, 10.0, 1.0E7;
// see jvm.DoubleString); for the LONG keys (producer_byte_rate,
// consumer_byte_rate) and the INT key (connection_creation_rate) the
// decimal of value + 1e-6 truncated to a Java long or int, saturating as
// Java's cast does. A LONG or INT value that this integer misses by more
// than 1e-6 is an error, as it is for Kafka: fractions, negative integers
// (truncated towards zero), infinities and values beyond the type's range.
// NaN passes Kafka's test and is written as 0. An unknown key is an error.
func FormatQuota(key string, value float64) (string, error) {
	kind := quotaKindOf(key)
	if kind == quotaUnknown {
		return "", fmt.Errorf("znode: unknown quota key %q", key)
	}
	if kind == quotaDouble {
		return jvm.DoubleString(value), nil
	}
	var n int64
	if kind == quotaLong {
		n = javaLongCast(value + quotaEpsilon)
	} else {
		n = int64(javaIntCast(value + quotaEpsilon))
	}
	if math.Abs(float64(n)-value) > quotaEpsilon {
		return "", fmt.Errorf("znode: quota %s must be an integer, got %s", key, jvm.DoubleString(value))
	}
	return strconv.FormatInt(n, 10), nil
}

// javaLongCast converts v to int64 as Java's (long) cast does: towards
// zero, NaN to 0, saturating at the ends of the range.
func javaLongCast(v float64) int64 {
	switch {
	case math.IsNaN(v):
		return 0
	case v >= math.MaxInt64:
		return math.MaxInt64
	case v <= math.MinInt64:
		return math.MinInt64
	}
	return int64(v)
}

// javaIntCast converts v to int32 as Java's (int) cast does.
func javaIntCast(v float64) int32 {
	switch {
	case math.IsNaN(v):
		return 0
	case v >= math.MaxInt32:
		return math.MaxInt32
	case v <= math.MinInt32:
		return math.MinInt32
	}
	return int32(v)
}

// ParseQuota parses the config value of a client quota key. For the LONG
// and INT keys it must be a decimal integer that fits the type, as Kafka
// writes them; for the DOUBLE keys a decimal number with an optional
// fraction and exponent (58.58, 1.0E7, 50) or NaN, Infinity or -Infinity,
// as Double.toString writes them. So ParseQuota accepts what FormatQuota
// returns and gives back the value, the integral value for LONG and INT
// keys.
//
// Its error is a *DecodeError with the Path "/config/<type>/<name>",
// literally, and the key as Field: ErrInvalidValue for an unknown key,
// ErrWrongType for a value of the wrong form, ErrOutOfRange for an integer
// that does not fit.
func ParseQuota(key, value string) (float64, error) {
	data := []byte(value)
	fail := func(reason error, detail string) (float64, error) {
		return 0, newError(configPattern, key, reason, detail, data)
	}
	switch quotaKindOf(key) {
	case quotaUnknown:
		return fail(ErrInvalidValue, "unknown quota key")
	case quotaDouble:
		if !isJavaDouble(value) {
			return fail(ErrWrongType, "got "+strconv.Quote(shorten(value))+", want a decimal number")
		}
		// The syntax is checked: ParseFloat can only report a value
		// beyond the range of a double, which it rounds to an infinity
		// or zero as Java does.
		v, _ := strconv.ParseFloat(value, 64)
		return v, nil
	}
	if !isDecimal(value) {
		return fail(ErrWrongType, "got "+strconv.Quote(shorten(value))+", want decimal integer")
	}
	bits := 64
	if quotaKindOf(key) == quotaInt {
		bits = 32
	}
	n, err := strconv.ParseInt(value, 10, bits)
	if err != nil {
		return fail(ErrOutOfRange, fmt.Sprintf("%s does not fit in int%d", shorten(value), bits))
	}
	return float64(n), nil
}

// isJavaDouble reports whether s is NaN, Infinity, -Infinity or a decimal
// number: an optional '-', digits, optionally '.' and digits, optionally
// 'E' or 'e', an optional sign and digits.
func isJavaDouble(s string) bool {
	switch s {
	case "NaN", "Infinity", "-Infinity":
		return true
	}
	i := 0
	if i < len(s) && s[i] == '-' {
		i++
	}
	digits := func() int {
		start := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		return i - start
	}
	if digits() == 0 {
		return false
	}
	if i < len(s) && s[i] == '.' {
		i++
		if digits() == 0 {
			return false
		}
	}
	if i < len(s) && (s[i] == 'E' || s[i] == 'e') {
		i++
		if i < len(s) && (s[i] == '-' || s[i] == '+') {
			i++
		}
		if digits() == 0 {
			return false
		}
	}
	return i == len(s)
}
