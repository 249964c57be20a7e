package types

import (
	"encoding/binary"
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
	header := func(ndigits, weight int, sign uint16, dscale int) []byte {
		dst = binary.BigEndian.AppendUint16(dst, uint16(ndigits))
		dst = binary.BigEndian.AppendUint16(dst, uint16(int16(weight)))
		dst = binary.BigEndian.AppendUint16(dst, sign)
		return binary.BigEndian.AppendUint16(dst, uint16(dscale))
	}
	switch d.Form {
	case apd.NaN, apd.NaNSignaling:
		return header(0, 0, numericNaN, 0)
	case apd.Infinite:
		// numeric_send reports infinities with display scale 32, the
		// scale PostgreSQL uses for them in arithmetic.
		if d.Negative {
			return header(0, 0, numericNinf, 32)
		}
		return header(0, 0, numericPinf, 32)
	}
	var scratch [40]byte
	digits := d.Coeff.Append(scratch[:0], 10)
	exp := int(d.Exponent)
	dscale := max(0, -exp)
	// Split into integer and fraction digit strings.
	var intPart, fracPart string
	switch {
	case exp >= 0:
		intPart = string(digits) + strings.Repeat("0", exp)
	case -exp >= len(digits):
		fracPart = strings.Repeat("0", -exp-len(digits)) + string(digits)
	default:
		intPart = string(digits[:len(digits)+exp])
		fracPart = string(digits[len(digits)+exp:])
	}
	if pad := (4 - len(intPart)%4) % 4; pad > 0 {
		intPart = strings.Repeat("0", pad) + intPart
	}
	if pad := (4 - len(fracPart)%4) % 4; pad > 0 {
		fracPart += strings.Repeat("0", pad)
	}
	all := intPart + fracPart
	groups := make([]uint16, 0, len(all)/4)
	for i := 0; i < len(all); i += 4 {
		v := uint16(0)
		for _, c := range all[i : i+4] {
			v = v*10 + uint16(c-'0')
		}
		groups = append(groups, v)
	}
	weight := len(intPart)/4 - 1
	for len(groups) > 0 && groups[0] == 0 {
		groups = groups[1:]
		weight--
	}
	for len(groups) > 0 && groups[len(groups)-1] == 0 {
		groups = groups[:len(groups)-1]
	}
	sign := uint16(numericPos)
	if d.Negative {
		sign = numericNeg
	}
	if len(groups) == 0 {
		weight, sign = 0, numericPos
	}
	dst = header(len(groups), weight, sign, dscale)
	for _, g := range groups {
		dst = binary.BigEndian.AppendUint16(dst, g)
	}
	return dst
}

// parseNumericBinary is numeric_recv: digits beyond the display scale
// are truncated away.
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
	d := new(apd.Decimal)
	switch sign {
	case numericPos, numericNeg:
	case numericNaN:
		d.Form = apd.NaN
		return NewNumeric(d), nil
	case numericPinf, numericNinf:
		d.Form, d.Negative = apd.Infinite, sign == numericNinf
		return NewNumeric(d), nil
	default:
		return Null, errBinary("invalid sign in external \"numeric\" value")
	}
	if dscale > numericMaxDsc {
		return Null, errBinary("invalid scale in external \"numeric\" value")
	}
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
	if _, ok := d.Coeff.SetString(digits, 10); !ok {
		return Null, errBinary("invalid digit in external \"numeric\" value")
	}
	d.Exponent = int32(exp)
	if exp > -dscale {
		// Add trailing zeros up to the display scale.
		if _, err := numericCtx.Quantize(d, d, int32(-dscale)); err != nil {
			return Null, errNumericOverflow()
		}
	}
	d.Negative = sign == numericNeg && d.Coeff.Sign() != 0
	if err := normalizeNumeric(d); err != nil {
		return Null, err
	}
	return NewNumeric(d), nil
}
