package scalar

import (
	"testing"

	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/types"
)

// TestSimplify checks what Simplify folds, as PostgreSQL's
// eval_const_expressions does, and what it leaves to run time.
func TestSimplify(t *testing.T) {
	intT := types.TypeInt4
	for _, c := range []struct{ in, want string }{
		{"x / 0 > NULL", "NULL::boolean"},
		{"NOT (-x / 0 < NULL)", "NULL::boolean"},
		{"(x / 0) * CAST(NULL AS int)", "NULL::integer"},
		{"abs(x / 0 + NULL)", "NULL::integer"},
		{"x / 0 IN (NULL)", "NULL::boolean"},
		{"x / 0 = 1 AND 1 > 2", "false"},
		{"x / 0 = 1 AND (NULL IS NOT NULL)", "false"},
		{"x / 0 = 1 AND NULL", "(((#0 / 0) = 1) AND NULL::boolean)"},
		{"x / 0 = 1 AND true", "((#0 / 0) = 1)"},
		{"x / 0 = 1 OR 1 < 2", "true"},
		{"x / 0 = 1 OR NULL OR false", "(((#0 / 0) = 1) OR NULL::boolean)"},
		{"x >= NULL AND x <= 5", "((#0 <= 5) AND NULL::boolean)"},
		{"NULL AND NULL", "NULL::boolean"},
		{"coalesce(x, NULL)", "COALESCE(#0)"},
		{"x / 0", "(#0 / 0)"},
		{"1 / 0 = 1", "error 22012"},
		{"1 / 0 > NULL", "error 22012"},
		{"abs(NULL + 1 / 0)", "error 22012"},
		{"CASE WHEN x > 0 THEN 1 ELSE 1 / 0 END", "error 22012"},
		{"CASE WHEN false THEN 1 / 0 WHEN x > 0 THEN 1 END", "CASE WHEN (#0 > 0) THEN 1 END"},
		{"CASE WHEN x > 0 THEN 1 WHEN true THEN 2 ELSE 1 / 0 END", "CASE WHEN (#0 > 0) THEN 1 ELSE 2 END"},
		{"CASE WHEN NULL THEN x ELSE x + 1 END", "(#0 + 1)"},
		{"coalesce(NULL, x, 2, 1 / 0)", "COALESCE(#0, 2)"},
		{"x > 1 OR true OR 1 / 0 = 1", "true"},
		{"x > 1 AND false AND 1 / 0 = 1", "false"},
		{"(x / 0 = 1 AND NULL) AND x = 2", "(((#0 / 0) = 1) AND (#0 = 2) AND NULL::boolean)"},
		{"x IN (NULL, 1)", "(#0 IN (NULL::integer, 1))"},
	} {
		toks, err := lex(c.in)
		if err != nil {
			t.Fatal(err)
		}
		p := &parser{toks: toks, lits: map[*Const]string{}, column: &intT}
		e, err := p.expr(0)
		if err != nil {
			t.Fatalf("%s: %v", c.in, err)
		}
		got := ""
		switch s, err := Simplify(e, nil); {
		case err != nil:
			got = "error " + string(pgerr.CodeOf(err))
		default:
			got = s.String()
		}
		if got != c.want {
			t.Errorf("Simplify(%s) = %s, want %s", c.in, got, c.want)
		}
	}
}
