package types

import (
	"encoding/binary"
	"math"
	"strconv"
	"strings"

	"github.com/cockroachdb/apd/v3"
)

// Sign words of numeric's external binary format.
const (
	numericPos    = 0x0000
	numericNeg    = 0x4000
	numericNaN    = 0xC000
	numericPinf   = 0xD000
	numericNinf   = 0xF000
	numericMaxDsc = 0x3FFF
)

// appendNumericBinary writes numeric_send's format: ndigits, weight,
// sign and display scale as int16, then ndigits base-10000 digits, the
// first of which has value 10000^weight. Leading and trailing zero
// digits are not sent.
func appendNumericBinary(dst []byte, d *apd.Decimal) []byte {
	switch d.Form {
	case apd.NaN, apd.NaNSignaling:
		return appendNumericBinaryHeader(dst, 0, 0, numericNaN, 0)
	case apd.Infinite:
		// numeric_send reports infinities with display scale 32, the
		// scale PostgreSQL uses for them in arithmetic.
		if d.Negative {
			return appendNumericBinaryHeader(dst, 0, 0, numericNinf, 32)
		}
		return appendNumericBinaryHeader(dst, 0, 0, numericPinf, 32)
	}
	var scratch [40]byte
	return appendDigitsBinary(dst, d.Negative, d.Coeff.Append(scratch[:0], 10), int(d.Exponent))
}

// appendCoefBinary is appendNumericBinary for an inline numeric.
func appendCoefBinary(dst []byte, coef int64, exponent int32) []byte {
	var scratch [20]byte
	return appendDigitsBinary(dst, coef < 0, strconv.AppendUint(scratch[:0], coefMagnitude(coef), 10), int(exponent))
}

func appendNumericBinaryHeader(dst []byte, ndigits, weight int, sign uint16, dscale int) []byte {
	dst = binary.BigEndian.AppendUint16(dst, uint16(ndigits))
	dst = binary.BigEndian.AppendUint16(dst, uint16(int16(weight)))
	dst = binary.BigEndian.AppendUint16(dst, sign)
	return binary.BigEndian.AppendUint16(dst, uint16(dscale))
}

// appendDigitsBinary writes the finite numeric digits × 10^exp, negative
// when neg, where digits are the coefficient's decimal digits. Base-10000
// digit g holds the decimal powers 4g to 4g+3, so the digits span the
// groups from floorDiv(exp, 4) up to that of the leading digit; the zero
// groups at either end are not sent.
func appendDigitsBinary(dst []byte, neg bool, digits []byte, exp int) []byte {
	top := exp + len(digits) - 1 // the leading digit's power of ten
	group := func(g int) uint16 {
		var v uint16
		for p := 4*g + 3; p >= 4*g; p-- {
			v *= 10
			if k := top - p; k >= 0 && k < len(digits) {
				v += uint16(digits[k] - '0')
			}
		}
		return v
	}
	hi, lo := floorDiv4(top), floorDiv4(exp)
	for hi >= lo && group(hi) == 0 {
		hi--
	}
	for lo <= hi && group(lo) == 0 {
		lo++
	}
	sign := uint16(numericPos)
	if neg {
		sign = numericNeg
	}
	if hi < lo {
		// Zero: no digits, weight 0, never negative.
		return appendNumericBinaryHeader(dst, 0, 0, numericPos, max(0, -exp))
	}
	dst = appendNumericBinaryHeader(dst, hi-lo+1, hi, sign, max(0, -exp))
	for g := hi; g >= lo; g-- {
		dst = binary.BigEndian.AppendUint16(dst, group(g))
	}
	return dst
}

// floorDiv4 is ⌊n/4⌋, rounding towards minus infinity.
func floorDiv4(n int) int {
	if n < 0 {
		return -((-n + 3) / 4)
	}
	return n / 4
}

// parseNumericBinary is numeric_recv: digits beyond the display scale
// are truncated away. A value whose coefficient fits an int64 comes back
// inline.
func parseNumericBinary(b []byte) (Datum, error) {
	if len(b) < 8 {
		return Null, errBinary("insufficient data left in message")
	}
	ndigits := int(int16(binary.BigEndian.Uint16(b)))
	weight := int(int16(binary.BigEndian.Uint16(b[2:])))
	sign := binary.BigEndian.Uint16(b[4:])
	dscale := int(binary.BigEndian.Uint16(b[6:]))
	b = b[8:]
	if ndigits < 0 || len(b) != 2*ndigits {
		return Null, errBinaryLength()
	}
	switch sign {
	case numericPos, numericNeg:
	case numericNaN:
		return NewNumeric(&apd.Decimal{Form: apd.NaN}), nil
	case numericPinf, numericNinf:
		return NewNumeric(&apd.Decimal{Form: apd.Infinite, Negative: sign == numericNinf}), nil
	default:
		return Null, errBinary("invalid sign in external \"numeric\" value")
	}
	if dscale > numericMaxDsc {
		return Null, errBinary("invalid scale in external \"numeric\" value")
	}
	if d, ok := numericBinaryCoef(b, weight, dscale, sign == numericNeg); ok {
		return d, nil
	}
	return parseNumericDigits(b, weight, dscale, sign)
}

// numericBinaryCoef is parseNumericBinary's fast path for the common
// values whose scaled coefficient fits an int64 (four base-10000 digits
// at most): it computes the inline form directly instead of through
// apd's big integers. ok is false when the value needs the general path.
func numericBinaryCoef(b []byte, weight, dscale int, neg bool) (Datum, bool) {
	ndigits := len(b) / 2
	if ndigits > 4 {
		return Null, false
	}
	var coef int64
	for i := 0; i < ndigits; i++ {
		g := binary.BigEndian.Uint16(b[2*i:])
		if g >= 10000 {
			return Null, false
		}
		coef = coef*10000 + int64(g)
	}
	// coef × 10^shift is the value scaled by 10^dscale; a negative shift
	// truncates the digits beyond the display scale.
	shift := 4*(weight+1-ndigits) + dscale
	for ; shift > 0; shift-- {
		if coef > math.MaxInt64/10 {
			return Null, false
		}
		coef *= 10
	}
	for ; shift < 0 && coef != 0; shift++ {
		coef /= 10
	}
	if neg {
		coef = -coef
	}
	return NewNumericCoef(coef, int32(-dscale)), true
}

// parseNumericDigits is parseNumericBinary's general path, through apd.
func parseNumericDigits(b []byte, weight, dscale int, sign uint16) (Datum, error) {
	ndigits := len(b) / 2
	var sb strings.Builder
	for i := 0; i < ndigits; i++ {
		g := binary.BigEndian.Uint16(b[2*i:])
		if g >= 10000 {
			return Null, errBinary("invalid digit in external \"numeric\" value")
		}
		sb.WriteByte(byte('0' + g/1000))
		sb.WriteByte(byte('0' + g/100%10))
		sb.WriteByte(byte('0' + g/10%10))
		sb.WriteByte(byte('0' + g%10))
	}
	digits := sb.String()
	// value = 0.digits × 10^(4*(weight+1)); scale to exponent -dscale,
	// truncating digits beyond it.
	exp := 4*(weight+1) - len(digits)
	if exp < -dscale {
		cut := -dscale - exp
		if cut >= len(digits) {
			digits = ""
		} else {
			digits = digits[:len(digits)-cut]
		}
		exp = -dscale
	}
	if digits == "" {
		digits = "0"
	}
	var d apd.Decimal
	if _, ok := d.Coeff.SetString(digits, 10); !ok {
		return Null, errBinary("invalid digit in external \"numeric\" value")
	}
	d.Exponent = int32(exp)
	if exp > -dscale {
		// Add trailing zeros up to the display scale.
		if _, err := numericCtx.Quantize(&d, &d, int32(-dscale)); err != nil {
			return Null, errNumericOverflow()
		}
	}
	d.Negative = sign == numericNeg && d.Coeff.Sign() != 0
	if err := normalizeNumeric(&d); err != nil {
		return Null, err
	}
	return numericDatum(&d), nil
}
