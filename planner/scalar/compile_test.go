package scalar

import (
	"testing"

	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/types"
)

type foreignNode struct{}

func (foreignNode) Type() types.Type           { return int4T }
func (foreignNode) String() string             { return "foreign" }
func (foreignNode) Children() []Expr           { return nil }
func (f foreignNode) WithChildren([]Expr) Expr { return f }

func TestCompileRejectsUnknownNodes(t *testing.T) {
	_, err := Compile(&Not{Arg: &IsNull{Arg: foreignNode{}}})
	if pgerr.CodeOf(err) != pgerr.InternalError {
		t.Fatalf("got %v, want an internal error", err)
	}
}

func TestPredicate(t *testing.T) {
	row := types.Row{types.NewInt4(5), types.Null}
	for _, tc := range []struct {
		e    Expr
		want bool
	}{
		{call(t, ">", col(0, int4T), NewConst(types.NewInt4(3), int4T)), true},
		{call(t, ">", col(1, int4T), NewConst(types.NewInt4(3), int4T)), false}, // NULL
		{&And{Args: []Expr{NewConst(types.DTrue, boolT), call(t, "=", col(0, int4T), col(0, int4T))}}, true},
		{&Or{Args: []Expr{NullOf(boolT), NewConst(types.DTrue, boolT)}}, true},
	} {
		p, err := CompilePredicate(tc.e)
		if err != nil {
			t.Fatal(err)
		}
		got, err := p(nil, row)
		if err != nil || got != tc.want {
			t.Errorf("%s: got %v, %v", tc.e, got, err)
		}
	}
	if _, err := CompilePredicate(col(0, int4T)); pgerr.CodeOf(err) != pgerr.DatatypeMismatch {
		t.Errorf("non-boolean predicate: %v", err)
	}
}

// TestBinaryConst checks the compiled form of a strict binary call on a
// constant (compileBinaryConst): a column or an expression first, the
// constant widened or NULL, the call failing, a row too short.
func TestBinaryConst(t *testing.T) {
	row := types.Row{types.NewInt8(246), types.Null}
	int8Of := func(v int32) Expr { return &Cast{Arg: NewConst(types.NewInt4(v), int4T), To: int8T} }
	for _, tc := range []struct {
		e    Expr
		row  types.Row
		want string // the result's text, NULL, or the error's SQLSTATE
	}{
		{call(t, "=", call(t, "%", col(0, int8T), int8Of(123)), NewConst(types.NewInt4(0), int4T)), row, "t"},
		{call(t, "%", col(0, int8T), int8Of(100)), row, "46"},
		{call(t, "%", col(1, int8T), int8Of(100)), row, "NULL"},
		{call(t, "+", col(0, int8T), NullOf(int8T)), row, "NULL"},
		{call(t, "/", col(0, int8T), int8Of(0)), row, "22012"},
		{call(t, "+", call(t, "/", col(0, int8T), int8Of(0)), NullOf(int8T)), row, "22012"},
		{call(t, "-", call(t, "*", col(0, int8T), int8Of(2)), int8Of(2)), row, "490"},
		{call(t, "<", col(0, int8T), int8Of(1)), types.Row{}, "XX000"},
	} {
		ev, err := Compile(tc.e)
		if err != nil {
			t.Fatal(err)
		}
		d, err := ev(nil, tc.row)
		got := "NULL"
		switch {
		case err != nil:
			got = string(pgerr.CodeOf(err))
		case !d.IsNull():
			got = types.FormatText(d, tc.e.Type(), nil)
		}
		if got != tc.want {
			t.Errorf("%s: got %s, want %s", tc.e, got, tc.want)
		}
	}
}

func TestLazyEvaluation(t *testing.T) {
	div := call(t, "/", NewConst(types.NewInt4(1), int4T), col(0, int4T))
	row := types.Row{types.NewInt4(0)}
	for _, e := range []Expr{
		&Case{Whens: []When{{Cond: NewConst(types.DFalse, boolT), Result: div}}, Else: NewConst(types.NewInt4(7), int4T), Typ: int4T},
		&Coalesce{Args: []Expr{NewConst(types.NewInt4(7), int4T), div}, Typ: int4T},
	} {
		d, err := Eval(nil, e, row)
		if err != nil || d.Int() != 7 {
			t.Errorf("%s: got %v, %v", e, d, err)
		}
	}
	if _, err := Eval(nil, div, row); pgerr.CodeOf(err) != pgerr.DivisionByZero {
		t.Errorf("1/0: %v", err)
	}
}

func TestParams(t *testing.T) {
	e := call(t, "+", &Param{Idx: 0, Typ: int4T}, NewConst(types.NewInt4(1), int4T))
	d, err := Eval(&EvalContext{Params: []types.Datum{types.NewInt4(41)}}, e, nil)
	if err != nil || d.Int() != 42 {
		t.Fatalf("got %v, %v", d, err)
	}
	if _, err := Eval(&EvalContext{}, e, nil); pgerr.CodeOf(err) != pgerr.UndefinedParameter {
		t.Fatalf("missing parameter: %v", err)
	}
}

func TestInConstList(t *testing.T) {
	e := &In{Arg: col(0, int4T), List: []Expr{
		NewConst(types.NewInt4(9), int4T), NewConst(types.NewInt4(3), int4T), NullOf(int4T)}}
	for _, tc := range []struct {
		v    types.Datum
		want string
	}{{types.NewInt4(3), "t"}, {types.NewInt4(4), "NULL"}, {types.Null, "NULL"}} {
		d, err := Eval(nil, e, types.Row{tc.v})
		got := "NULL"
		if !d.IsNull() {
			got = types.FormatText(d, boolT, nil)
		}
		if err != nil || got != tc.want {
			t.Errorf("%v IN (9, 3, NULL) = %s, %v", tc.v, got, err)
		}
	}
}

func TestEvaluatorAllocations(t *testing.T) {
	e := &And{Args: []Expr{
		call(t, ">", call(t, "+", col(0, int8T), NewConst(types.NewInt8(1), int8T)), NewConst(types.NewInt8(10), int8T)),
		call(t, "<", col(1, f8), NewConst(types.NewFloat8(0.5), f8)),
	}}
	ev, err := Compile(e)
	if err != nil {
		t.Fatal(err)
	}
	row := types.Row{types.NewInt8(20), types.NewFloat8(0.25)}
	if n := testing.AllocsPerRun(100, func() { ev(nil, row) }); n != 0 {
		t.Errorf("evaluation allocates %v times per row", n)
	}
}

func TestCastKind(t *testing.T) {
	v := NewConst(types.NewText("abcd"), textT)
	to := types.Type{Family: types.Varchar, Mod: 2}
	d, err := Eval(nil, &Cast{Arg: v, To: to}, nil)
	if err != nil || d.Str() != "ab" {
		t.Errorf("explicit cast: %v, %v", d, err)
	}
	if _, err := Eval(nil, &Cast{Arg: v, To: to, Kind: types.CastAssignment}, nil); pgerr.CodeOf(err) != pgerr.StringDataRightTruncation {
		t.Errorf("assignment cast: %v", err)
	}
}
