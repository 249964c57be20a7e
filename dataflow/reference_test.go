package dataflow

import (
	"slices"

	"github.com/streamdb/streamdb/types"
)

// Naive reference implementations for the property test: each recomputes
// an operator from consolidated inputs the obvious way.

func refJoin(in []Batch) Batch {
	var out Batch
	for _, l := range in[0] {
		for _, r := range in[1] {
			if !l.Row[0].IsNull() && types.Compare(l.Row[0], r.Row[0]) == 0 {
				out = append(out, Update{Row: concat(l.Row, r.Row), Diff: l.Diff * r.Diff})
			}
		}
	}
	return out
}

// refSemi: left rows whose column 0 equals column 1 of some right row.
func refSemi(in []Batch, anti bool) Batch {
	var out Batch
	for _, l := range in[0] {
		found := false
		for _, r := range in[1] {
			if !l.Row[0].IsNull() && !r.Row[1].IsNull() && types.Compare(l.Row[0], r.Row[1]) == 0 && r.Diff > 0 {
				found = true
			}
		}
		if found != anti {
			out = append(out, l)
		}
	}
	return out
}

// refReduce: count(*), sum(#1), min(#1), max(#2) grouped by #0.
func refReduce(in []Batch) Batch {
	type acc struct {
		key          types.Datum
		n, sum, nsum int64
		minv, maxv   types.Datum
	}
	var groups []*acc
	find := func(k types.Datum) *acc {
		for _, a := range groups {
			if types.Compare(a.key, k) == 0 {
				return a
			}
		}
		a := &acc{key: k}
		groups = append(groups, a)
		return a
	}
	for _, u := range in[0] {
		a := find(u.Row[0])
		a.n += u.Diff
		a.sum += u.Row[1].Int() * u.Diff
		a.nsum += u.Diff
		if a.minv.IsNull() || types.Compare(u.Row[1], a.minv) < 0 {
			a.minv = u.Row[1]
		}
		if a.maxv.IsNull() || types.Compare(u.Row[2], a.maxv) > 0 {
			a.maxv = u.Row[2]
		}
	}
	var out Batch
	for _, a := range groups {
		if a.n > 0 {
			out = append(out, Update{Row: types.Row{a.key, types.NewInt8(a.n), types.NewInt8(a.sum), a.minv, a.maxv}, Diff: 1})
		}
	}
	return out
}

// refCountColumn is GROUP BY column 1 of count(column 0) and count(*).
func refCountColumn(in []Batch) Batch {
	type acc struct{ n, nonNull int64 }
	groups := map[int64]*acc{}
	for _, u := range in[0] {
		k := u.Row[1].Int()
		if groups[k] == nil {
			groups[k] = &acc{}
		}
		groups[k].n += u.Diff
		if !u.Row[0].IsNull() {
			groups[k].nonNull += u.Diff
		}
	}
	var out Batch
	for k, a := range groups {
		if a.n > 0 {
			out = append(out, Update{Row: types.Row{types.NewInt8(k), types.NewInt8(a.nonNull), types.NewInt8(a.n)}, Diff: 1})
		}
	}
	return out
}

func refThreshold(l, r Batch, f func(lc, rc int64) int64) Batch {
	var out Batch
	count := func(b Batch, row types.Row) int64 {
		for _, u := range b {
			if types.CompareRows(u.Row, row) == 0 {
				return u.Diff
			}
		}
		return 0
	}
	for _, u := range l {
		if d := f(u.Diff, count(r, u.Row)); d != 0 {
			out = append(out, Update{Row: u.Row, Diff: d})
		}
	}
	for _, u := range r {
		if count(l, u.Row) == 0 {
			if d := f(0, u.Diff); d != 0 {
				out = append(out, Update{Row: u.Row, Diff: d})
			}
		}
	}
	return out
}

// refTopK sorts each group's rows, expands multiplicities and slices.
func refTopK(in Batch, group func(types.Row) types.Row, cmp func(a, b types.Row) int, offset, limit int64) Batch {
	groups := map[string][]types.Row{}
	for _, u := range in {
		var k types.Row
		if group != nil {
			k = group(u.Row)
		}
		key := string(types.AppendKeyRow(nil, k))
		for i := int64(0); i < u.Diff; i++ {
			groups[key] = append(groups[key], u.Row)
		}
	}
	var out Batch
	for _, rows := range groups {
		slices.SortStableFunc(rows, func(a, b types.Row) int {
			if c := cmp(a, b); c != 0 {
				return c
			}
			return types.CompareRows(a, b)
		})
		end := int64(len(rows))
		if limit >= 0 {
			end = min(end, offset+limit)
		}
		for i := offset; i < end; i++ {
			out = append(out, Update{Row: rows[i], Diff: 1})
		}
	}
	return out
}
