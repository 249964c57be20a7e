package scalar

import (
	"github.com/streamdb/streamdb/types"
)

// Expr is a typed scalar expression. Nodes are immutable once built; the
// rewriting helpers copy on write. Children returns the direct
// sub-expressions in evaluation order and WithChildren returns a copy of the
// node with them replaced (same length and order), which is what lets Walk
// and Rewrite traverse node kinds defined outside this package.
type Expr interface {
	Type() types.Type
	String() string
	Children() []Expr
	WithChildren(children []Expr) Expr
}

// ColRef reads input column Idx.
type ColRef struct {
	Idx int
	Typ types.Type
}

// Const is a constant value; Val is NULL for a typed NULL.
type Const struct {
	Val types.Datum
	Typ types.Type
}

// Param is the statement parameter $(Idx+1), read from EvalContext.Params.
type Param struct {
	Idx int
	Typ types.Type
}

// Cast converts Arg to type To. Kind is the context the cast was inserted
// in: the zero value means an explicit CAST (over-long strings are
// truncated to varchar(n)); types.CastAssignment or CastImplicit make
// them a 22001 error, as on INSERT.
type Cast struct {
	Arg  Expr
	To   types.Type
	Kind types.CastKind
}

// Call applies a resolved function or operator. Fn is the overload chosen by
// resolution, instantiated for the argument types, so Fn.Ret is the call's
// type.
type Call struct {
	Fn   *Func
	Args []Expr
}

func (e *ColRef) Type() types.Type { return e.Typ }
func (e *Const) Type() types.Type  { return e.Typ }
func (e *Param) Type() types.Type  { return e.Typ }
func (e *Cast) Type() types.Type   { return e.To }
func (e *Call) Type() types.Type   { return e.Fn.Ret }

func (e *ColRef) Children() []Expr { return nil }
func (e *Const) Children() []Expr  { return nil }
func (e *Param) Children() []Expr  { return nil }
func (e *Cast) Children() []Expr   { return []Expr{e.Arg} }
func (e *Call) Children() []Expr   { return e.Args }

// WithChildren returns e itself: a column reference has no children.
func (e *ColRef) WithChildren([]Expr) Expr { return e }

// WithChildren returns e itself: a constant has no children.
func (e *Const) WithChildren([]Expr) Expr { return e }

// WithChildren returns e itself: a parameter has no children.
func (e *Param) WithChildren([]Expr) Expr { return e }

// WithChildren returns a copy of the cast with a new argument.
func (e *Cast) WithChildren(c []Expr) Expr { return &Cast{Arg: c[0], To: e.To, Kind: e.Kind} }

// WithChildren returns a copy of the call with new arguments.
func (e *Call) WithChildren(c []Expr) Expr { return &Call{Fn: e.Fn, Args: c} }

// NewConst returns a constant of type t.
func NewConst(d types.Datum, t types.Type) *Const { return &Const{Val: d, Typ: t} }

// NullOf returns a typed NULL constant.
func NullOf(t types.Type) *Const { return &Const{Typ: t} }
