package types

import (
	"math"
	"strconv"
	"strings"

	"github.com/streamdb/streamdb/pgerr"
)

// appendFloat prints a float as float4out/float8out do. With
// extra_float_digits >= 1 the output is the shortest text that reads back
// exactly (PostgreSQL's Ryu path), in fixed notation when the decimal
// exponent is in [-4, 15) for float8 or [-4, 6) for float4 and in
// exponent notation otherwise; with extra_float_digits <= 0 it is C's
// %.*g with DBL_DIG (or FLT_DIG) + extra_float_digits significant digits.
func appendFloat(dst []byte, f float64, bits int, extra int) []byte {
	switch {
	case math.IsNaN(f):
		return append(dst, "NaN"...)
	case math.IsInf(f, 1):
		return append(dst, "Infinity"...)
	case math.IsInf(f, -1):
		return append(dst, "-Infinity"...)
	}
	digits := 15
	if bits == 32 {
		digits = 6
	}
	if extra <= 0 {
		return strconv.AppendFloat(dst, f, 'g', max(digits+extra, 1), bits)
	}
	if f == 0 {
		if math.Signbit(f) {
			return append(dst, "-0"...)
		}
		return append(dst, '0')
	}
	var buf [32]byte
	e := strconv.AppendFloat(buf[:0], f, 'e', -1, bits)
	prec := -1
	if bits == 32 && isFloat32Tie(e, float32(f)) {
		// PostgreSQL's Ryu does not accept a decimal that lies exactly
		// halfway to a neighbouring float4; use the shortest that does
		// not.
		prec = 0
		if idx := strings.IndexByte(string(e), 'e'); idx > 2 {
			prec = idx - 2 // digits after the point in d.ddde±xx
		}
		for prec++; prec < 9; prec++ {
			e = strconv.AppendFloat(buf[:0], f, 'e', prec, bits)
			if v, _ := strconv.ParseFloat(string(e), 32); float32(v) == float32(f) && !isFloat32Tie(e, float32(f)) {
				break
			}
		}
	}
	exp, _ := strconv.Atoi(string(e[strings.IndexByte(string(e), 'e')+1:]))
	if exp >= -4 && exp < digits {
		if prec >= 0 {
			return strconv.AppendFloat(dst, f, 'f', max(prec-exp, 0), bits)
		}
		return strconv.AppendFloat(dst, f, 'f', -1, bits)
	}
	return append(dst, e...)
}

// isFloat32Tie reports whether decimal text lies exactly halfway between
// f and one of its float32 neighbours.
func isFloat32Tie(text []byte, f float32) bool {
	d, err := strconv.ParseFloat(string(text), 64)
	if err != nil || d == float64(f) {
		return false
	}
	up := math.Nextafter32(f, float32(math.Inf(1)))
	down := math.Nextafter32(f, float32(math.Inf(-1)))
	return d == (float64(f)+float64(up))/2 || d == (float64(f)+float64(down))/2
}

// parseFloat reads float4/float8 input: surrounding whitespace, decimal
// or exponent notation, and NaN, Infinity, inf with optional sign in any
// case. Values beyond the type's range, including ones that underflow to
// zero, are 22003 errors as in PostgreSQL.
func parseFloat(s string, f Family) (Datum, error) {
	t := trimSpace(s)
	typ := Type{Family: f}
	bits := 64
	if f == Float4 {
		bits = 32
	}
	mk := func(v float64) Datum {
		if f == Float4 {
			return NewFloat4(float32(v))
		}
		return NewFloat8(v)
	}
	switch strings.ToLower(t) {
	case "nan", "+nan", "-nan":
		return mk(canonicalNaN), nil
	case "infinity", "+infinity", "inf", "+inf":
		return mk(math.Inf(1)), nil
	case "-infinity", "-inf":
		return mk(math.Inf(-1)), nil
	}
	// Like strtod, read the longest numeric prefix: a value out of range
	// is reported (for that prefix) before any trailing garbage.
	n := decimalPrefix(t)
	if n == 0 {
		return Null, errSyntax(typ, s)
	}
	v, err := strconv.ParseFloat(t[:n], bits)
	if err != nil || math.IsInf(v, 0) || v == 0 && hasNonZeroDigit(t[:n]) {
		// float8in quotes the number as far as it was read, float4in the
		// whole input.
		shown := s
		if f == Float8 {
			shown = s[:strings.Index(s, t)+n]
		}
		return Null, pgerr.New(pgerr.NumericValueOutOfRange, "%s is out of range for type %s", quoteValue(shown), f)
	}
	if n != len(t) {
		return Null, errSyntax(typ, s)
	}
	return mk(v), nil
}

// decimalPrefix returns the length of the longest prefix of s that is
// [+-]digits[.digits][e[+-]digits] with at least one mantissa digit (an
// exponent without digits is not part of it), 0 if there is none.
func decimalPrefix(s string) int {
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	n := 0
	for ; i < len(s) && isDigit(s[i]); i++ {
		n++
	}
	if i < len(s) && s[i] == '.' {
		i++
		for ; i < len(s) && isDigit(s[i]); i++ {
			n++
		}
	}
	if n == 0 {
		return 0
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		j := i + 1
		if j < len(s) && (s[j] == '+' || s[j] == '-') {
			j++
		}
		if j < len(s) && isDigit(s[j]) {
			for j < len(s) && isDigit(s[j]) {
				j++
			}
			i = j
		}
	}
	return i
}

// isDecimalSyntax reports whether all of s is [+-]digits[.digits][e[+-]digits]
// with at least one mantissa digit.
func isDecimalSyntax(s string) bool { return s != "" && decimalPrefix(s) == len(s) }

// hasNonZeroDigit reports whether the mantissa of decimal text has a
// non-zero digit, to tell underflow from a written zero.
func hasNonZeroDigit(s string) bool {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == 'e' || c == 'E':
			return false
		case c >= '1' && c <= '9':
			return true
		}
	}
	return false
}

// canonicalNaN is the quiet NaN PostgreSQL produces (0x7ff8000000000000);
// Go's math.NaN has a different payload, which would show in binary output.
var canonicalNaN = math.Float64frombits(0x7ff8000000000000)
