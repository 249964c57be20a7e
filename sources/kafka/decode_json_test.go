package kafka

import (
	"testing"

	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/sources"
	"github.com/streamdb/streamdb/types"
)

func TestCanonicalJSONB(t *testing.T) {
	for _, in := range []string{
		`{"b": 1, "a": 2}`,
		`{"bb":1,"a":2,"ccc":{"z":[1,2,{"y":null,"x":true}],"a":false}}`,
		`  [1, "two", 3.50, -0.5, 0, 0.0, null, true, false, [], {}]  `,
		`{"a": 1, "a": 2, "b": 3, "a": 4}`,
		`"plain"`,
		`"esc\"aped\n\t\\\/ \u00e9 \ud83d\ude00 \u001f"`,
		`{"k\"ey": 1}`,
		`1e3`, `-0`, `-0.0`, `1E-2`, `12345678901234567890.123456789`,
		`{"a":}`, `[1,]`, `{"a" 1}`, `tru`, `truex`, `01`, `1.`, `"\u0000"`, `"\ud800"`, `"\x"`, ``, `  `, `{} x`,
		`{"a": "` + "\x01" + `"}`,
	} {
		var c canonicalizer
		got, gotErr := c.canonical(in)
		want, wantErr := types.CanonicalJSONB(in)
		if got != want || (gotErr == nil) != (wantErr == nil) || gotErr != nil && gotErr.Error() != wantErr.Error() {
			t.Errorf("canonical(%q) = %q, %v; types.CanonicalJSONB gives %q, %v", in, got, gotErr, want, wantErr)
		}
	}
}

func TestJSONColumns(t *testing.T) {
	cols := []sources.Column{
		col("id", types.TypeInt8),
		col("name", types.TypeText),
		col("ts", types.TypeTimestamp),
		col("tags", types.ArrayOf(types.TypeText)),
		col("doc", types.TypeJSONB),
		col("amount", types.Type{Family: types.Numeric, Mod: types.NumericMod(6, 2)}),
		col("ok", types.TypeBool),
		col("v", types.Type{Family: types.Varchar, Mod: 3}),
	}
	for _, tc := range []struct {
		in   string
		want string
		code pgerr.Code
	}{
		{`{"id": 1, "name": "a", "ts": "2024-01-02T03:04:05.123Z", "tags": ["x", null, "z"], "doc": {"b": 1, "a": [true]}, "amount": 12.345, "ok": true, "v": "abc"}`,
			`(1, a, 2024-01-02 03:04:05.123, {x,NULL,z}, {"a": [true], "b": 1}, 12.35, t, abc)`, ""},
		{`{}`, `(NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)`, ""},
		{`{"id": null, "name": null, "doc": null, "unknown": [1, {"deep": 2}]}`, `(NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)`, ""},
		{`{"id": "42", "name": 7.50, "ok": "yes", "doc": "str"}`, `(42, 7.50, NULL, NULL, "str", NULL, t, NULL)`, ""},
		{`{"id": 1e2, "name": {"b": 2, "a": 1}}`, `(100, {"a": 1, "b": 2}, NULL, NULL, NULL, NULL, NULL, NULL)`, ""},
		{`{"id": 1, "id": 2}`, `(2, NULL, NULL, NULL, NULL, NULL, NULL, NULL)`, ""},
		{`{"id": "x", "id": 3}`, `(3, NULL, NULL, NULL, NULL, NULL, NULL, NULL)`, ""},
		{`{"name": "tab\there \u00e9", "tags": "{a,b}"}`, "(NULL, tab\there é, NULL, {a,b}, NULL, NULL, NULL, NULL)", ""},
		{`{"na\u006de": "escaped key"}`, `(NULL, escaped key, NULL, NULL, NULL, NULL, NULL, NULL)`, ""},
		{`{"id": 1.5}`, "", pgerr.InvalidTextRepresentation},
		{`{"id": "abc"}`, "", pgerr.InvalidTextRepresentation},
		{`{"id": 99999999999999999999}`, "", pgerr.NumericValueOutOfRange},
		{`{"ts": "yesterday-ish"}`, "", pgerr.InvalidDatetimeFormat},
		{`{"amount": 123456}`, "", pgerr.NumericValueOutOfRange},
		{`{"v": "abcd"}`, "", pgerr.StringDataRightTruncation},
		{`{"tags": [[1]]}`, "", pgerr.FeatureNotSupported},
		{`{"id": {"a": 1}}`, "", pgerr.InvalidTextRepresentation},
		{`[1, 2]`, "", pgerr.InvalidParameterValue},
		{`"str"`, "", pgerr.InvalidParameterValue},
		{`{"id": 1`, "", pgerr.InvalidTextRepresentation},
		{`not json`, "", pgerr.InvalidTextRepresentation},
		{`{"name": "\u0000"}`, "", pgerr.UntranslatableCharacter},
		{"{\"name\": \"\xff\"}", "", pgerr.CharacterNotInRepertoire},
	} {
		d := newJSONColumnsDecoder(cols)
		row := make(types.Row, len(cols))
		err := d.decode(row, []byte(tc.in))
		if tc.code != "" {
			if e := pgerr.As(err); e == nil || e.Code != tc.code {
				t.Errorf("decode(%s) = %v, want SQLSTATE %s", tc.in, err, tc.code)
			}
			continue
		}
		if err != nil {
			t.Errorf("decode(%s): %v", tc.in, err)
			continue
		}
		if got := formatRow(cols, row); got != tc.want {
			t.Errorf("decode(%s)\n got  %s\n want %s", tc.in, got, tc.want)
		}
	}
}

func TestJSONNotNull(t *testing.T) {
	cols := []sources.Column{{Name: "id", Type: types.TypeInt4, NotNull: true}}
	d := newJSONColumnsDecoder(cols)
	row := make(types.Row, 1)
	for _, in := range []string{`{}`, `{"id": null}`} {
		if e := pgerr.As(d.decode(row, []byte(in))); e == nil || e.Code != pgerr.NotNullViolation {
			t.Errorf("decode(%s) = %v, want a not-null violation", in, e)
		}
	}
}
