package scalar

import (
	"strings"
	"testing"

	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/types"
)

func runTable(t *testing.T, name string, argSrc ...string) (string, error) {
	t.Helper()
	var args []Expr
	for _, s := range argSrc {
		args = append(args, mustExpr(t, s))
	}
	tf, targets, err := ResolveTableFunc(name, argTypes(args))
	if err != nil {
		return "", err
	}
	if args, err = coerceAll(args, targets); err != nil {
		return "", err
	}
	vals := make([]types.Datum, len(args))
	for i, a := range args {
		if vals[i], err = Eval(nil, a, nil); err != nil {
			return "", err
		}
	}
	cols := tf.Columns(targets)
	var out []string
	err = tf.Eval(&EvalContext{}, vals, func(r types.Row) bool {
		var fields []string
		for i, d := range r {
			if d.IsNull() {
				fields = append(fields, "NULL")
			} else {
				fields = append(fields, types.FormatText(d, cols[i].Type, nil))
			}
		}
		out = append(out, strings.Join(fields, "|"))
		return true
	})
	return strings.Join(out, ","), err
}

func TestTableFuncs(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"generate_series", []string{"1", "5"}, "1,2,3,4,5"},
		{"generate_series", []string{"5", "1", "-2"}, "5,3,1"},
		{"generate_series", []string{"1", "0"}, ""},
		{"generate_series", []string{"2147483646", "2147483647"}, "2147483646,2147483647"},
		{"generate_series", []string{"1.5", "3"}, "1.5,2.5"},
		{"generate_series", []string{"'2024-01-30'::timestamp", "'2024-04-01'::timestamp", "'1 month'::interval"},
			"2024-01-30 00:00:00,2024-02-29 00:00:00,2024-03-29 00:00:00"},
		{"unnest", []string{"ARRAY[1, NULL, 3]"}, "1,NULL,3"},
		{"jsonb_array_elements", []string{"'[1, \"a\", null]'::jsonb"}, `1,"a",null`},
		{"jsonb_array_elements_text", []string{"'[1, \"a\", null]'::jsonb"}, "1,a,NULL"},
		{"jsonb_each", []string{"'{\"b\": 1, \"a\": [2]}'::jsonb"}, "a|[2],b|1"},
		{"jsonb_each_text", []string{"'{\"a\": \"x\"}'::jsonb"}, "a|x"},
		{"jsonb_object_keys", []string{"'{\"b\": 1, \"a\": 2}'::jsonb"}, "a,b"},
		{"regexp_matches", []string{"'a1b22c333'", "'[0-9]+'", "'g'"}, "{1},{22},{333}"},
		{"string_to_table", []string{"'a,b,,c'", "','", "''"}, "a,b,NULL,c"},
	} {
		got, err := runTable(t, tc.name, tc.args...)
		if err != nil || got != tc.want {
			t.Errorf("%s(%s) = %q, %v; want %q", tc.name, strings.Join(tc.args, ", "), got, err, tc.want)
		}
	}
	if _, err := runTable(t, "generate_series", "1", "5", "0"); pgerr.CodeOf(err) != pgerr.InvalidParameterValue {
		t.Errorf("zero step: %v", err)
	}
	if _, err := runTable(t, "jsonb_array_elements", "'{}'::jsonb"); pgerr.CodeOf(err) != pgerr.InvalidParameterValue {
		t.Errorf("elements of an object: %v", err)
	}
	tf, _, err := ResolveTableFunc("jsonb_each", ts(jsonbT))
	if err != nil || len(tf.Columns(ts(jsonbT))) != 2 {
		t.Errorf("jsonb_each columns: %v", err)
	}
}
