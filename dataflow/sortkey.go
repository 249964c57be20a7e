package dataflow

import "github.com/streamdb/streamdb/sql/types"

// SortColumn is one ORDER BY column for ColumnSortKey.
type SortColumn struct {
	Col        int
	Desc       bool
	NullsFirst bool
}

// ColumnSortKey returns a TopKSpec.SortKey (and WindowSpec.SortKey) that
// orders rows by the given columns: each column is a placement byte
// (NULLs before or after the values, as NullsFirst says) followed, for a
// value, by its memcomparable key encoding, inverted for Desc. Equal
// values (types.Compare) encode equally, so the byte order of keys is the
// ORDER BY order.
func ColumnSortKey(cols []SortColumn) func(dst []byte, row types.Row) []byte {
	cols = append([]SortColumn(nil), cols...)
	return func(dst []byte, row types.Row) []byte {
		for _, c := range cols {
			d := row[c.Col]
			switch {
			case !d.IsNull():
				dst = types.AppendKey(append(dst, 1), d, c.Desc)
			case c.NullsFirst:
				dst = append(dst, 0)
			default:
				dst = append(dst, 2)
			}
		}
		return dst
	}
}
