package scalar

import "github.com/streamdb/streamdb/types"

// ArrayExpr is ARRAY[Elems...]; every element has been cast to the element
// type of Typ, or, for a multidimensional ARRAY[ARRAY[...], ...], to Typ
// itself: its elements are the sub-arrays, which must all have the same
// dimensions.
type ArrayExpr struct {
	Elems []Expr
	Typ   types.Type
}

// Subscript is Arr[Index[0]][Index[1]]... with PostgreSQL's 1-based
// indexing: one subscript per dimension reaches an element; a subscript
// out of bounds, a NULL one or a count that is not the array's number of
// dimensions gives NULL.
type Subscript struct {
	Arr   Expr
	Index []Expr
}

// Slice is Arr[Lower[0]:Upper[0]]...: the sub-array within the bounds,
// one pair per dimension from the first (dimensions without a pair are
// taken whole), a nil bound meaning the dimension's edge. Bounds are
// clipped to the array; an empty range in any dimension, or more pairs
// than dimensions, gives the empty array, and a NULL bound NULL.
type Slice struct {
	Arr          Expr
	Lower, Upper []Expr
}

// AnyAll is "Arg Op ANY(Array)" (or ALL when All is set). Op is the resolved
// boolean operator applied to Arg and each element. ANY is true if any
// comparison is true, else NULL if any was NULL, else false; ALL is false if
// any is false, else NULL if any was NULL, else true.
type AnyAll struct {
	Arg   Expr
	Op    *Func
	Array Expr
	All   bool
}

func (e *ArrayExpr) Type() types.Type { return e.Typ }
func (e *Subscript) Type() types.Type { return e.Arr.Type().ElemType() }
func (e *Slice) Type() types.Type     { return e.Arr.Type() }
func (e *AnyAll) Type() types.Type    { return types.TypeBool }

// multi reports whether the elements are sub-arrays.
func (e *ArrayExpr) multi() bool {
	return len(e.Elems) > 0 && e.Elems[0].Type().Family == types.Array
}

func (e *ArrayExpr) Children() []Expr { return e.Elems }
func (e *Subscript) Children() []Expr { return append([]Expr{e.Arr}, e.Index...) }
func (e *AnyAll) Children() []Expr    { return []Expr{e.Arg, e.Array} }

// Children returns the array and the bounds that are present.
func (e *Slice) Children() []Expr {
	c := []Expr{e.Arr}
	for _, bs := range [][]Expr{e.Lower, e.Upper} {
		for _, b := range bs {
			if b != nil {
				c = append(c, b)
			}
		}
	}
	return c
}

// WithChildren returns a copy with new elements.
func (e *ArrayExpr) WithChildren(c []Expr) Expr { return &ArrayExpr{Elems: c, Typ: e.Typ} }

// WithChildren returns a copy with a new array and subscripts.
func (e *Subscript) WithChildren(c []Expr) Expr {
	return &Subscript{Arr: c[0], Index: append([]Expr(nil), c[1:]...)}
}

// WithChildren returns a copy with a new array and bounds, in the order
// Children lists them.
func (e *Slice) WithChildren(c []Expr) Expr {
	out := &Slice{Arr: c[0], Lower: make([]Expr, len(e.Lower)), Upper: make([]Expr, len(e.Upper))}
	next := 1
	for i, b := range e.Lower {
		if b != nil {
			out.Lower[i], next = c[next], next+1
		}
	}
	for i, b := range e.Upper {
		if b != nil {
			out.Upper[i], next = c[next], next+1
		}
	}
	return out
}

// WithChildren returns a copy with new operands.
func (e *AnyAll) WithChildren(c []Expr) Expr {
	return &AnyAll{Arg: c[0], Op: e.Op, Array: c[1], All: e.All}
}
