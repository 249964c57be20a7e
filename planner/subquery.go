package planner

import (
	"fmt"

	"github.com/streamdb/streamdb/planner/scalar"
	"github.com/streamdb/streamdb/types"
)

// SubqueryKind says what a Subquery expression computes from its rows.
type SubqueryKind uint8

// Subquery kinds.
const (
	// ExistsSubquery is true when the subquery returns a row.
	ExistsSubquery SubqueryKind = iota
	// ScalarSubquery is the single value of the single row returned, NULL
	// for no row, and error 21000 for more than one.
	ScalarSubquery
	// AnySubquery is Arg Op ANY (subquery), also written IN.
	AnySubquery
	// AllSubquery is Arg Op ALL (subquery).
	AllSubquery
	// ArraySubquery is ARRAY(subquery).
	ArraySubquery
)

// Subquery is a scalar expression whose value comes from a nested query.
// The binder creates it; the decorrelation rules remove it, so Compile
// never sees one.
type Subquery struct {
	Kind SubqueryKind
	Plan Node
	// Args are the left operands of ANY and ALL (one per subquery
	// column); Op compares Args[i] with the subquery's column i.
	Args []scalar.Expr
	Ops  []*scalar.Func
	// Order is an ARRAY subquery's ORDER BY over the columns of Plan,
	// which then keeps the sort columns after its first.
	Order []SortKey
	Typ   types.Type
}

// Type returns the result type.
func (e *Subquery) Type() types.Type { return e.Typ }

// Children returns the ANY/ALL operands; the nested plan is not a scalar
// child.
func (e *Subquery) Children() []scalar.Expr { return e.Args }

// WithChildren returns a copy with new operands.
func (e *Subquery) WithChildren(c []scalar.Expr) scalar.Expr {
	s := *e
	s.Args = c
	return &s
}

func (e *Subquery) String() string {
	switch e.Kind {
	case ExistsSubquery:
		return "exists(subquery)"
	case AnySubquery:
		return fmt.Sprintf("%v %s any(subquery)", e.Args, e.Ops[0].Name)
	case AllSubquery:
		return fmt.Sprintf("%v %s all(subquery)", e.Args, e.Ops[0].Name)
	case ArraySubquery:
		return "array(subquery)"
	}
	return "(subquery)"
}

// OuterRef reads column Idx of the row of the query Depth levels up: 1 is
// the query immediately enclosing the subquery the reference appears in.
type OuterRef struct {
	Depth int
	Idx   int
	Typ   types.Type
}

// Type returns the column's type.
func (e *OuterRef) Type() types.Type { return e.Typ }

// Children returns nil.
func (e *OuterRef) Children() []scalar.Expr { return nil }

// WithChildren returns e.
func (e *OuterRef) WithChildren([]scalar.Expr) scalar.Expr { return e }

func (e *OuterRef) String() string { return fmt.Sprintf("outer(%d)#%d", e.Depth, e.Idx) }
