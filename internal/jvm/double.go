package jvm

import (
	"math"
	"strconv"
	"strings"
)

// DoubleString returns Double.toString(v) as JDK 19 and later define it
// (the shortest-decimal specification of JDK-4511638, used by Kafka on
// Java 21):
//
//   - NaN, Infinity, -Infinity, 0.0 and -0.0 for the special values;
//   - otherwise the shortest decimal that rounds to v, the one closest to
//     v if several; when that decimal has a single digit, the closest
//     two-digit decimal that rounds to v instead (Double.MIN_VALUE is
//     4.9E-324, not 5.0E-324);
//   - written in plain notation with at least one fractional digit when
//     10^-3 <= |v| < 10^7 (58.58, 10.0, 0.001, 1234567.0), else as
//     d.dddE±n with at least one fractional digit and no '+' (1.0E7,
//     1.234E-5).
//
// JDK 11 and 17, whose older algorithm is not always shortest, write the
// same for the values quotas hold (tested: decimals of up to nine
// significant digits between 1e-5 and 1e12) but differ for three kinds of
// doubles, measured against JDK 17: most values in [2^54, 2^63), about
// 1.8e16 to 9.2e18, where they write the integer's digits (4.2229739066839142E17
// for 4.222973906683914E17); about one in a thousand other doubles, where
// they write 16 to 18 digits (5.6843418860808015E-14 for
// 5.684341886080802E-14); and subnormals whose shortest decimal has one
// digit, where they keep it (1.0E-323 for 9.9E-324). Those outputs are not
// reproduced.
func DoubleString(v float64) string {
	switch {
	case math.IsNaN(v):
		return "NaN"
	case math.IsInf(v, 1):
		return "Infinity"
	case math.IsInf(v, -1):
		return "-Infinity"
	case v == 0 && math.Signbit(v):
		return "-0.0"
	case v == 0:
		return "0.0"
	}
	sign := ""
	if v < 0 {
		sign, v = "-", -v
	}
	digits, exp := shortestDigits(v)
	if v >= 1e-3 && v < 1e7 {
		return sign + plainNotation(digits, exp)
	}
	return sign + scientificNotation(digits, exp)
}

// shortestDigits returns the decimal digits d1d2...dn, without trailing
// zeros, and the exponent e of the decimal d1.d2...dn × 10^e that
// DoubleString writes for v > 0.
func shortestDigits(v float64) (string, int) {
	digits, exp := splitExponential(strconv.FormatFloat(v, 'e', -1, 64))
	if len(digits) == 1 {
		two := strconv.FormatFloat(v, 'e', 1, 64)
		if back, err := strconv.ParseFloat(two, 64); err == nil && back == v {
			digits, exp = splitExponential(two)
		}
	}
	digits = strings.TrimRight(digits, "0")
	if digits == "" {
		digits = "0"
	}
	return digits, exp
}

// splitExponential splits Go's "d.ddde±xx" into its digits and exponent.
func splitExponential(s string) (string, int) {
	mantissa, expText, _ := strings.Cut(s, "e")
	exp, _ := strconv.Atoi(expText)
	return strings.Replace(mantissa, ".", "", 1), exp
}

// plainNotation writes digits × 10^(exp+1-len(digits)) without an
// exponent, with at least one digit on each side of the point.
func plainNotation(digits string, exp int) string {
	if exp < 0 {
		return "0." + strings.Repeat("0", -exp-1) + digits
	}
	intLen := exp + 1
	if len(digits) <= intLen {
		return digits + strings.Repeat("0", intLen-len(digits)) + ".0"
	}
	return digits[:intLen] + "." + digits[intLen:]
}

// scientificNotation writes d1.d2...dnE<exp>, with at least one digit
// after the point.
func scientificNotation(digits string, exp int) string {
	frac := digits[1:]
	if frac == "" {
		frac = "0"
	}
	return digits[:1] + "." + frac + "E" + strconv.Itoa(exp)
}
