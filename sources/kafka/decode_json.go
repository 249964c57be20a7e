package kafka

import (
	"fmt"
	"unicode/utf8"

	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/sources"
	"github.com/streamdb/streamdb/types"
)

// jsonColumnsDecoder is FORMAT JSON with a column list: the fields of a
// JSON object become typed columns by name, as jsonb_populate_record
// fills a row. A missing field or JSON null is NULL; a string's contents,
// or the text of a number or boolean, goes through the column type's input
// function (types.ParseText, so timestamps, numerics and intervals read as
// in an INSERT); a json or jsonb column takes the field's value as jsonb;
// an array column takes a JSON array element by element. Unknown fields are
// ignored, duplicate fields keep the last value, and a value the column's
// type cannot read fails the whole record.
//
// The fast path scans the object once, remembers where each wanted field's
// value is, and converts only those; text fields without escapes become
// substrings of one string copied from the record, so a record costs one
// allocation plus whatever the column types need. Anything unusual reruns
// through types.ParseJSON.
type jsonColumnsDecoder struct {
	cols  []sources.Column
	index map[string]int
	spans []fieldSpan
	canon canonicalizer
	buf   []byte
}

// fieldSpan locates a wanted field's value in the record; end == 0 when
// the field is absent.
type fieldSpan struct{ start, end int }

func newJSONColumnsDecoder(cols []sources.Column) *jsonColumnsDecoder {
	d := &jsonColumnsDecoder{cols: cols, index: make(map[string]int, len(cols)), spans: make([]fieldSpan, len(cols))}
	for i, c := range cols {
		d.index[c.Name] = i
	}
	return d
}

func (d *jsonColumnsDecoder) decode(dst []types.Datum, b []byte) error {
	if !utf8.Valid(b) {
		return errInvalidUTF8(b)
	}
	return d.decodeString(dst, string(b))
}

// decodeString decodes the document s; Datums may share s's memory.
func (d *jsonColumnsDecoder) decodeString(dst []types.Datum, s string) error {
	ok, err := d.fast(dst, s)
	if !ok {
		err = d.slow(dst, s)
	}
	if err != nil {
		return err
	}
	for i, c := range d.cols {
		if c.NotNull && dst[i].IsNull() {
			return pgerr.New(pgerr.NotNullViolation, "null value in column %q violates not-null constraint", c.Name)
		}
	}
	return nil
}

// fast decodes s without building a tree; not ok means "use the slow
// path", never that s is invalid.
func (d *jsonColumnsDecoder) fast(dst []types.Datum, s string) (bool, error) {
	clear(d.spans)
	i := skipJSONSpace(s, 0)
	if i >= len(s) || s[i] != '{' {
		return false, nil
	}
	i = skipJSONSpace(s, i+1)
	if i < len(s) && s[i] == '}' {
		i++
	} else {
		for {
			if i >= len(s) || s[i] != '"' {
				return false, nil
			}
			keyEnd, escaped, ok := scanString(s, i)
			if !ok || escaped {
				return false, nil
			}
			col, wanted := d.index[s[i+1:keyEnd-1]]
			i = skipJSONSpace(s, keyEnd)
			if i >= len(s) || s[i] != ':' {
				return false, nil
			}
			i = skipJSONSpace(s, i+1)
			end, ok := skipValue(s, i, 1)
			if !ok {
				return false, nil
			}
			if wanted {
				d.spans[col] = fieldSpan{i, end}
			}
			i = skipJSONSpace(s, end)
			if i >= len(s) {
				return false, nil
			}
			if s[i] == '}' {
				i++
				break
			}
			if s[i] != ',' {
				return false, nil
			}
			i = skipJSONSpace(s, i+1)
		}
	}
	if skipJSONSpace(s, i) != len(s) {
		return false, nil
	}
	for c, sp := range d.spans {
		if sp.end == 0 {
			dst[c] = types.Null
			continue
		}
		v, ok, err := d.convertSpan(d.cols[c], s[sp.start:sp.end])
		if !ok || err != nil {
			return ok, err
		}
		dst[c] = v
	}
	return true, nil
}

// convertSpan converts the JSON value text v (valid, as skipValue checked)
// for column c.
func (d *jsonColumnsDecoder) convertSpan(c sources.Column, v string) (types.Datum, bool, error) {
	if v == "null" {
		return types.Null, true, nil
	}
	switch c.Type.Family {
	case types.JSON, types.JSONB:
		out, ok := d.canon.appendDoc(d.canon.out[:0], v)
		d.canon.out = out
		if !ok {
			return types.Null, false, nil
		}
		return types.NewString(c.Type.Family, string(out)), true, nil
	case types.Array:
		if v[0] == '[' {
			return types.Null, false, nil // rare: let the slow path build the array
		}
	}
	var text string
	switch v[0] {
	case '"':
		body := v[1 : len(v)-1]
		if _, escaped, _ := scanString(v, 0); escaped {
			var ok bool
			if d.buf, ok = unescapeString(d.buf[:0], v); !ok {
				return types.Null, false, nil
			}
			body = string(d.buf)
		}
		text = body
	case '{', '[':
		out, ok := d.canon.appendDoc(d.canon.out[:0], v)
		d.canon.out = out
		if !ok {
			return types.Null, false, nil
		}
		text = string(out)
	case 't', 'f':
		text = v
	default:
		if _, canonical, _ := scanNumber(v, 0); !canonical {
			return types.Null, false, nil
		}
		text = v
	}
	datum, err := parseField(c, text)
	return datum, true, err
}

// slow decodes s through types.ParseJSON, which has PostgreSQL's grammar
// and error messages.
func (d *jsonColumnsDecoder) slow(dst []types.Datum, s string) error {
	doc, err := types.ParseJSON(s)
	if err != nil {
		return err
	}
	if doc.Kind != types.JSONObject {
		return pgerr.New(pgerr.InvalidParameterValue, "expected a JSON object, found %s", jsonKindName(doc.Kind))
	}
	for i, c := range d.cols {
		v, ok := doc.Get(c.Name)
		if !ok {
			dst[i] = types.Null
			continue
		}
		if dst[i], err = convertJSONValue(c, v); err != nil {
			return err
		}
	}
	return nil
}

// convertJSONValue converts a parsed JSON value for column c, with the
// same rules as convertSpan.
func convertJSONValue(c sources.Column, v types.JSONValue) (types.Datum, error) {
	if v.Kind == types.JSONNull {
		return types.Null, nil
	}
	switch c.Type.Family {
	case types.JSON, types.JSONB:
		return types.NewString(c.Type.Family, types.FormatJSONB(v)), nil
	case types.Array:
		if v.Kind == types.JSONArray {
			return arrayFromJSON(c, v.Elems)
		}
	}
	if v.Kind == types.JSONString {
		return parseField(c, v.Str)
	}
	return parseField(c, types.FormatJSONB(v))
}

// arrayFromJSON builds a one-dimensional array from JSON elements, each
// read as a field of the element type.
func arrayFromJSON(c sources.Column, elems []types.JSONValue) (types.Datum, error) {
	elem := c.Type.ElemType()
	elemCol := sources.Column{Name: c.Name, Type: elem}
	out := make([]types.Datum, len(elems))
	for i, e := range elems {
		if e.Kind == types.JSONArray {
			return types.Null, pgerr.New(pgerr.FeatureNotSupported, "column %q: multidimensional arrays are not supported", c.Name)
		}
		v, err := convertJSONValue(elemCol, e)
		if err != nil {
			return types.Null, err
		}
		out[i] = v
	}
	return types.NewArray(&types.ArrayValue{Elem: elem, Elems: out}), nil
}

// parseField reads text with column c's input function.
func parseField(c sources.Column, text string) (types.Datum, error) {
	switch c.Type {
	case types.TypeText:
		return types.NewText(text), nil // the caller checked UTF-8; JSON strings hold no NUL
	case types.TypeTimestamp, types.TypeTimestampTZ:
		if v, ok := parseISOTimestamp(text, c.Type.Family == types.TimestampTZ); ok {
			return v, nil
		}
	}
	v, err := types.ParseText(text, c.Type, nil)
	if err != nil {
		return types.Null, fieldError(c.Name, err)
	}
	return v, nil
}

// fieldError names the column an input error happened in, keeping its
// SQLSTATE.
func fieldError(column string, err error) error {
	if e := pgerr.As(err); e != nil {
		return &pgerr.Error{Code: e.Code, Message: fmt.Sprintf("column %q: %s", column, e.Message), Detail: e.Detail, Err: err}
	}
	return fmt.Errorf("column %q: %w", column, err)
}

func jsonKindName(k types.JSONKind) string {
	switch k {
	case types.JSONNull:
		return "null"
	case types.JSONString:
		return "a string"
	case types.JSONNumber:
		return "a number"
	case types.JSONBool:
		return "a boolean"
	case types.JSONArray:
		return "an array"
	}
	return "an object"
}
