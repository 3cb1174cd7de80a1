package checker

import (
	"encoding/json"
	"math/big"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// canonicalBig computes the canonical form of a JSON number with math/big,
// as a reference for canonicalNumber.
func canonicalBig(t *testing.T, neg bool, intPart, frac string, expNeg bool, exp string) string {
	t.Helper()
	d, ok := new(big.Int).SetString(intPart+frac, 10)
	if !ok {
		t.Fatalf("bad digits %q%q", intPart, frac)
	}
	if d.Sign() == 0 {
		return "0"
	}
	e := new(big.Int)
	if exp != "" {
		if _, ok := e.SetString(exp, 10); !ok {
			t.Fatalf("bad exponent %q", exp)
		}
	}
	if expNeg {
		e.Neg(e)
	}
	e.Sub(e, big.NewInt(int64(len(frac))))
	ten := big.NewInt(10)
	for {
		q, r := new(big.Int).QuoRem(d, ten, new(big.Int))
		if r.Sign() != 0 {
			break
		}
		d = q
		e.Add(e, big.NewInt(1))
	}
	sign := ""
	if neg {
		sign = "-"
	}
	return sign + d.String() + "e" + e.String()
}

func TestNumberCanonical(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	digitString := func(n int, lead bool) string {
		var b strings.Builder
		for i := 0; i < n; i++ {
			c := byte('0' + r.IntN(10))
			if i == 0 && lead && n > 1 && c == '0' {
				c = '1'
			}
			b.WriteByte(c)
		}
		return b.String()
	}
	exps := []string{
		"", "0", "00", "1", "17", "999999999999999999", "1000000000000000000", "1000000000000000001",
		"0999999999999999999", "9223372036854775807", "9223372036854775808", "10000000000000000000",
		"99999999999999999999", "100000000000000000000000", "000000000000000000000000000000000005",
	}
	ints := []string{"0", "1", "10", "100", "120", "9", "1000000"}
	fracs := []string{"", "0", "5", "05", "50", "000", "123", "1000000000"}
	// mark is how the exponent is introduced when it is not negative:
	// "e", "E", "e+" or "E+".
	check := func(neg bool, intPart, frac string, expNeg bool, exp, mark string) {
		t.Helper()
		text := intPart
		if neg {
			text = "-" + text
		}
		if frac != "" {
			text += "." + frac
		}
		if exp != "" {
			if expNeg {
				text += mark[:1] + "-"
			} else {
				text += mark
			}
			text += exp
		}
		v, err := decodeJSON([]byte(text))
		n, ok := v.(json.Number)
		if err != nil || !ok || string(n) != text {
			t.Fatalf("decodeJSON(%q) = %#v, %v; want the number as written", text, v, err)
		}
		if got, want := canonicalNumber(n), canonicalBig(t, neg, intPart, frac, expNeg, exp); got != want {
			t.Errorf("canonicalNumber(%q) = %q, want %q", text, got, want)
		}
	}
	for _, exp := range exps {
		for _, intPart := range ints {
			for _, frac := range fracs {
				for _, neg := range []bool{false, true} {
					check(neg, intPart, frac, false, exp, "e")
					if exp != "" {
						check(neg, intPart, frac, false, exp, "E+")
						check(neg, intPart, frac, true, exp, "e")
					}
				}
			}
		}
	}
	for i := 0; i < 5000; i++ {
		intPart := digitString(1+r.IntN(25), true)
		frac := ""
		if r.IntN(2) == 0 {
			frac = digitString(1+r.IntN(30), false)
		}
		exp := ""
		if r.IntN(4) != 0 {
			exp = strings.Repeat("0", r.IntN(3)) + digitString(1+r.IntN(24), true)
			// Put trailing zeros or nines at the end to exercise carries.
			if r.IntN(2) == 0 {
				exp += strings.Repeat(strconv.Itoa(9*r.IntN(2)), r.IntN(6))
			}
		}
		check(r.IntN(2) == 0, intPart, frac, r.IntN(2) == 0, exp, [...]string{"e", "E", "e+", "E+"}[r.IntN(4)])
	}
}
