package scalar

import (
	"math/bits"
	"slices"

	"github.com/streamdb/streamdb/types"
)

// Walk calls fn on e and its descendants in pre-order. When fn returns
// false the node's children are skipped.
func Walk(e Expr, fn func(Expr) bool) {
	if !fn(e) {
		return
	}
	for _, c := range e.Children() {
		Walk(c, fn)
	}
}

// Rewrite rebuilds e bottom-up: children first, then fn on the node with
// its rewritten children. fn returns its argument to keep a node. Nodes
// whose subtree did not change are shared, not copied.
func Rewrite(e Expr, fn func(Expr) Expr) Expr {
	kids := e.Children()
	var changed []Expr
	for i, c := range kids {
		n := Rewrite(c, fn)
		if n != c && changed == nil {
			changed = slices.Clone(kids)
		}
		if changed != nil {
			changed[i] = n
		}
	}
	if changed != nil {
		e = e.WithChildren(changed)
	}
	return fn(e)
}

// ColSet is a set of column positions.
type ColSet struct{ words []uint64 }

// Add inserts column i.
func (s *ColSet) Add(i int) {
	w := i / 64
	for len(s.words) <= w {
		s.words = append(s.words, 0)
	}
	s.words[w] |= 1 << (i % 64)
}

// Contains reports whether column i is in the set.
func (s ColSet) Contains(i int) bool {
	w := i / 64
	return w < len(s.words) && s.words[w]&(1<<(i%64)) != 0
}

// Len returns the number of columns in the set.
func (s ColSet) Len() int {
	n := 0
	for _, w := range s.words {
		n += bits.OnesCount64(w)
	}
	return n
}

// Ordered returns the columns in increasing order.
func (s ColSet) Ordered() []int {
	var out []int
	for wi, w := range s.words {
		for w != 0 {
			b := bits.TrailingZeros64(w)
			out = append(out, wi*64+b)
			w &^= 1 << b
		}
	}
	return out
}

// Columns returns the set of input columns e reads.
func Columns(e Expr) ColSet {
	var s ColSet
	Walk(e, func(n Expr) bool {
		if c, ok := n.(*ColRef); ok {
			s.Add(c.Idx)
		}
		return true
	})
	return s
}

// ColumnsUsed returns the input columns e reads, sorted and distinct.
func ColumnsUsed(e Expr) []int { return Columns(e).Ordered() }

// RemapColumns returns e with every column reference #i replaced by
// #m[i]. It is how the planner re-targets an expression when it changes the
// shape of the input (projection pruning, join sides). A reference outside
// m, or mapped to a negative position, is a planner bug and panics.
func RemapColumns(e Expr, m []int) Expr {
	return Rewrite(e, func(n Expr) Expr {
		if c, ok := n.(*ColRef); ok {
			if m[c.Idx] < 0 {
				panic(internalf("column #%d is not available after remapping", c.Idx))
			}
			return &ColRef{Idx: m[c.Idx], Typ: c.Typ}
		}
		return n
	})
}

// ShiftColumns returns e with every column reference moved by delta, as
// when an expression over the right input of a join is evaluated on the
// concatenated row.
func ShiftColumns(e Expr, delta int) Expr {
	if delta == 0 {
		return e
	}
	return Rewrite(e, func(n Expr) Expr {
		if c, ok := n.(*ColRef); ok {
			return &ColRef{Idx: c.Idx + delta, Typ: c.Typ}
		}
		return n
	})
}

// IsConstant reports whether e reads no column, no parameter and calls
// only immutable functions, so that it has one value for the whole plan.
func IsConstant(e Expr) bool {
	constant := true
	Walk(e, func(n Expr) bool {
		switch n := n.(type) {
		case *ColRef, *Param:
			constant = false
		case *Call:
			if n.Fn.Volatility != Immutable {
				constant = false
			}
		case *AnyAll:
			if n.Op.Volatility != Immutable {
				constant = false
			}
		case *Const, *Cast, *And, *Or, *Not, *IsNull, *IsTruth, *IsUnknown, *IsDistinctFrom,
			*Case, *Coalesce, *NullIf, *Greatest, *Least, *In, *ArrayExpr, *Subscript, *Slice, *RowExpr, *FieldSelect:
		case *Pinned:
			// Its call depends on no session: only its arguments count.
			for _, a := range n.Arg.Children() {
				constant = constant && IsConstant(a)
			}
			return false
		default:
			constant = false
		}
		return constant
	})
	return constant
}

// MaxVolatility returns the most volatile function e calls.
func MaxVolatility(e Expr) Volatility {
	v := Immutable
	Walk(e, func(n Expr) bool {
		if p, ok := n.(*Pinned); ok {
			// The pinned call itself is immutable; its arguments
			// count.
			for _, a := range p.Arg.Children() {
				v = max(v, MaxVolatility(a))
			}
			return false
		}
		if c, ok := n.(*Call); ok && c.Fn.Volatility > v {
			v = c.Fn.Volatility
		}
		return true
	})
	return v
}

// Conjuncts splits a predicate into its top-level AND arguments.
func Conjuncts(e Expr) []Expr {
	if a, ok := e.(*And); ok {
		var out []Expr
		for _, x := range a.Args {
			out = append(out, Conjuncts(x)...)
		}
		return out
	}
	return []Expr{e}
}

// NewAnd joins conjuncts: true for none, the conjunct itself for one.
func NewAnd(es []Expr) Expr {
	switch len(es) {
	case 0:
		return NewConst(types.DTrue, types.TypeBool)
	case 1:
		return es[0]
	}
	return &And{Args: es}
}
