package types

import (
	"cmp"
	"math"
	"strings"
)

// Compare orders two Datums of the same type the way PostgreSQL's default
// btree operator class does, with the C collation for strings. NULL sorts
// after every value (PostgreSQL's ascending default, NULLS LAST); two NULLs
// compare equal. Within the integer families, the float families and the
// string families, values of different families compare by value, as
// PostgreSQL's cross-type operators do (char without trailing blanks);
// other mixes order by family.
func Compare(a, b Datum) int {
	if a.kind == Unknown || b.kind == Unknown {
		switch {
		case a.kind == b.kind:
			return 0
		case a.kind == Unknown:
			return 1
		default:
			return -1
		}
	}
	if a.kind != b.kind {
		switch {
		case a.kind.IsInteger() && b.kind.IsInteger():
		case isFloat(a.kind) && isFloat(b.kind):
			return compareFloat(a.Float(), b.Float())
		case a.kind.IsString() && b.kind.IsString():
			// As PostgreSQL compares text with varchar or name, and
			// char with text after dropping its trailing blanks.
			return strings.Compare(comparableString(a), comparableString(b))
		default:
			// Not meaningful in SQL; ordered by family so that the
			// order stays total.
			return cmp.Compare(a.kind, b.kind)
		}
	}
	switch a.kind {
	case Bool, Int2, Int4, Int8, Oid, Date, Time, Timestamp, TimestampTZ:
		return cmp.Compare(a.i, b.i)
	case Float4, Float8:
		return compareFloat(a.Float(), b.Float())
	case Numeric:
		return compareNumeric(a, b)
	case Char:
		return strings.Compare(strings.TrimRight(a.str(), " "), strings.TrimRight(b.str(), " "))
	case Text, Varchar, Name, Bytea, JSON, UUID, QChar, Void:
		return strings.Compare(a.str(), b.str())
	case JSONB:
		return CompareJSONB(a.str(), b.str())
	case Interval:
		return compareInterval(a.Interval(), b.Interval())
	case Array:
		return compareArrays(a.arr(), b.arr())
	case Record:
		return compareRecords(a.rec(), b.rec())
	}
	return 0
}

func isFloat(f Family) bool { return f == Float4 || f == Float8 }

// comparableString is a string Datum's value as comparisons see it:
// char(n) without its trailing blanks.
func comparableString(d Datum) string {
	if d.kind == Char {
		return strings.TrimRight(d.str(), " ")
	}
	return d.str()
}

// Equal reports whether two Datums are equal under Compare (NULL equals
// NULL, as in grouping and DISTINCT; SQL's = is the evaluator's concern).
func Equal(a, b Datum) bool { return Compare(a, b) == 0 }

// CompareRows compares rows column by column with Compare.
func CompareRows(a, b Row) int {
	n := min(len(a), len(b))
	for i := 0; i < n; i++ {
		if c := Compare(a[i], b[i]); c != 0 {
			return c
		}
	}
	return cmp.Compare(len(a), len(b))
}

// compareFloat orders floats as PostgreSQL does: NaN equals NaN and sorts
// above every other value, and -0 equals +0.
func compareFloat(a, b float64) int {
	an, bn := math.IsNaN(a), math.IsNaN(b)
	switch {
	case an && bn:
		return 0
	case an:
		return 1
	case bn:
		return -1
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// IntervalSpan returns the interval as PostgreSQL's comparison sees it:
// months as 30 days and days as 24 hours, in microseconds, split into a high
// and low part so that it cannot overflow.
func IntervalSpan(v IntervalValue) (days int64, micros int64) {
	const day = 24 * 60 * 60 * 1e6
	days = int64(v.Months)*30 + int64(v.Days) + v.Micros/day
	micros = v.Micros % day
	if micros < 0 {
		micros += day
		days--
	}
	return days, micros
}

func compareInterval(a, b IntervalValue) int {
	ad, am := IntervalSpan(a)
	bd, bm := IntervalSpan(b)
	if c := cmp.Compare(ad, bd); c != 0 {
		return c
	}
	return cmp.Compare(am, bm)
}

func compareArrays(a, b *ArrayValue) int {
	if c := cmp.Compare(a.Elem.Family, b.Elem.Family); c != 0 {
		return c
	}
	n := min(len(a.Elems), len(b.Elems))
	for i := 0; i < n; i++ {
		if c := Compare(a.Elems[i], b.Elems[i]); c != 0 {
			return c
		}
	}
	return compareShape(a, b)
}

// spanInterval is the inverse of IntervalSpan: the canonical interval with
// that span, in whole months of 30 days, then days, then microseconds
// below a day. Spans too large for the int32 fields spill into the next
// smaller unit.
func spanInterval(days, micros int64) IntervalValue {
	const day = 24 * 60 * 60 * 1e6
	months := days / 30
	months = max(min(months, math.MaxInt32), math.MinInt32)
	days -= months * 30
	d := max(min(days, math.MaxInt32), math.MinInt32)
	micros += (days - d) * day
	return IntervalValue{Months: int32(months), Days: int32(d), Micros: micros}
}
