package sql

import (
	"slices"
	"strings"

	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/planner"
	"github.com/streamdb/streamdb/planner/scalar"
	"github.com/streamdb/streamdb/types"
)

// keyInterval is the half-open range [start, end) of storage keys one or
// more key spans select; an empty end is unbounded. point marks the
// interval of one whole key, read with a single lookup.
type keyInterval struct {
	start, end string
	point      bool
}

// spanIntervals evaluates a Get's primary-key spans into sorted, disjoint
// storage-key intervals. keyLen is the number of primary key columns.
// Storage keys are the key encoding of the primary key columns, whose
// bytewise order is the columns' order, so a span is one contiguous range:
// its prefix values fix the leading bytes and its bounds the next
// column's. A span whose values include NULL matches nothing, as a
// comparison with NULL is never true.
func spanIntervals(get *planner.Get, keyLen int, ev *scalar.EvalContext) ([]keyInterval, error) {
	var out []keyInterval
	var buf []byte
	for _, sp := range get.Spans {
		var ok bool
		var err error
		if _, buf, ok, err = spanPrefix(get, sp, ev, buf[:0]); err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		prefix := string(buf)
		if sp.Lo == nil && sp.Hi == nil {
			out = append(out, keyInterval{start: prefix, end: keyPrefixEnd(prefix), point: len(sp.Prefix) == keyLen})
			continue
		}
		colType := get.Cols[get.KeyCols[len(sp.Prefix)]].Type
		// Without a lower bound the range starts at the prefix; without
		// an upper one it ends before the NULLs, which sort last.
		iv := keyInterval{start: prefix, end: prefix + "\xff"}
		if sp.Lo != nil {
			d, side, err := evalKeyValue(ev, sp.Lo.Value, colType)
			if err != nil {
				return nil, err
			}
			switch {
			case d.IsNull() || side > 0:
				continue
			case side == 0:
				iv.start = string(types.AppendKey([]byte(prefix), d, false))
				if !sp.Lo.Inclusive {
					iv.start = keyPrefixEnd(iv.start)
				}
			}
		}
		if sp.Hi != nil {
			d, side, err := evalKeyValue(ev, sp.Hi.Value, colType)
			if err != nil {
				return nil, err
			}
			switch {
			case d.IsNull() || side < 0:
				continue
			case side == 0:
				iv.end = string(types.AppendKey([]byte(prefix), d, false))
				if sp.Hi.Inclusive {
					iv.end = keyPrefixEnd(iv.end)
				}
			}
		}
		if iv.end == "" || iv.start < iv.end {
			out = append(out, iv)
		}
	}
	return mergeIntervals(out), nil
}

// mergeIntervals sorts intervals and joins those that overlap, so that no
// row is read twice.
func mergeIntervals(ivs []keyInterval) []keyInterval {
	if len(ivs) < 2 {
		return ivs
	}
	slices.SortFunc(ivs, func(a, b keyInterval) int { return strings.Compare(a.start, b.start) })
	out := ivs[:1]
	for _, iv := range ivs[1:] {
		last := &out[len(out)-1]
		if last.end != "" && iv.start >= last.end {
			out = append(out, iv)
			continue
		}
		if last.end != "" && (iv.end == "" || iv.end > last.end) {
			last.end = iv.end
		}
		last.point = last.point && iv.point && iv.start == last.start
	}
	return out
}

// spanPoints evaluates a Get's point spans (an index lookup's) into
// distinct key rows of the key columns' types.
func spanPoints(get *planner.Get, ev *scalar.EvalContext) ([]types.Row, error) {
	var out []types.Row
	seen := map[string]bool{}
	var buf []byte
	for _, sp := range get.Spans {
		var key types.Row
		var ok bool
		var err error
		if key, buf, ok, err = spanPrefix(get, sp, ev, buf[:0]); err != nil {
			return nil, err
		}
		if ok && !seen[string(buf)] {
			seen[string(buf)] = true
			out = append(out, key)
		}
	}
	return out, nil
}

// spanPrefix evaluates a span's equality prefix: its values and their
// key encoding appended to buf. ok is false when a value is NULL or lies
// outside its column's type, so that no key matches.
func spanPrefix(get *planner.Get, sp planner.KeySpan, ev *scalar.EvalContext, buf []byte) (types.Row, []byte, bool, error) {
	key := make(types.Row, len(sp.Prefix))
	for i, e := range sp.Prefix {
		d, side, err := evalKeyValue(ev, e, get.Cols[get.KeyCols[i]].Type)
		if err != nil || d.IsNull() || side != 0 {
			return nil, buf, false, err
		}
		key[i] = d
		buf = types.AppendKey(buf, d, false)
	}
	return key, buf, true, nil
}

// evalKeyValue evaluates a span value and converts it to the key column's
// type t. An integer of another width converts by value; side is -1 or +1
// when it lies below or above t's range (no key equals it), else 0.
func evalKeyValue(ev *scalar.EvalContext, e scalar.Expr, t types.Type) (types.Datum, int, error) {
	d, err := scalar.Eval(ev, e, nil)
	if err != nil || d.IsNull() || d.Kind() == t.Family {
		return d, 0, err
	}
	if !d.Kind().IsInteger() || !t.Family.IsInteger() {
		return types.Datum{}, 0, pgerr.New(pgerr.InternalError, "key value of type %s for a key column of type %s", e.Type(), t)
	}
	lo, hi := types.IntRange(t.Family)
	switch v := d.Int(); {
	case v < lo:
		return d, -1, nil
	case v > hi:
		return d, 1, nil
	default:
		return types.NewInt(t.Family, v), 0, nil
	}
}

// keyPrefixEnd returns the smallest key greater than every key starting
// with prefix, or "" (unbounded) when there is none.
func keyPrefixEnd(prefix string) string {
	b := []byte(prefix)
	for i := len(b) - 1; i >= 0; i-- {
		b[i]++
		if b[i] != 0 {
			return string(b[:i+1])
		}
	}
	return ""
}
