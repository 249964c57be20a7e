package dataflow

import (
	"slices"

	"github.com/streamdb/streamdb/types"
)

// refSession computes session windows naively: each partition's rows
// sorted by time, a new session wherever the time moves on by the gap or
// more, every row followed by its session's first time and last time
// plus the gap.
func refSession(in Batch, key func(types.Row) types.Row, ts int, gap int64) Batch {
	parts := map[string][]Update{}
	var order []string
	for _, u := range in {
		if u.Row[ts].IsNull() {
			continue
		}
		var k types.Row
		if key != nil {
			k = key(u.Row)
		}
		ks := string(types.AppendKeyRow(nil, k))
		if _, ok := parts[ks]; !ok {
			order = append(order, ks)
		}
		parts[ks] = append(parts[ks], u)
	}
	var out Batch
	for _, ks := range order {
		rows := parts[ks]
		slices.SortStableFunc(rows, func(a, b Update) int { return types.Compare(a.Row[ts], b.Row[ts]) })
		for i := 0; i < len(rows); {
			j := i + 1
			for j < len(rows) && rows[j].Row[ts].Int()-rows[j-1].Row[ts].Int() < gap {
				j++
			}
			start, end := rows[i].Row[ts].Int(), rows[j-1].Row[ts].Int()+gap
			for _, u := range rows[i:j] {
				r := append(append(types.Row(nil), u.Row...), types.NewTimestamp(start), types.NewTimestamp(end))
				out = append(out, Update{Row: r, Diff: u.Diff})
			}
			i = j
		}
	}
	return out.Consolidate()
}
