package dataflow

import (
	"bytes"
	"fmt"

	"github.com/streamdb/streamdb/types"
)

// checkConsolidated panics unless b is consolidated: strictly increasing
// key encodings and no zero weights. It runs only under the invariants
// build tag; a violation is an engine bug, not a data error.
func checkConsolidated(b Batch) {
	var prev []byte
	for i, u := range b {
		if u.Diff == 0 {
			panic(fmt.Sprintf("dataflow: invariant: zero weight at %d in consolidated batch", i))
		}
		k := types.AppendKeyRow(nil, u.Row)
		if i > 0 && bytes.Compare(prev, k) >= 0 {
			panic(fmt.Sprintf("dataflow: invariant: batch not sorted at %d", i))
		}
		prev = k
	}
}

// checkErrorsConsolidated panics unless errs is sorted, merged and free
// of zero weights.
func checkErrorsConsolidated(errs []ErrorUpdate) {
	for i, e := range errs {
		if e.Diff == 0 {
			panic(fmt.Sprintf("dataflow: invariant: zero weight at %d in consolidated errors", i))
		}
		if i > 0 && compareErrors(errs[i-1].Err, e.Err) >= 0 {
			panic(fmt.Sprintf("dataflow: invariant: errors not sorted at %d", i))
		}
	}
}
