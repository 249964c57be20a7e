package scalar

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/streamdb/streamdb/dataflow"
	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/types"
)

// TestAggGolden runs the aggregates in testdata/aggs.txt over value lists
// and compares with PostgreSQL 15's results, stored in aggs.golden. Each
// line is "aggregate call | column type | values", the values a SQL
// array literal body; x names the column. Every case is also replayed
// with retractions (extra rows added and removed, rows added twice and
// removed once) which must not change the result.

type aggCase struct{ call, typ, values string }

func readAggCases(t *testing.T) []aggCase {
	data, err := os.ReadFile("testdata/aggs.txt")
	if err != nil {
		t.Fatal(err)
	}
	var out []aggCase
	for _, l := range strings.Split(string(data), "\n") {
		l = strings.TrimSpace(l)
		if l == "" || strings.HasPrefix(l, "--") {
			continue
		}
		parts := strings.SplitN(l, "|", 3)
		if len(parts) != 3 {
			t.Fatalf("bad case %q", l)
		}
		out = append(out, aggCase{strings.TrimSpace(parts[0]), strings.TrimSpace(parts[1]), strings.TrimSpace(parts[2])})
	}
	return out
}

func (c aggCase) key() string { return c.call + " | " + c.typ + " | " + c.values }

func (c aggCase) query() string {
	return "SELECT (" + c.call + ")::text FROM unnest(ARRAY[" + c.values + "]::" + c.typ + "[]) AS v(x)"
}

func generateAggGolden(t *testing.T, cases []aggCase) {
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, *pgURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var b strings.Builder
	for _, c := range cases {
		var s *string
		err := conn.QueryRow(ctx, c.query()).Scan(&s)
		var pe *pgconn.PgError
		b.WriteString(c.key() + "\n")
		switch {
		case errors.As(err, &pe):
			b.WriteString(formatError(pe.Code, pe.Message))
		case err != nil:
			t.Fatalf("%s: %v", c.query(), err)
		default:
			b.WriteString(formatResult(deref(s), s == nil))
		}
		b.WriteString("\n\n")
	}
	if err := os.WriteFile("testdata/aggs.golden", []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// aggInput parses the value list into rows of one column.
func aggInput(c aggCase) (types.Type, []types.Row, error) {
	p := &parser{lits: map[*Const]string{}}
	toks, err := lex(c.typ)
	if err != nil {
		return types.Type{}, nil, err
	}
	p.toks = toks
	typ, err := p.typeName()
	if err != nil {
		return typ, nil, err
	}
	if c.values == "" {
		return typ, nil, nil
	}
	e, err := parseExpr("ARRAY[" + c.values + "]::" + c.typ + "[]")
	if err != nil {
		return typ, nil, err
	}
	d, err := Eval(nil, e, nil)
	if err != nil {
		return typ, nil, err
	}
	var rows []types.Row
	for _, v := range d.Array().Elems {
		rows = append(rows, types.Row{v})
	}
	return typ, rows, nil
}

func buildAgg(c aggCase, typ types.Type) (dataflow.Aggregate, error) {
	toks, err := lex(c.call)
	if err != nil {
		return nil, err
	}
	p := &parser{toks: toks, lits: map[*Const]string{}, column: &typ}
	e, err := p.expr(0)
	if err != nil {
		return nil, err
	}
	a, ok := e.(*aggNode)
	if !ok {
		return nil, errors.New("not an aggregate call")
	}
	spec := AggSpec{Distinct: a.distinct, Eval: &EvalContext{}}
	for _, arg := range a.args {
		ev, err := Compile(arg)
		if err != nil {
			return nil, err
		}
		spec.Args = append(spec.Args, ev)
	}
	for i, o := range a.order {
		ev, err := Compile(o)
		if err != nil {
			return nil, err
		}
		spec.Order = append(spec.Order, AggOrder{Eval: ev, Desc: a.desc[i], NullsFirst: a.desc[i]})
	}
	return a.fn.Build(spec)
}

func aggOutcome(agg dataflow.Aggregate, typ types.Type, feed func(s dataflow.AggState) error) string {
	s := agg.NewState()
	if err := feed(s); err != nil {
		return errText(err)
	}
	d, err := s.Result()
	if err != nil {
		return errText(err)
	}
	if d.IsNull() {
		return formatResult("", true)
	}
	txt, err := castDatum(d, types.Type{Family: d.Kind(), Mod: -1, Elem: elemFamily(d)}, types.TypeText, nil)
	if err != nil {
		return errText(err)
	}
	return formatResult(txt.Str(), false)
}

func elemFamily(d types.Datum) types.Family {
	if d.Kind() == types.Array {
		return d.Array().Elem.Family
	}
	return 0
}

func errText(err error) string {
	if pe := pgerr.As(err); pe != nil {
		return formatError(string(pe.Code), pe.Message)
	}
	return "=! ????? " + err.Error()
}

func TestAggGolden(t *testing.T) {
	cases := readAggCases(t)
	if *pgURL != "" {
		generateAggGolden(t, cases)
	}
	data, err := os.ReadFile("testdata/aggs.golden")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{}
	lines := strings.Split(string(data), "\n")
	for i := 0; i+1 < len(lines); i++ {
		if lines[i] != "" {
			want[lines[i]] = lines[i+1]
			i++
		}
	}
	for _, c := range cases {
		typ, rows, err := aggInput(c)
		if err != nil {
			t.Errorf("%s: input: %v", c.key(), err)
			continue
		}
		agg, err := buildAgg(c, typ)
		if err != nil {
			if got := errText(err); got != want[c.key()] {
				t.Errorf("%s\n  got:  %s\n  want: %s", c.key(), got, want[c.key()])
			}
			continue
		}
		plain := aggOutcome(agg, typ, func(s dataflow.AggState) error {
			for _, r := range rows {
				if err := s.Update(r, 1); err != nil {
					return err
				}
			}
			return nil
		})
		if plain != want[c.key()] {
			t.Errorf("%s\n  got:  %s\n  want: %s", c.key(), plain, want[c.key()])
			continue
		}
		// Retractions: every row twice then once back, plus each row
		// added and removed again in reverse order, must give the same.
		churned := aggOutcome(agg, typ, func(s dataflow.AggState) error {
			for _, r := range rows {
				if err := s.Update(r, 2); err != nil {
					return err
				}
			}
			for i := len(rows) - 1; i >= 0; i-- {
				if err := s.Update(rows[i], -1); err != nil {
					return err
				}
			}
			for _, r := range rows {
				if err := s.Update(r, 1); err != nil {
					return err
				}
			}
			for _, r := range rows {
				if err := s.Update(r, -1); err != nil {
					return err
				}
			}
			return nil
		})
		if churned != plain {
			t.Errorf("%s: with retractions got %s, want %s", c.key(), churned, plain)
		}
	}
}
