package kafka

import (
	"testing"

	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/sources"
	"github.com/streamdb/streamdb/types"
)

func TestDebezium(t *testing.T) {
	cols := []sources.Column{col("id", types.TypeInt4), col("name", types.TypeText)}
	for _, tc := range []struct {
		in     string
		action debeziumAction
		want   string
		code   pgerr.Code
	}{
		{`{"before": null, "after": {"id": 1, "name": "a"}, "op": "c", "ts_ms": 1}`, debeziumUpsert, "(1, a)", ""},
		{`{"op": "r", "after": {"id": 2, "name": "b"}, "source": {"db": "x"}}`, debeziumUpsert, "(2, b)", ""},
		{`{"before": {"id": 1, "name": "a"}, "after": {"id": 1, "name": "z"}, "op": "u"}`, debeziumUpsert, "(1, z)", ""},
		{`{"before": {"id": 1, "name": "a"}, "after": null, "op": "d"}`, debeziumDelete, "", ""},
		{`{"schema": {"type": "struct"}, "payload": {"before": null, "after": {"id": 3, "name": "c"}, "op": "c"}}`, debeziumUpsert, "(3, c)", ""},
		{`{"schema": {}, "payload": null}`, debeziumSkip, "", ""},
		{`{"op": "m", "message": {}}`, debeziumSkip, "", ""},
		{`{"a\u0066ter": {"id": 4, "name": "d"}, "op": "c"}`, debeziumUpsert, "(4, d)", ""},
		{`{"after": {"id": 1}}`, 0, "", pgerr.InvalidParameterValue},
		{`{"op": 1, "after": {}}`, 0, "", pgerr.InvalidParameterValue},
		{`{"op": "c", "after": null}`, 0, "", pgerr.InvalidParameterValue},
		{`{"op": "c"}`, 0, "", pgerr.InvalidParameterValue},
		{`{"op": "x", "after": {}}`, 0, "", pgerr.InvalidParameterValue},
		{`{"op": "t"}`, 0, "", pgerr.FeatureNotSupported},
		{`{"op": "c", "after": {"id": "one"}}`, 0, "", pgerr.InvalidTextRepresentation},
		{`[1]`, 0, "", pgerr.InvalidParameterValue},
		{`{"op": "c", `, 0, "", pgerr.InvalidTextRepresentation},
	} {
		d := &debeziumDecoder{inner: newJSONColumnsDecoder(cols)}
		row := make(types.Row, len(cols))
		action, err := d.decode(row, []byte(tc.in))
		if tc.code != "" {
			if e := pgerr.As(err); e == nil || e.Code != tc.code {
				t.Errorf("decode(%s) = %v, want SQLSTATE %s", tc.in, err, tc.code)
			}
			continue
		}
		if err != nil || action != tc.action {
			t.Errorf("decode(%s) = %d, %v; want %d", tc.in, action, err, tc.action)
			continue
		}
		if action == debeziumUpsert {
			if got := formatRow(cols, row); got != tc.want {
				t.Errorf("decode(%s) row %s, want %s", tc.in, got, tc.want)
			}
		}
	}
	var d debeziumDecoder
	if action, err := d.decode(nil, nil); action != debeziumSkip || err != nil {
		t.Errorf("tombstone: %d, %v", action, err)
	}
}

func TestUnwrapKey(t *testing.T) {
	for in, want := range map[string]string{
		`{"schema": {"type": "struct"}, "payload": {"id": 1}}`: `{"id": 1}`,
		`{"payload": {"id": 1}}`:                               `{"payload": {"id": 1}}`,
		`{"id": 1}`:                                            `{"id": 1}`,
		`7`:                                                    `7`,
	} {
		if got := unwrapKey(in); got != want {
			t.Errorf("unwrapKey(%s) = %s, want %s", in, got, want)
		}
	}
}
