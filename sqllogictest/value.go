package sqllogictest

import (
	"math"
	"strconv"
)

// PostgreSQL type OIDs whose text form normalize reads specially.
const (
	oidBool    = 16
	oidInt8    = 20
	oidInt2    = 21
	oidInt4    = 23
	oidOid     = 26
	oidFloat4  = 700
	oidFloat8  = 701
	oidNumeric = 1700
)

// normalize returns one value as the reference runner prints it in a
// column of type typ ('T', 'I' or 'R'); v is the value's text form as the
// server sent it, with a nil v meaning NULL, and oid is its type.
//
// The reference runner asks SQLite for the value as text, int64 or double;
// for values of another type the conversions below reproduce what
// sqlite3_column_int64 and sqlite3_column_double would have returned.
func normalize(typ byte, oid uint32, v []byte) string {
	if v == nil {
		return "NULL"
	}
	switch typ {
	case 'I':
		return normalizeInt(oid, v)
	case 'R':
		return formatReal(realValue(oid, v))
	}
	return normalizeText(v)
}

// normalizeText prints an empty string as "(empty)" and every byte outside
// printable ASCII as '@', so that each value fits on one line.
func normalizeText(v []byte) string {
	if len(v) == 0 {
		return "(empty)"
	}
	clean := true
	for _, c := range v {
		if c < ' ' || c > '~' {
			clean = false
			break
		}
	}
	if clean {
		return string(v)
	}
	b := make([]byte, len(v))
	for i, c := range v {
		if c < ' ' || c > '~' {
			c = '@'
		}
		b[i] = c
	}
	return string(b)
}

func normalizeInt(oid uint32, v []byte) string {
	switch oid {
	case oidInt2, oidInt4, oidInt8, oidOid:
		return string(v)
	case oidBool:
		if len(v) > 0 && v[0] == 't' {
			return "1"
		}
		return "0"
	case oidFloat4, oidFloat8:
		f, err := strconv.ParseFloat(string(v), 64)
		if err != nil {
			return "0"
		}
		return strconv.FormatInt(floatToInt(f), 10)
	}
	return strconv.FormatInt(intPrefix(v), 10)
}

// floatToInt converts as SQLite's doubleToInt64 does: truncation toward
// zero, saturating at the int64 range, NaN as 0.
func floatToInt(f float64) int64 {
	switch {
	case math.IsNaN(f):
		return 0
	case f <= math.MinInt64:
		return math.MinInt64
	case f >= math.MaxInt64:
		return math.MaxInt64
	}
	return int64(f)
}

// intPrefix reads the leading integer of a text value as sqlite3Atoi64
// does: leading white space, an optional sign, then digits up to the first
// other character; no digits read as 0 and overflow saturates. A numeric's
// text such as "-12.5" therefore truncates to -12.
func intPrefix(v []byte) int64 {
	i := 0
	for i < len(v) && (v[i] == ' ' || v[i] == '\t' || v[i] == '\n' || v[i] == '\r') {
		i++
	}
	neg := false
	if i < len(v) && (v[i] == '-' || v[i] == '+') {
		neg = v[i] == '-'
		i++
	}
	var n uint64
	for ; i < len(v) && '0' <= v[i] && v[i] <= '9'; i++ {
		if n > (1<<63)/10 {
			n = 1 << 63
			continue
		}
		n = min(n*10+uint64(v[i]-'0'), 1<<63)
	}
	if neg {
		return int64(-n)
	}
	if n > math.MaxInt64 {
		return math.MaxInt64
	}
	return int64(n)
}

// realValue reads a value as sqlite3_column_double would: numbers by their
// value, booleans as 0 or 1, and text by its longest numeric prefix.
func realValue(oid uint32, v []byte) float64 {
	if oid == oidBool {
		if len(v) > 0 && v[0] == 't' {
			return 1
		}
		return 0
	}
	if f, err := strconv.ParseFloat(string(v), 64); err == nil {
		return f
	}
	return floatPrefix(v)
}

// floatPrefix parses the longest prefix of v of the form
// [space][sign]digits[.digits][e[sign]digits], 0 when there is none.
func floatPrefix(v []byte) float64 {
	i := 0
	for i < len(v) && (v[i] == ' ' || v[i] == '\t' || v[i] == '\n' || v[i] == '\r') {
		i++
	}
	start := i
	if i < len(v) && (v[i] == '-' || v[i] == '+') {
		i++
	}
	digits := 0
	for ; i < len(v) && '0' <= v[i] && v[i] <= '9'; i++ {
		digits++
	}
	if i < len(v) && v[i] == '.' {
		i++
		for ; i < len(v) && '0' <= v[i] && v[i] <= '9'; i++ {
			digits++
		}
	}
	if digits == 0 {
		return 0
	}
	end := i
	if i < len(v) && (v[i] == 'e' || v[i] == 'E') {
		j := i + 1
		if j < len(v) && (v[j] == '-' || v[j] == '+') {
			j++
		}
		k := j
		for ; k < len(v) && '0' <= v[k] && v[k] <= '9'; k++ {
		}
		if k > j {
			end = k
		}
	}
	f, _ := strconv.ParseFloat(string(v[start:end]), 64)
	return f
}

// formatReal prints f with "%.3f" as SQLite's printf does. Both round the
// exact binary value, and differ only on exact ties, which SQLite rounds
// away from zero and Go to even. A double is an exact tie at three decimals
// only when 16·f is an odd integer, so those few values are rounded here.
func formatReal(f float64) string {
	if t := f * 16; math.Abs(f) < 1<<40 && t == math.Trunc(t) && math.Mod(t, 2) != 0 {
		thousandths := int64(math.Round(f * 1000))
		sign := ""
		if thousandths < 0 {
			sign, thousandths = "-", -thousandths
		}
		frac := strconv.FormatInt(thousandths%1000, 10)
		for len(frac) < 3 {
			frac = "0" + frac
		}
		return sign + strconv.FormatInt(thousandths/1000, 10) + "." + frac
	}
	return strconv.FormatFloat(f, 'f', 3, 64)
}
