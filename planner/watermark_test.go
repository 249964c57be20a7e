package planner

import (
	"strings"
	"testing"

	"github.com/streamdb/streamdb/planner/scalar"
	"github.com/streamdb/streamdb/types"
)

// TestWatermarks checks which columns of a plan a watermark bounds, and
// by what: the column of the table, the monotone functions of it, the
// keys of an aggregate over them, a series rising from them and a
// session's end; not a join's columns, nor a function that is not
// monotone.
func TestWatermarks(t *testing.T) {
	tz := types.TypeTimestampTZ
	events := &Get{ID: 7, Name: "e", Cols: []Column{{"k", types.TypeInt8}, {"ts", tz}}, Watermarked: true, WatermarkCol: 1}
	other := &Get{ID: 8, Name: "o", Cols: []Column{{"k", types.TypeInt8}, {"ts", tz}}}
	ts := &scalar.ColRef{Idx: 1, Typ: tz}
	k := &scalar.ColRef{Idx: 0, Typ: types.TypeInt8}
	minute := scalar.NewConst(types.NewInterval(types.IntervalValue{Micros: 60e6}), types.TypeInterval)
	epoch := scalar.NewConst(types.NewTimestampTZ(0), tz)
	bin := call(t, "date_bin", minute, ts, epoch)
	windows := &Project{Input: events, Exprs: []scalar.Expr{k, ts, bin, call(t, "+", bin, minute), call(t, "date_part", scalar.NewConst(types.NewText("minute"), types.TypeText), ts)},
		Cols: []Column{{"k", types.TypeInt8}, {"ts", tz}, {"start", tz}, {"end", tz}, {"minute", types.TypeFloat8}}}
	for _, tc := range []struct {
		name string
		plan Node
		want string
	}{
		{"the table", events, "- | #0"},
		{"a table without", other, "- | -"},
		{"projections", windows, "- | #0 | date_bin('00:01:00'::interval, #0, '1970-01-01 00:00:00+00'::timestamp with time zone) | (date_bin('00:01:00'::interval, #0, '1970-01-01 00:00:00+00'::timestamp with time zone) + '00:01:00'::interval) | -"},
		{"aggregate keys", &Aggregate{Input: windows, Keys: []scalar.Expr{&scalar.ColRef{Idx: 3, Typ: tz}, k}, Cols: []Column{{"end", tz}, {"k", types.TypeInt8}}},
			"(date_bin('00:01:00'::interval, #0, '1970-01-01 00:00:00+00'::timestamp with time zone) + '00:01:00'::interval) | -"},
		{"a series", &FlatMap{Input: events, Func: seriesFunc(t), Args: []scalar.Expr{ts, ts, minute}, Cols: []Column{{"s", tz}}}, "- | #0 | #0"},
		{"a session", &Session{Input: events, TS: 1, Gap: 60e6, Cols: []Column{{"start", tz}, {"end", tz}}}, "- | - | - | #0"},
		{"a join", &Join{Kind: InnerJoin, Left: events, Right: events, On: scalar.NewConst(types.DTrue, types.TypeBool)}, "- | - | - | -"},
	} {
		var parts []string
		for _, w := range Watermarks(tc.plan) {
			if w == nil {
				parts = append(parts, "-")
				continue
			}
			if w.Object != 7 {
				t.Errorf("%s: bound by object %d", tc.name, w.Object)
			}
			parts = append(parts, w.Bound.String())
		}
		if got := strings.Join(parts, " | "); got != tc.want {
			t.Errorf("%s:\n%s\nwant\n%s", tc.name, got, tc.want)
		}
	}
}

func seriesFunc(t *testing.T) *scalar.TableFunc {
	t.Helper()
	tf, _, err := scalar.ResolveTableFunc("generate_series", []types.Type{types.TypeTimestampTZ, types.TypeTimestampTZ, types.TypeInterval})
	if err != nil {
		t.Fatal(err)
	}
	return tf
}

// TestJoinExpiry checks the conditions that let a maintained inner join
// forget rows: each inequality between a column of one side and a column
// of the other (plus constant intervals), both bounded by watermarks,
// expires the side of the larger one.
func TestJoinExpiry(t *testing.T) {
	tz := types.TypeTimestampTZ
	a := &Get{ID: 1, Name: "a", Cols: []Column{{"k", types.TypeInt8}, {"ts", tz}}, Watermarked: true, WatermarkCol: 1}
	b := &Get{ID: 2, Name: "b", Cols: []Column{{"k", types.TypeInt8}, {"ts", tz}}, Watermarked: true, WatermarkCol: 1}
	plain := &Get{ID: 3, Name: "p", Cols: []Column{{"k", types.TypeInt8}, {"ts", tz}}}
	ats, bts := &scalar.ColRef{Idx: 1, Typ: tz}, &scalar.ColRef{Idx: 3, Typ: tz}
	keys := call(t, "=", &scalar.ColRef{Idx: 0, Typ: types.TypeInt8}, &scalar.ColRef{Idx: 2, Typ: types.TypeInt8})
	ten := scalar.NewConst(types.NewInterval(types.IntervalValue{Micros: 600e6}), types.TypeInterval)
	between := &scalar.And{Args: []scalar.Expr{keys, call(t, ">=", bts, ats), call(t, "<=", bts, call(t, "+", ats, ten))}}
	for _, tc := range []struct {
		name        string
		left, right Node
		on          scalar.Expr
		want        string
	}{
		{"b.ts BETWEEN a.ts AND a.ts + 10 minutes", a, b, between, "Join inner on=" + between.String() + " expire_left=#1 expire_right=#1"},
		{"one bound", a, b, &scalar.And{Args: []scalar.Expr{keys, call(t, "<", bts, call(t, "+", ats, ten))}}, "expire_left=#1"},
		{"a side without a watermark", a, plain, between, ""},
		{"an equi-join", a, b, keys, ""},
	} {
		got := describe(Physical(&Join{Kind: InnerJoin, Left: tc.left, Right: tc.right, On: tc.on}, Maintained))
		if !strings.HasSuffix(got, tc.want) || tc.want == "" && strings.Contains(got, "expire") {
			t.Errorf("%s: %s, want …%s", tc.name, got, tc.want)
		}
		if one := describe(Physical(&Join{Kind: InnerJoin, Left: tc.left, Right: tc.right, On: tc.on}, OneTick)); strings.Contains(one, "expire") {
			t.Errorf("%s: a one-tick join expires: %s", tc.name, one)
		}
	}
}
