package scalar

import "github.com/streamdb/streamdb/types"

// When is one WHEN cond THEN result arm of a searched CASE.
type When struct {
	Cond   Expr
	Result Expr
}

// Case is a searched CASE; the binder rewrites the simple form into it.
// Arms are tried in order and only the chosen result is evaluated. Else is
// nil when absent (NULL). Typ is the common result type; every result has
// been cast to it.
type Case struct {
	Whens []When
	Else  Expr
	Typ   types.Type
}

// Coalesce returns its first non-NULL argument, evaluating no further.
type Coalesce struct {
	Args []Expr
	Typ  types.Type
}

// NullIf is NULLIF(L, R): NULL when L = R, else L. L and R have the same
// type.
type NullIf struct{ L, R Expr }

// Greatest is GREATEST(Args...), ignoring NULLs (NULL only when all are).
type Greatest struct {
	Args []Expr
	Typ  types.Type
}

// Least is LEAST(Args...), ignoring NULLs.
type Least struct {
	Args []Expr
	Typ  types.Type
}

// In is "Arg [NOT] IN (List...)". Every element has Arg's type. With no
// match the result is NULL if Arg or any element is NULL, as in PostgreSQL.
type In struct {
	Arg  Expr
	List []Expr
	Not  bool
}

func (e *Case) Type() types.Type     { return e.Typ }
func (e *Coalesce) Type() types.Type { return e.Typ }
func (e *NullIf) Type() types.Type   { return e.L.Type() }
func (e *Greatest) Type() types.Type { return e.Typ }
func (e *Least) Type() types.Type    { return e.Typ }
func (e *In) Type() types.Type       { return types.TypeBool }

// Children lists the arms' conditions and results, then Else if present.
func (e *Case) Children() []Expr {
	c := make([]Expr, 0, 2*len(e.Whens)+1)
	for _, w := range e.Whens {
		c = append(c, w.Cond, w.Result)
	}
	if e.Else != nil {
		c = append(c, e.Else)
	}
	return c
}

func (e *Coalesce) Children() []Expr { return e.Args }
func (e *NullIf) Children() []Expr   { return []Expr{e.L, e.R} }
func (e *Greatest) Children() []Expr { return e.Args }
func (e *Least) Children() []Expr    { return e.Args }

// Children lists Arg then the list elements.
func (e *In) Children() []Expr { return append([]Expr{e.Arg}, e.List...) }

// WithChildren rebuilds the arms from c, in the order Children lists them.
func (e *Case) WithChildren(c []Expr) Expr {
	n := &Case{Whens: make([]When, len(e.Whens)), Typ: e.Typ}
	for i := range e.Whens {
		n.Whens[i] = When{Cond: c[2*i], Result: c[2*i+1]}
	}
	if e.Else != nil {
		n.Else = c[2*len(e.Whens)]
	}
	return n
}

// WithChildren returns a copy with new arguments.
func (e *Coalesce) WithChildren(c []Expr) Expr { return &Coalesce{Args: c, Typ: e.Typ} }

// WithChildren returns a copy with new operands.
func (e *NullIf) WithChildren(c []Expr) Expr { return &NullIf{L: c[0], R: c[1]} }

// WithChildren returns a copy with new arguments.
func (e *Greatest) WithChildren(c []Expr) Expr { return &Greatest{Args: c, Typ: e.Typ} }

// WithChildren returns a copy with new arguments.
func (e *Least) WithChildren(c []Expr) Expr { return &Least{Args: c, Typ: e.Typ} }

// WithChildren returns a copy with a new argument and list.
func (e *In) WithChildren(c []Expr) Expr { return &In{Arg: c[0], List: c[1:], Not: e.Not} }
