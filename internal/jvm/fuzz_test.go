package jvm_test

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/kraftmigration/zkwriter/internal/jvm"
)

func FuzzDoubleString(f *testing.F) {
	for _, v := range []float64{0, 1, 58.58, 1e7, 9999999.999, 1e-3, 5e-324, 1e-323, math.MaxFloat64, 1e23, 0x1p60} {
		f.Add(v)
	}
	f.Fuzz(func(t *testing.T, v float64) {
		s := jvm.DoubleString(v)
		if math.IsNaN(v) {
			if s != "NaN" {
				t.Fatalf("DoubleString(NaN) = %s", s)
			}
			return
		}
		back, err := strconv.ParseFloat(strings.Replace(strings.TrimSuffix(s, "inity"), "Inf", "Inf", 1), 64)
		if err != nil || back != v || math.Signbit(back) != math.Signbit(v) {
			t.Fatalf("DoubleString(%v) = %s, which reads back as %v, %v", v, s, back, err)
		}
		if !strings.Contains(s, ".") && !math.IsInf(v, 0) {
			t.Fatalf("DoubleString(%v) = %s has no point", v, s)
		}
		mantissa, _, sci := strings.Cut(strings.TrimPrefix(s, "-"), "E")
		if a := math.Abs(v); a != 0 && !math.IsInf(v, 0) && sci == (a >= 1e-3 && a < 1e7) || strings.HasSuffix(mantissa, "0") && !strings.HasSuffix(mantissa, ".0") {
			t.Fatalf("DoubleString(%v) = %s: wrong notation or trailing zero", v, s)
		}
	})
}

func FuzzOrders(f *testing.F) {
	f.Add("version\x00acls")
	f.Add("AaAa\x00BBBB\x00AaBB\x00BBAa\x00AaAa")
	f.Fuzz(func(t *testing.T, joined string) {
		keys := strings.Split(joined, "\x00")
		distinct := slices.Compact(slices.Sorted(slices.Values(keys)))
		for name, order := range map[string]func([]string) []string{"HashMapOrder": jvm.HashMapOrder, "PropertiesOrder": jvm.PropertiesOrder} {
			got := order(keys)
			if sorted := slices.Sorted(slices.Values(got)); !slices.Equal(sorted, distinct) {
				t.Fatalf("%s(%q) = %q, not a permutation of the distinct keys", name, keys, got)
			}
		}
	})
}
