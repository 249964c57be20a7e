package scalar

import (
	"strings"

	"github.com/streamdb/streamdb/types"
)

// Volatility is PostgreSQL's provolatile: whether a function's result
// depends only on its arguments (immutable), also on the statement's
// snapshot and settings (stable), or may change on every call (volatile).
// Only immutable calls are folded at plan time.
type Volatility uint8

// Volatility values, from most to least foldable.
const (
	Immutable Volatility = iota
	Stable
	Volatile
)

func (v Volatility) String() string {
	switch v {
	case Immutable:
		return "immutable"
	case Stable:
		return "stable"
	}
	return "volatile"
}

// Impl implements a function on evaluated arguments. For a strict function
// no argument is NULL. args is scratch space owned by the caller: an Impl
// must not retain it.
type Impl func(ctx *EvalContext, args []types.Datum) (types.Datum, error)

// Func is one overload of a function or operator.
type Func struct {
	// Name is the function name, or the operator symbol for operators.
	Name string
	// Params are the parameter types. In the library they may be
	// polymorphic pseudo-types (AnyElement, AnyArray…); the *Func returned
	// by resolution has them replaced by the concrete types.
	Params []types.Type
	// Variadic means the last parameter repeats zero or more times
	// (concat, format, jsonb_build_object…).
	Variadic bool
	// Ret is the result type; concrete after resolution.
	Ret types.Type
	// Volatility decides whether calls may be folded.
	Volatility Volatility
	// Strict functions return NULL, without being called, when any
	// argument is NULL.
	Strict bool
	// Op marks an operator, printed infix (binary) or prefix (unary).
	Op bool
	// Session marks a function that reads the session or its catalog
	// (EvalContext.Session): stable, but not because of the session's
	// settings, so a view cannot pin it (see Pinned).
	Session bool
	// Impl computes the result.
	Impl Impl

	// retFn computes Ret from the concrete argument types when the result
	// type depends on them beyond polymorphism (numeric typmods dropped,
	// array element types).
	retFn func(args []types.Type) types.Type
	// binary, if set, is the two-argument form of Impl; compiled calls use
	// it to pass operands directly instead of through the scratch slice.
	binary Binary
	// prepare, if set, builds a specialised Impl at compile time from the
	// argument expressions, e.g. a LIKE pattern compiled once when it is a
	// constant. It returns nil to keep the generic Impl.
	prepare func(args []Expr) Impl
}

// Signature returns the function as PostgreSQL prints it in errors:
// name(type, type).
func (f *Func) Signature() string {
	var b strings.Builder
	b.WriteString(f.Name)
	b.WriteByte('(')
	for i, p := range f.Params {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(typeName(p))
	}
	b.WriteByte(')')
	return b.String()
}

// instantiate returns a copy of f for concrete argument types.
func (f *Func) instantiate(params []types.Type, ret types.Type) *Func {
	c := *f
	c.Params = params
	c.Ret = ret
	return &c
}

// registry holds the library: functions by name, binary and unary
// operators by symbol. It is filled by init functions of the library files
// and read-only afterwards.
type registry struct {
	funcs   map[string][]*Func
	binOps  map[string][]*Func
	unOps   map[string][]*Func
	aggs    map[string][]*AggFunc
	windows map[string][]*WindowFunc
	tables  map[string][]*TableFunc
}

var lib = registry{
	funcs:   map[string][]*Func{},
	binOps:  map[string][]*Func{},
	unOps:   map[string][]*Func{},
	aggs:    map[string][]*AggFunc{},
	windows: map[string][]*WindowFunc{},
	tables:  map[string][]*TableFunc{},
}

// addFunc registers function overloads.
func addFunc(fs ...*Func) {
	for _, f := range fs {
		lib.funcs[f.Name] = append(lib.funcs[f.Name], f)
	}
}

// addOp registers operator overloads, binary or unary by parameter count.
func addOp(fs ...*Func) {
	for _, f := range fs {
		f.Op = true
		if len(f.Params) == 2 {
			lib.binOps[f.Name] = append(lib.binOps[f.Name], f)
		} else {
			lib.unOps[f.Name] = append(lib.unOps[f.Name], f)
		}
	}
}

// strict returns an immutable strict overload, the common case.
func strict(name string, params []types.Type, ret types.Type, impl Impl) *Func {
	return &Func{Name: name, Params: params, Ret: ret, Strict: true, Impl: impl}
}

// Binary is the fast form of a two-argument implementation.
type Binary func(a, b types.Datum) (types.Datum, error)

// strictBin returns an immutable strict binary overload with its fast form.
func strictBin(name string, params []types.Type, ret types.Type, f Binary) *Func {
	return &Func{Name: name, Params: params, Ret: ret, Strict: true, binary: f,
		Impl: func(_ *EvalContext, a []types.Datum) (types.Datum, error) { return f(a[0], a[1]) }}
}

// ts is shorthand for a parameter list.
func ts(t ...types.Type) []types.Type { return t }

// Lookup returns the registered overloads of a function name, for catalog
// listings and tests.
func Lookup(name string) []*Func { return lib.funcs[name] }

// fn2 adapts a two-argument function to Impl.
func fn2(f func(a, b types.Datum) (types.Datum, error)) Impl {
	return func(_ *EvalContext, args []types.Datum) (types.Datum, error) { return f(args[0], args[1]) }
}
