package dataflow

import (
	"strings"

	"github.com/streamdb/streamdb/types"
)

// SortColumn is one ORDER BY column for ColumnSortKey.
type SortColumn struct {
	Col        int
	Desc       bool
	NullsFirst bool
}

// ColumnSortKey returns a TopKSpec.SortKey (and WindowSpec.SortKey) that
// orders rows by the given columns: each column is a placement byte
// (NULLs before or after the values, as NullsFirst says) followed, for a
// value, by its memcomparable key encoding, inverted for Desc. Values of
// the families types.Compare compares across (the integers, the floats,
// the character strings) are encoded as one family (bigint, double,
// text), so that values equal under types.Compare encode equally and the
// byte order of keys is the ORDER BY order (see SortKeyExact for the
// families this is checked for).
func ColumnSortKey(cols []SortColumn) func(dst []byte, row types.Row) []byte {
	cols = append([]SortColumn(nil), cols...)
	return func(dst []byte, row types.Row) []byte {
		for _, c := range cols {
			d := row[c.Col]
			switch {
			case !d.IsNull():
				dst = types.AppendKey(append(dst, 1), sortKeyDatum(d), c.Desc)
			case c.NullsFirst:
				dst = append(dst, 0)
			default:
				dst = append(dst, 2)
			}
		}
		return dst
	}
}

// sortKeyDatum maps a value to the one family its comparable relatives
// share. The families keep their relative order (the integers, floats and
// character strings are adjacent), so that even values of unrelated
// families, which types.Compare orders by family, keep their order.
func sortKeyDatum(d types.Datum) types.Datum {
	switch d.Kind() {
	case types.Int2, types.Int4:
		return types.NewInt8(d.Int())
	case types.Float4:
		return types.NewFloat8(d.Float())
	case types.Varchar, types.Name:
		return types.NewText(d.Str())
	case types.Char:
		return types.NewText(strings.TrimRight(d.Str(), " "))
	}
	return d
}

// SortKeyExact reports whether ColumnSortKey orders values of columns of
// family f exactly as types.Compare does (with NULLs placed as the ORDER
// BY says), so that a planner may use a sort key in place of a
// comparator. The planner's test checks every family it reports against
// the planner's comparator on random values; any other family (json,
// jsonb, arrays, the reg* types) needs the comparator.
func SortKeyExact(f types.Family) bool {
	switch f {
	case types.Bool, types.Int2, types.Int4, types.Int8, types.Float4, types.Float8, types.Numeric,
		types.Text, types.Varchar, types.Char, types.Name, types.Bytea,
		types.Date, types.Time, types.Timestamp, types.TimestampTZ, types.Interval, types.UUID, types.Oid:
		return true
	}
	return false
}
