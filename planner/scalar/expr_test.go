package scalar

import (
	"slices"
	"testing"

	"github.com/streamdb/streamdb/types"
)

func mustExpr(t testing.TB, src string, cols ...types.Type) Expr {
	t.Helper()
	e, err := parseExpr(src)
	if err != nil {
		t.Fatalf("%s: %v", src, err)
	}
	return e
}

func col(i int, t types.Type) *ColRef { return &ColRef{Idx: i, Typ: t} }

func call(t testing.TB, op string, l, r Expr) Expr {
	t.Helper()
	e, err := binOp(op, l, r)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func TestString(t *testing.T) {
	c1 := col(1, int4T)
	for _, tc := range []struct {
		e    Expr
		want string
	}{
		{call(t, "+", c1, NewConst(types.NewInt4(2), int4T)), "(#1 + 2)"},
		{NewConst(types.NewText("it's"), textT), "'it''s'"},
		{NewConst(types.NewInt4(-3), int4T), "(-3)"},
		{NullOf(int4T), "NULL::integer"},
		{NewConst(types.NewDate(0), dateT), "'1970-01-01'::date"},
		{&Cast{Arg: c1, To: int8T}, "#1::bigint"},
		{&And{Args: []Expr{&IsNull{Arg: c1}, &Not{Arg: col(0, boolT)}}}, "((#1 IS NULL) AND (NOT #0))"},
		{&In{Arg: c1, List: []Expr{NewConst(types.NewInt4(1), int4T)}, Not: true}, "(#1 NOT IN (1))"},
		{&Case{Whens: []When{{Cond: col(0, boolT), Result: c1}}, Else: NullOf(int4T), Typ: int4T}, "CASE WHEN #0 THEN #1 ELSE NULL::integer END"},
		{&Param{Idx: 0, Typ: int4T}, "$1"},
		{mustExpr(t, "lower('A')"), "lower('A')"},
		{mustExpr(t, "- 5.5"), "(-5.5)"},
	} {
		if got := tc.e.String(); got != tc.want {
			t.Errorf("got %s, want %s", got, tc.want)
		}
	}
}

func TestWalkRewrite(t *testing.T) {
	e := call(t, "*", call(t, "+", col(0, int4T), col(3, int4T)), col(3, int4T))
	if got := ColumnsUsed(e); !slices.Equal(got, []int{0, 3}) {
		t.Errorf("ColumnsUsed = %v", got)
	}
	shifted := ShiftColumns(e, 2)
	if got := shifted.String(); got != "((#2 + #5) * #5)" {
		t.Errorf("ShiftColumns = %s", got)
	}
	if e.String() != "((#0 + #3) * #3)" {
		t.Errorf("Rewrite modified its input: %s", e)
	}
	remapped := RemapColumns(e, []int{1, -1, -1, 0})
	if got := remapped.String(); got != "((#1 + #0) * #0)" {
		t.Errorf("RemapColumns = %s", got)
	}
	// Unchanged subtrees are shared.
	same := Rewrite(e, func(n Expr) Expr { return n })
	if same != e {
		t.Error("identity Rewrite copied the tree")
	}
	n := 0
	Walk(e, func(Expr) bool { n++; return true })
	if n != 5 {
		t.Errorf("Walk visited %d nodes, want 5", n)
	}
	if c := Columns(e); c.Len() != 2 || !c.Contains(3) || c.Contains(1) {
		t.Errorf("Columns = %v", c.Ordered())
	}
}

func TestConstantAndVolatility(t *testing.T) {
	for _, tc := range []struct {
		src      string
		constant bool
		vol      Volatility
	}{
		{"1 + 2", true, Immutable},
		{"now()", false, Stable},
		{"random() < 0.5", false, Volatile},
		{"lower('a') || 'b'", true, Immutable},
		{"concat('a', 1)", false, Stable},
	} {
		e := mustExpr(t, tc.src)
		if got := IsConstant(e); got != tc.constant {
			t.Errorf("IsConstant(%s) = %v", tc.src, got)
		}
		if got := MaxVolatility(e); got != tc.vol {
			t.Errorf("MaxVolatility(%s) = %v", tc.src, got)
		}
	}
	if IsConstant(col(0, int4T)) || IsConstant(&Param{Typ: int4T}) {
		t.Error("columns and parameters are not constant")
	}
}

func TestFold(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{"1 + 2 * 3", "7"},
		{"upper('a') || 'b'", "'Ab'"},
		// Errors are kept for run time.
		{"1 / 0", "(1 / 0)"},
		{"CASE WHEN false THEN 1 / 0 ELSE 2 END", "2"},
		{"now() + interval '1 day'", "(now() + '1 day'::interval)"},
		{"'2024-01-01'::date + 1", "'2024-01-02'::date"},
	} {
		if got := Fold(mustExpr(t, tc.src), nil).String(); got != tc.want {
			t.Errorf("Fold(%s) = %s, want %s", tc.src, got, tc.want)
		}
	}
	e := call(t, "+", col(0, int4T), call(t, "*", NewConst(types.NewInt4(2), int4T), NewConst(types.NewInt4(3), int4T)))
	if got := Fold(e, nil).String(); got != "(#0 + 6)" {
		t.Errorf("Fold = %s", got)
	}
	// A cast that depends on TimeZone is not folded.
	tz := &Cast{Arg: NewConst(types.NewTimestamp(0), tsT), To: tstzT}
	if _, ok := Fold(tz, nil).(*Const); ok {
		t.Error("timestamp to timestamptz cast was folded")
	}
}

func TestConjuncts(t *testing.T) {
	a, b, c := col(0, boolT), col(1, boolT), col(2, boolT)
	e := &And{Args: []Expr{a, &And{Args: []Expr{b, c}}}}
	if got := Conjuncts(e); len(got) != 3 {
		t.Errorf("Conjuncts = %v", got)
	}
	if NewAnd(nil).String() != "true" || NewAnd([]Expr{a}) != a {
		t.Error("NewAnd of none or one")
	}
}
