package scalar

import "github.com/streamdb/streamdb/types"

// And is the conjunction of Args with SQL's three-valued logic: false if any
// argument is false, else NULL if any is NULL, else true. Evaluation stops
// at the first false.
type And struct{ Args []Expr }

// Or is the disjunction of Args: true if any argument is true, else NULL if
// any is NULL, else false. Evaluation stops at the first true.
type Or struct{ Args []Expr }

// Not negates a boolean; NOT NULL is NULL.
type Not struct{ Arg Expr }

// IsNull is "Arg IS NULL", or "Arg IS NOT NULL" when Not is set. Never NULL.
type IsNull struct {
	Arg Expr
	Not bool
}

// IsTruth is "Arg IS TRUE" (Want true) or "Arg IS FALSE" (Want false),
// negated by Not. NULL is neither true nor false. Never NULL.
type IsTruth struct {
	Arg  Expr
	Want bool
	Not  bool
}

// IsUnknown is "Arg IS UNKNOWN" (or IS NOT UNKNOWN): whether a boolean is
// NULL.
type IsUnknown struct {
	Arg Expr
	Not bool
}

// IsDistinctFrom is "L IS DISTINCT FROM R" (or IS NOT DISTINCT FROM): an
// equality test in which NULL equals NULL and differs from every value.
// L and R have the same type (the binder casts them).
type IsDistinctFrom struct {
	L, R Expr
	Not  bool
}

func (e *And) Type() types.Type            { return types.TypeBool }
func (e *Or) Type() types.Type             { return types.TypeBool }
func (e *Not) Type() types.Type            { return types.TypeBool }
func (e *IsNull) Type() types.Type         { return types.TypeBool }
func (e *IsTruth) Type() types.Type        { return types.TypeBool }
func (e *IsUnknown) Type() types.Type      { return types.TypeBool }
func (e *IsDistinctFrom) Type() types.Type { return types.TypeBool }

func (e *And) Children() []Expr            { return e.Args }
func (e *Or) Children() []Expr             { return e.Args }
func (e *Not) Children() []Expr            { return []Expr{e.Arg} }
func (e *IsNull) Children() []Expr         { return []Expr{e.Arg} }
func (e *IsTruth) Children() []Expr        { return []Expr{e.Arg} }
func (e *IsUnknown) Children() []Expr      { return []Expr{e.Arg} }
func (e *IsDistinctFrom) Children() []Expr { return []Expr{e.L, e.R} }

// WithChildren returns a copy with new arguments.
func (e *And) WithChildren(c []Expr) Expr { return &And{Args: c} }

// WithChildren returns a copy with new arguments.
func (e *Or) WithChildren(c []Expr) Expr { return &Or{Args: c} }

// WithChildren returns a copy with a new argument.
func (e *Not) WithChildren(c []Expr) Expr { return &Not{Arg: c[0]} }

// WithChildren returns a copy with a new argument.
func (e *IsNull) WithChildren(c []Expr) Expr { return &IsNull{Arg: c[0], Not: e.Not} }

// WithChildren returns a copy with a new argument.
func (e *IsTruth) WithChildren(c []Expr) Expr {
	return &IsTruth{Arg: c[0], Want: e.Want, Not: e.Not}
}

// WithChildren returns a copy with a new argument.
func (e *IsUnknown) WithChildren(c []Expr) Expr { return &IsUnknown{Arg: c[0], Not: e.Not} }

// WithChildren returns a copy with new operands.
func (e *IsDistinctFrom) WithChildren(c []Expr) Expr {
	return &IsDistinctFrom{L: c[0], R: c[1], Not: e.Not}
}
