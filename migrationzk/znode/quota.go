package znode

import (
	"fmt"
	"math"
	"strconv"
	"strings"

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

// ParseQuota parses the config value of a client quota key as Kafka 3.9's
// migration reads it (ZkConfigMigrationClient, with Double.parseDouble):
// surrounding whitespace and control characters ignored, an optional
// sign, then NaN, Infinity, a decimal number with optional fraction and
// exponent (58.58, 1.0E7, 50, .5, 1.) or a hexadecimal one with a binary
// exponent (0x1.8p1), optionally followed by one of f, F, d or D; for
// every key, LONG and INT ones included. So ParseQuota accepts what
// FormatQuota returns and gives back the value.
//
// Its error is a *DecodeError with the Path "/config/<type>/<name>",
// literally, and the key as Field: ErrInvalidValue for an unknown key,
// ErrWrongType for a value Double.parseDouble refuses.
func ParseQuota(key, value string) (float64, error) {
	if quotaKindOf(key) == quotaUnknown {
		return 0, newError(configPattern, key, ErrInvalidValue, "unknown quota key", []byte(value))
	}
	v, ok := parseJavaDouble(value)
	if !ok {
		return 0, newError(configPattern, key, ErrWrongType, "got "+strconv.Quote(shorten(value))+", want a number", []byte(value))
	}
	return v, nil
}

// parseJavaDouble parses s as Java's Double.parseDouble does.
func parseJavaDouble(s string) (float64, bool) {
	s = strings.TrimFunc(s, func(r rune) bool { return r <= ' ' })
	sign := ""
	if s != "" && (s[0] == '+' || s[0] == '-') {
		sign, s = s[:1], s[1:]
	}
	switch s {
	case "NaN":
		return math.NaN(), true
	case "Infinity":
		if sign == "-" {
			return math.Inf(-1), true
		}
		return math.Inf(1), true
	}
	if n := len(s); n > 0 && strings.IndexByte("fFdD", s[n-1]) >= 0 {
		s = s[:n-1]
	}
	if !isJavaDecimal(s) && !isJavaHex(s) {
		return 0, false
	}
	// The syntax is checked: ParseFloat can only report a value beyond
	// the range of a double, which it rounds to an infinity or zero as
	// Java does.
	v, _ := strconv.ParseFloat(sign+s, 64)
	return v, true
}

// isJavaDecimal reports whether s is decimal digits with an optional
// fraction, not both sides of the point empty, and an optional exponent.
func isJavaDecimal(s string) bool {
	mantissa, exp, hasExp := strings.Cut(strings.ToLower(s), "e")
	whole, frac, _ := strings.Cut(mantissa, ".")
	return allDigits(whole) && allDigits(frac) && whole+frac != "" && (!hasExp || isExponent(exp))
}

// isJavaHex reports whether s is 0x or 0X, hexadecimal digits with an
// optional fraction, not both sides of the point empty, then p or P and a
// decimal exponent.
func isJavaHex(s string) bool {
	if len(s) < 2 || s[0] != '0' || (s[1] != 'x' && s[1] != 'X') {
		return false
	}
	mantissa, exp, hasExp := strings.Cut(strings.ToLower(s[2:]), "p")
	whole, frac, _ := strings.Cut(mantissa, ".")
	return allHex(whole) && allHex(frac) && whole+frac != "" && hasExp && isExponent(exp)
}

// isExponent reports whether s is an optional sign and decimal digits.
func isExponent(s string) bool {
	if s != "" && (s[0] == '+' || s[0] == '-') {
		s = s[1:]
	}
	return s != "" && allDigits(s)
}

// allDigits reports whether s holds only ASCII decimal digits.
func allDigits(s string) bool {
	return strings.Trim(s, "0123456789") == ""
}

// allHex reports whether s holds only ASCII hexadecimal digits.
func allHex(s string) bool {
	return strings.Trim(s, "0123456789abcdefABCDEF") == ""
}
