package kafka

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/streamdb/streamdb/sinks"
	"github.com/streamdb/streamdb/types"
)

var rewrite = flag.Bool("rewrite", false, "rewrite golden files in testdata")

// typeCase is a value of one type, given as PostgreSQL input text ("" is
// NULL).
type typeCase struct {
	typ   types.Type
	input string
}

func numericMod(p, s int32) types.Type {
	return types.Type{Family: types.Numeric, Mod: types.NumericMod(p, s)}
}

// typeCases covers every type a column can have, with the edge values
// of each: extremes, special values, text that needs escaping.
var typeCases = []typeCase{
	{types.TypeBool, "true"}, {types.TypeBool, "false"}, {types.TypeBool, ""},
	{types.TypeInt2, "-32768"}, {types.TypeInt4, "2147483647"}, {types.TypeInt8, "-9223372036854775808"},
	{types.TypeOid, "4294967295"}, {types.TypeRegClass, "1259"}, {types.TypeRegType, "-"},
	{types.TypeFloat4, "1.5"}, {types.TypeFloat4, "3.4028235e+38"}, {types.TypeFloat4, "-0"}, {types.TypeFloat4, "NaN"},
	{types.TypeFloat8, "0.1"}, {types.TypeFloat8, "1e100"}, {types.TypeFloat8, "5e-324"}, {types.TypeFloat8, "1.7976931348623157e308"},
	{types.TypeFloat8, "Infinity"}, {types.TypeFloat8, "-Infinity"}, {types.TypeFloat8, "123456789012345680"},
	{types.TypeNumeric, "1.50"}, {types.TypeNumeric, "-0.000000000000000000000000000000000001"},
	{types.TypeNumeric, "123456789012345678901234567890.123456789012345678901234567890"},
	{numericMod(10, 2), "3"}, {types.TypeNumeric, "0"}, {types.TypeNumeric, "NaN"}, {types.TypeNumeric, "Infinity"}, {types.TypeNumeric, "-Infinity"},
	{types.TypeText, `quote " backslash \ tab	newline` + "\n" + `bell` + "\a" + ` unicode é 世界 🙂`}, {types.TypeText, " "},
	{types.Type{Family: types.Varchar, Mod: 10}, "varchar"}, {types.Type{Family: types.Char, Mod: 5}, "ab"}, {types.TypeName, "pg_class"},
	{types.TypeBytea, `\x00ff10`}, {types.TypeBytea, `\x`}, {types.TypeBytea, "plain text"},
	{types.TypeUUID, "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"},
	{types.TypeJSON, `{"b": 1,  "a" : [1, 2.50, "x"], "b": 2}`}, {types.TypeJSONB, `{"b": 1,  "a" : [1, 2.50, "x"], "b": 2}`},
	{types.TypeJSONB, `"just a string"`}, {types.TypeJSONB, `null`},
	{types.TypeDate, "2024-02-29"}, {types.TypeDate, "0044-03-15 BC"}, {types.TypeDate, "infinity"}, {types.TypeDate, "-infinity"},
	{types.TypeTime, "23:59:59.999999"}, {types.TypeTime, "00:00"}, {types.TypeTime, "24:00:00"},
	{types.TypeTimestamp, "2024-01-02 03:04:05.123456"}, {types.TypeTimestamp, "2024-01-02 03:04:00"}, {types.TypeTimestamp, "0044-03-15 12:00:00 BC"},
	{types.TypeTimestamp, "infinity"}, {types.TypeTimestamp, "-infinity"},
	{types.TypeTimestampTZ, "2024-01-02 03:04:05.5+02:30"}, {types.TypeTimestampTZ, "0044-03-15 12:00:00+00 BC"}, {types.TypeTimestampTZ, "-infinity"},
	{types.TypeInterval, "1 year 2 months 3 days 04:05:06.789"}, {types.TypeInterval, "-1 days +02:00:00"}, {types.TypeInterval, "0"},
	{types.TypeInterval, "-178956970 years -8 months -2147483648 days -2562047788:00:54.775807"},
	{types.ArrayOf(types.TypeInt4), "{1,NULL,-3}"}, {types.ArrayOf(types.TypeText), `{"a,b","quote\"",NULL,""}`},
	{types.ArrayOf(types.TypeNumeric), "{1.10,NaN}"}, {types.ArrayOf(types.TypeFloat8), "{NaN,-0,1e300}"},
	{types.ArrayOf(types.TypeJSONB), `{"{\"a\": 1}","[]"}`}, {types.ArrayOf(types.TypeTimestampTZ), `{"2024-01-01 00:00:00+00"}`},
	{types.ArrayOf(types.TypeBool), "{}"}, {types.ArrayOf(types.TypeBytea), `{"\\x01"}`}, {types.ArrayOf(types.TypeInterval), `{"1 day"}`},
}

func (c typeCase) datum(t *testing.T) types.Datum {
	t.Helper()
	if c.input == "" {
		return types.Null
	}
	d, err := types.ParseText(c.input, c.typ, nil)
	if err != nil {
		t.Fatalf("%s %q: %v", c.typ, c.input, err)
	}
	return d
}

// TestEncodingGolden pins the JSON and TEXT encodings of every type,
// and the records of both envelopes, in testdata/encoding.golden.
func TestEncodingGolden(t *testing.T) {
	var out bytes.Buffer
	out.WriteString("# type | input | JSON | TEXT (null: a null key or value)\n")
	for _, c := range typeCases {
		d := c.datum(t)
		text, ok := appendText(nil, d, c.typ)
		textOut := string(text)
		if !ok {
			textOut = "null"
		}
		fmt.Fprintf(&out, "%s | %q | %s | %q\n", c.typ, c.input, appendJSON(nil, d), textOut)
	}

	cols := []sinks.Column{{Name: "id", Type: types.TypeInt8}, {Name: "region", Type: types.TypeText},
		{Name: `odd "name"`, Type: types.TypeNumeric}, {Name: "tags", Type: types.ArrayOf(types.TypeText)}}
	row := func(id int64, region, n string) types.Row {
		num, _ := types.ParseText(n, types.TypeNumeric, nil)
		tags, _ := types.ParseText(`{x,y}`, types.ArrayOf(types.TypeText), nil)
		return types.Row{types.NewInt8(id), types.NewText(region), num, tags}
	}
	changes := []sinks.Change{
		{Row: row(1, "eu", "1.0"), Diff: -1}, {Row: row(1, "eu", "2.00"), Diff: 1}, // update
		{Row: row(2, "us", "7"), Diff: 1},  // insert
		{Row: row(3, "us", "9"), Diff: -1}, // delete
	}
	for _, env := range []struct {
		name string
		cfg  Config
	}{
		{"upsert, key (id, region)", Config{Key: []int{0, 1}, Envelope: EnvelopeUpsert, ValueFormat: FormatJSON}},
		{"debezium, key (id)", Config{Key: []int{0}, Envelope: EnvelopeDebezium, ValueFormat: FormatJSON}},
		{"debezium, no key", Config{Envelope: EnvelopeDebezium, ValueFormat: FormatJSON}},
		{"upsert, key format text", Config{Key: []int{1}, Envelope: EnvelopeUpsert, KeyFormat: FormatText, ValueFormat: FormatJSON}},
	} {
		cfg := env.cfg
		cfg.Columns = cols
		e := newEnvelope(&cfg)
		b := &recordBatch{topic: "t"}
		b.startTick(1700000000000)
		e.appendChanges(b, changes)
		fmt.Fprintf(&out, "\n# %s\n", env.name)
		for _, r := range b.records() {
			fmt.Fprintf(&out, "%s -> %s\n", nullStr(r.Key), nullStr(r.Value))
		}
	}
	checkGolden(t, "encoding.golden", out.Bytes())
}

func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *rewrite {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -rewrite to create it)", err)
	}
	if !bytes.Equal(got, want) {
		gl, wl := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
		for i := range max(len(gl), len(wl)) {
			var g, w string
			if i < len(gl) {
				g = gl[i]
			}
			if i < len(wl) {
				w = wl[i]
			}
			if g != w {
				t.Fatalf("%s differs at line %d:\ngot:  %s\nwant: %s\n(run with -rewrite to accept)", path, i+1, g, w)
			}
		}
	}
}

// TestJSONLossless decodes every encoding back with PostgreSQL's input
// functions and checks that it is the value that was encoded, exactly
// (numeric scale, json text, -0 and all): the encoding loses nothing.
func TestJSONLossless(t *testing.T) {
	for _, c := range typeCases {
		d := c.datum(t)
		enc := appendJSON(nil, d)
		if !json.Valid(enc) {
			t.Errorf("%s %q: %s is not JSON", c.typ, c.input, enc)
			continue
		}
		dec := json.NewDecoder(bytes.NewReader(enc))
		dec.UseNumber()
		var v any
		if err := dec.Decode(&v); err != nil {
			t.Fatal(err)
		}
		back, err := fromJSON(v, enc, c.typ)
		if err != nil {
			t.Errorf("%s %q: decoding %s: %v", c.typ, c.input, enc, err)
			continue
		}
		if got, want := types.AppendValue(nil, back), types.AppendValue(nil, d); !bytes.Equal(got, want) {
			t.Errorf("%s %q: %s decodes to %v, not %v", c.typ, c.input, enc, back, d)
		}
	}
}

// fromJSON reads a value of type typ back from its decoded JSON v (raw
// is its text), as a consumer that knows the column types would.
func fromJSON(v any, raw []byte, typ types.Type) (types.Datum, error) {
	switch v := v.(type) {
	case nil:
		if typ.Family == types.JSONB || typ.Family == types.JSON {
			return types.ParseText(string(raw), typ, nil)
		}
		return types.Null, nil
	case bool:
		return types.NewBool(v), nil
	case json.Number:
		return types.ParseText(v.String(), typ, nil)
	case string:
		switch typ.Family {
		case types.Bytea:
			b, err := base64.StdEncoding.DecodeString(v)
			return types.NewBytea(b), err
		case types.JSON, types.JSONB:
			return types.ParseText(string(raw), typ, nil)
		}
		return types.ParseText(v, typ, nil)
	case []any:
		if typ.Family != types.Array {
			return types.ParseText(string(raw), typ, nil)
		}
		a := &types.ArrayValue{Elem: typ.ElemType(), Elems: make([]types.Datum, len(v))}
		var elems []json.RawMessage
		if err := json.Unmarshal(raw, &elems); err != nil {
			return types.Null, err
		}
		for i, e := range v {
			d, err := fromJSON(e, elems[i], typ.ElemType())
			if err != nil {
				return types.Null, err
			}
			a.Elems[i] = d
		}
		return types.NewArray(a), nil
	}
	return types.ParseText(string(raw), typ, nil)
}
