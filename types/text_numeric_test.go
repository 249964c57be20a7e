package types

import (
	"testing"

	"github.com/cockroachdb/apd/v3"
)

// TestSmallDecimalMatchesApd checks the fast path of numeric input
// against apd's parser: the same coefficient, exponent and sign, before
// and after rounding to a typmod, for every shape it accepts; and that it
// declines what it does not handle.
func TestSmallDecimalMatchesApd(t *testing.T) {
	for _, s := range []string{"0", "-0", "+0", "0.00", "-0.00", "1", "-1", "123.45", "-123.45", "+7.5", "007.50", ".5", "-.5", "5.",
		"999999999999999999", "-999999999999999999", "0.00000000000000001", "12345678.123456789"} {
		coef, exp, ok := parseSmallDecimal(s)
		if !ok {
			t.Errorf("%q: fast path declined", s)
			continue
		}
		fast := apd.New(coef, exp)
		slow, err := parseDecimalText(s)
		if err != nil {
			t.Fatalf("%q: %v", s, err)
		}
		if fast.Cmp(slow) != 0 || fast.Exponent != slow.Exponent || fast.Negative != slow.Negative {
			t.Errorf("%q: fast %s (exp %d neg %v), apd %s (exp %d neg %v)", s, fast, fast.Exponent, fast.Negative, slow, slow.Exponent, slow.Negative)
		}
		for _, scale := range []int32{0, 2, 5} {
			rf, errF := RoundNumeric(fast, 30, scale)
			rs, errS := RoundNumeric(slow, 30, scale)
			if (errF == nil) != (errS == nil) || errF == nil && (rf.Cmp(rs) != 0 || rf.Exponent != rs.Exponent) {
				t.Errorf("%q numeric(30,%d): fast %v %v, apd %v %v", s, scale, rf, errF, rs, errS)
			}
		}
	}
	for _, s := range []string{"", "-", ".", "1e5", "1.2.3", "NaN", "Infinity", "1 ", "1234567890123456789", "0x10", "1_000"} {
		if _, _, ok := parseSmallDecimal(s); ok {
			t.Errorf("%q: fast path accepted", s)
		}
	}
}
