package dataflow

import "github.com/streamdb/streamdb/types"

// A numbered MonotonicTopK (TopKSpec.Number) emits each row of a group's
// window followed by its position in the window, from 1: row_number()
// over the group in the top-k's order, for the top-N-per-group idiom
// (WHERE row_number() OVER (PARTITION BY g ORDER BY o) <= N), which the
// planner would otherwise lower as a Window over the top-k. That Window
// kept the window's rows a second time, decoded (Nexmark q9's winning
// bid of every auction: a third of the view's state), and re-sorted each
// tick's changes to number them, where the top-k has them in order.
//
// A row of multiplicity n takes n positions, as row_number() gives n
// equal rows n numbers. The output of a tick is the difference of the
// numbered windows before and after it, position by position: a
// (row, number) pair can stand only at its number's position, so the
// difference of the two lists is the rows that differ at a position.
//
//	spec:   ORDER BY x LIMIT 2, numbered
//	input:  +(5)      +(3)                 +(4)
//	output: +(5, 1)   -(5, 1) +(3, 1)      -(5, 2) +(4, 2)
//	                  +(5, 2)

// emitNumbered appends the numbered difference of two windows, a after
// the tick and b before it.
func (op *monoTopKOp) emitNumbered(a, b []run) {
	var i, j int     // the runs at the current position
	var ui, uj int64 // units of a[i] and b[j] already numbered
	for pos := int64(1); i < len(a) || j < len(b); pos++ {
		same := i < len(a) && j < len(b) && op.compare(a[i].item, b[j].item) == 0
		if !same {
			if j < len(b) {
				op.out.delta = append(op.out.delta, Update{Row: op.numbered(op.keptRow(b[j].item), pos), Diff: -1})
			}
			if i < len(a) {
				op.out.delta = append(op.out.delta, Update{Row: op.numbered(op.keptRow(a[i].item), pos), Diff: 1})
			}
		}
		if i < len(a) {
			if ui++; ui == a[i].n {
				i, ui = i+1, 0
			}
		}
		if j < len(b) {
			if uj++; uj == b[j].n {
				j, uj = j+1, 0
			}
		}
	}
}

// numbered returns row followed by its position.
func (op *monoTopKOp) numbered(row types.Row, pos int64) types.Row {
	out := op.slab.row(len(row) + 1)
	copy(out, row)
	out[len(row)] = types.NewInt8(pos)
	return out
}
