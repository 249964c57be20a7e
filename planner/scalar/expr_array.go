package scalar

import "github.com/streamdb/streamdb/types"

// ArrayExpr is ARRAY[Elems...]; every element has been cast to the element
// type of Typ.
type ArrayExpr struct {
	Elems []Expr
	Typ   types.Type
}

// Subscript is Arr[Index] with PostgreSQL's 1-based indexing; an index out
// of bounds or NULL gives NULL.
type Subscript struct {
	Arr   Expr
	Index Expr
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
func (e *AnyAll) Type() types.Type    { return types.TypeBool }

func (e *ArrayExpr) Children() []Expr { return e.Elems }
func (e *Subscript) Children() []Expr { return []Expr{e.Arr, e.Index} }
func (e *AnyAll) Children() []Expr    { return []Expr{e.Arg, e.Array} }

// WithChildren returns a copy with new elements.
func (e *ArrayExpr) WithChildren(c []Expr) Expr { return &ArrayExpr{Elems: c, Typ: e.Typ} }

// WithChildren returns a copy with a new array and index.
func (e *Subscript) WithChildren(c []Expr) Expr { return &Subscript{Arr: c[0], Index: c[1]} }

// WithChildren returns a copy with new operands.
func (e *AnyAll) WithChildren(c []Expr) Expr {
	return &AnyAll{Arg: c[0], Op: e.Op, Array: c[1], All: e.All}
}
