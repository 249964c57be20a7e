package kafka

import (
	"unicode/utf8"

	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/types"
)

// stringDecoder is a JSON decoder that can read a document already in a
// string, so that Debezium's after object and wrapped keys decode without
// another copy.
type stringDecoder interface {
	decodeString(dst []types.Datum, s string) error
}

func (d *jsonbDecoder) decodeString(dst []types.Datum, s string) error {
	c, err := d.canon.canonical(s)
	if err != nil {
		return err
	}
	dst[0] = types.NewString(types.JSONB, c)
	return nil
}

// debeziumAction is what a Debezium event does to its key's row.
type debeziumAction uint8

const (
	debeziumSkip   debeziumAction = iota // tombstones and messages: no change
	debeziumUpsert                       // c, r, u: the row becomes after
	debeziumDelete                       // d: the row goes away
)

// debeziumDecoder reads Debezium JSON change events: an object with
// before, after and op, either bare or inside {"schema": …, "payload": …}
// as the JSON converter writes it with schemas enabled. Creates, snapshot
// reads and updates carry the new row in after, which the inner decoder
// turns into columns; deletes need only the record key. A null value (the
// tombstone Debezium writes after a delete for log compaction) and
// logical-decoding messages (op m) change nothing. Truncates (op t) have
// no key and cannot be applied per key, so they are dead letters.
type debeziumDecoder struct {
	inner stringDecoder
}

// fields of a Debezium event found by scanning; end == 0 when absent.
type debeziumFields struct {
	schema, payload, after, op fieldSpan
}

func (d *debeziumDecoder) decode(dst []types.Datum, b []byte) (debeziumAction, error) {
	if b == nil {
		return debeziumSkip, nil
	}
	if !utf8.Valid(b) {
		return 0, errInvalidUTF8(b)
	}
	s := string(b)
	f, ok := scanDebezium(s)
	if ok && f.payload.end != 0 && f.op.end == 0 {
		payload := s[f.payload.start:f.payload.end]
		if payload == "null" {
			return debeziumSkip, nil
		}
		s = payload
		f, ok = scanDebezium(s)
	}
	if !ok {
		return d.slow(dst, s)
	}
	if f.op.end == 0 {
		return 0, pgerr.New(pgerr.InvalidParameterValue, `Debezium event has no "op" field`)
	}
	op := s[f.op.start:f.op.end]
	if len(op) < 2 || op[0] != '"' {
		return 0, pgerr.New(pgerr.InvalidParameterValue, `Debezium "op" must be a string, found %s`, op)
	}
	var after string
	if f.after.end != 0 {
		after = s[f.after.start:f.after.end]
	}
	return d.apply(dst, op[1:len(op)-1], after)
}

// apply acts on an event's op code and after text ("" or "null" when
// absent).
func (d *debeziumDecoder) apply(dst []types.Datum, op, after string) (debeziumAction, error) {
	switch op {
	case "c", "r", "u":
		if after == "" || after == "null" {
			return 0, pgerr.New(pgerr.InvalidParameterValue, `Debezium %q event has no "after" row`, op)
		}
		if err := d.inner.decodeString(dst, after); err != nil {
			return 0, err
		}
		return debeziumUpsert, nil
	case "d":
		return debeziumDelete, nil
	case "m":
		return debeziumSkip, nil
	case "t":
		return 0, pgerr.New(pgerr.FeatureNotSupported, "Debezium truncate events are not supported")
	}
	return 0, pgerr.New(pgerr.InvalidParameterValue, "unknown Debezium op %q", op)
}

// slow handles events the scanner declined (escaped keys, invalid JSON)
// through types.ParseJSON.
func (d *debeziumDecoder) slow(dst []types.Datum, s string) (debeziumAction, error) {
	doc, err := types.ParseJSON(s)
	if err != nil {
		return 0, err
	}
	if doc.Kind != types.JSONObject {
		return 0, pgerr.New(pgerr.InvalidParameterValue, "expected a Debezium event object, found %s", jsonKindName(doc.Kind))
	}
	if _, hasOp := doc.Get("op"); !hasOp {
		if p, ok := doc.Get("payload"); ok {
			if p.Kind == types.JSONNull {
				return debeziumSkip, nil
			}
			doc = p
		}
	}
	opv, ok := doc.Get("op")
	if !ok {
		return 0, pgerr.New(pgerr.InvalidParameterValue, `Debezium event has no "op" field`)
	}
	if opv.Kind != types.JSONString {
		return 0, pgerr.New(pgerr.InvalidParameterValue, `Debezium "op" must be a string, found %s`, types.FormatJSONB(opv))
	}
	after := ""
	if a, ok := doc.Get("after"); ok {
		after = types.FormatJSONB(a)
	}
	return d.apply(dst, opv.Str, after)
}

// scanDebezium finds the top-level fields of an event object; not ok
// sends the caller to the slow path.
func scanDebezium(s string) (debeziumFields, bool) {
	var f debeziumFields
	i := skipJSONSpace(s, 0)
	if i >= len(s) || s[i] != '{' {
		return f, false
	}
	i = skipJSONSpace(s, i+1)
	if i < len(s) && s[i] == '}' {
		return f, skipJSONSpace(s, i+1) == len(s)
	}
	for {
		if i >= len(s) || s[i] != '"' {
			return f, false
		}
		keyEnd, escaped, ok := scanString(s, i)
		if !ok || escaped {
			return f, false
		}
		key := s[i+1 : keyEnd-1]
		i = skipJSONSpace(s, keyEnd)
		if i >= len(s) || s[i] != ':' {
			return f, false
		}
		i = skipJSONSpace(s, i+1)
		end, ok := skipValue(s, i, 1)
		if !ok {
			return f, false
		}
		switch key {
		case "payload":
			f.payload = fieldSpan{i, end}
		case "schema":
			f.schema = fieldSpan{i, end}
		case "after":
			f.after = fieldSpan{i, end}
		case "op":
			f.op = fieldSpan{i, end}
		}
		i = skipJSONSpace(s, end)
		if i >= len(s) {
			return f, false
		}
		if s[i] == '}' {
			return f, skipJSONSpace(s, i+1) == len(s)
		}
		if s[i] != ',' {
			return f, false
		}
		i = skipJSONSpace(s, i+1)
	}
}

// unwrapKey returns the payload of a key written by the JSON converter
// with schemas enabled ({"schema": …, "payload": …}), or s itself.
func unwrapKey(s string) string {
	f, ok := scanDebezium(s)
	if !ok || f.payload.end == 0 || f.schema.end == 0 {
		return s
	}
	return s[f.payload.start:f.payload.end]
}
