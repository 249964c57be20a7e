package dataflow

import "hash/maphash"

// Distinct returns every row of src with positive multiplicity once
// (SELECT DISTINCT, UNION): multiplicity n becomes 1 if n > 0, else 0.
// It is Threshold with one input, and keeps the same state: each distinct
// row with its count.
//
//	input:  +(1) +(1) +(2)   -(1)        -(1)
//	output: +(1) +(2)        (nothing)   -(1)
func (g *Graph) Distinct(src Node) Node {
	out := new(stream)
	op := &thresholdOp{
		g: g, l: g.input(src), out: out, f: distinctCount, name: "Distinct",
		rows: newTable(maphash.MakeSeed()), sk: g.stateKeys(),
	}
	return g.add(op, out)
}

func distinctCount(lc, _ int64) int64 {
	if lc > 0 {
		return 1
	}
	return 0
}
