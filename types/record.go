package types

import (
	"cmp"
	"encoding/binary"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/streamdb/streamdb/pgerr"
)

// A record is a row value: ROW(1, 'a'), (a, b), or a whole row of a FROM
// item (SELECT t FROM t). As in PostgreSQL, its field names and types are
// a row descriptor that the value carries (an anonymous record's typmod
// names a "blessed" descriptor there), so that one column of type record
// may hold rows of different shapes, as a UNION of ROW(1, 'a') and
// ROW(2, 3) does. The static type Type{Family: Record, Mod: id} names the
// descriptor when one is known (id from RecordType) and is -1 otherwise:
// only then can a field be selected by name at bind time.
//
// Descriptors are interned in a registry for the life of the process:
// a descriptor's id is its position there, so records encode their
// descriptor by id. Records never reach storage (PostgreSQL refuses a
// column of type record), so ids need not survive a restart.

// RecordDesc describes the fields of a record: names and types in order,
// and the composite type's name for the whole row of a table ("" for an
// anonymous record).
type RecordDesc struct {
	TypeName string
	Names    []string
	Types    []Type
	id       int32
}

// RecordValue is the payload of a record Datum: its descriptor and one
// value per field. A RecordValue is immutable once placed in a Datum.
type RecordValue struct {
	Desc   *RecordDesc
	Fields []Datum
}

// recordRegistry interns descriptors. Readers (value decoding, RecordDesc
// by id) load the slice without locking; writers append under mu.
var recordRegistry struct {
	mu    sync.Mutex
	byKey map[string]*RecordDesc
	list  atomic.Pointer[[]*RecordDesc]
}

// RecordType returns the record type of the descriptor with these field
// names and types, interning it.
func RecordType(typeName string, names []string, typs []Type) Type {
	return Type{Family: Record, Mod: InternRecord(typeName, names, typs).id}
}

// InternRecord returns the registry's descriptor for these names and
// types.
func InternRecord(typeName string, names []string, typs []Type) *RecordDesc {
	var key strings.Builder
	key.WriteString(typeName)
	for i, n := range names {
		key.WriteString("\x00" + n + "\x00" + typs[i].String())
		key.WriteByte(byte(typs[i].Mod))
		key.WriteByte(byte(typs[i].Mod >> 8))
		key.WriteByte(byte(typs[i].Mod >> 16))
		key.WriteByte(byte(typs[i].Mod >> 24))
	}
	r := &recordRegistry
	r.mu.Lock()
	defer r.mu.Unlock()
	if d, ok := r.byKey[key.String()]; ok {
		return d
	}
	if r.byKey == nil {
		r.byKey = map[string]*RecordDesc{}
	}
	var list []*RecordDesc
	if p := r.list.Load(); p != nil {
		list = *p
	}
	d := &RecordDesc{TypeName: typeName, Names: slices.Clone(names), Types: slices.Clone(typs), id: int32(len(list))}
	list = append(slices.Clip(list), d)
	r.list.Store(&list)
	r.byKey[key.String()] = d
	return d
}

// RecordDescOf returns the descriptor a record type names, nil for the
// type record without one.
func RecordDescOf(t Type) *RecordDesc {
	if t.Family != Record || t.Mod < 0 {
		return nil
	}
	return recordDesc(t.Mod)
}

func recordDesc(id int32) *RecordDesc {
	p := recordRegistry.list.Load()
	if p == nil || int(id) >= len(*p) || id < 0 {
		return nil
	}
	return (*p)[id]
}

// Type returns the record type of the descriptor.
func (d *RecordDesc) Type() Type { return Type{Family: Record, Mod: d.id} }

// Field returns the position of the field named name, -1 if none.
func (d *RecordDesc) Field(name string) int { return slices.Index(d.Names, name) }

// NewRecord returns a record Datum. The Datum takes ownership of fields.
func NewRecord(desc *RecordDesc, fields []Datum) Datum {
	return Datum{head: head{kind: Record}, p: unsafe.Pointer(&RecordValue{Desc: desc, Fields: fields})}
}

// Record returns the payload of a record Datum, nil for other values.
func (d Datum) Record() *RecordValue {
	if d.kind != Record {
		return nil
	}
	return d.rec()
}

// AnonymousFieldNames returns f1, f2, … fn, the field names of ROW(...).
func AnonymousFieldNames(n int) []string {
	names := make([]string, n)
	for i := range names {
		names[i] = "f" + strconv.Itoa(i+1)
	}
	return names
}

// compareRecords orders records field by field, each field by Compare
// (NULL after every value, equal to NULL), then by field count: the
// order of PostgreSQL's btree record_ops, which DISTINCT, GROUP BY and
// ORDER BY use, and its = and < on composite values outside row
// constructors.
func compareRecords(a, b *RecordValue) int {
	n := min(len(a.Fields), len(b.Fields))
	for i := range n {
		if c := Compare(a.Fields[i], b.Fields[i]); c != 0 {
			return c
		}
	}
	return cmp.Compare(len(a.Fields), len(b.Fields))
}

// appendRecord prints a record as record_out does: fields in
// parentheses, separated by commas, a NULL as nothing, and double quotes
// around a field that is empty or holds a quote, backslash, parenthesis,
// comma or white space, with quotes and backslashes doubled inside.
func appendRecord(dst []byte, r *RecordValue, cfg *TextConfig) []byte {
	dst = append(dst, '(')
	var scratch []byte
	for i, f := range r.Fields {
		if i > 0 {
			dst = append(dst, ',')
		}
		if f.IsNull() {
			continue
		}
		scratch = AppendText(scratch[:0], f, r.fieldType(i, f), cfg)
		quote := len(scratch) == 0
		for _, c := range scratch {
			if c == '"' || c == '\\' || c == '(' || c == ')' || c == ',' || isSpace(c) {
				quote = true
				break
			}
		}
		if quote {
			dst = append(dst, '"')
		}
		for _, c := range scratch {
			if c == '"' || c == '\\' {
				dst = append(dst, c)
			}
			dst = append(dst, c)
		}
		if quote {
			dst = append(dst, '"')
		}
	}
	return append(dst, ')')
}

// fieldType is the type field i is printed and sent with: the
// descriptor's, or the value's family for a record without one.
func (r *RecordValue) fieldType(i int, f Datum) Type {
	if r.Desc != nil && i < len(r.Desc.Types) {
		return r.Desc.Types[i]
	}
	return Type{Family: f.kind, Mod: -1}
}

// appendRecordBinary writes record_send's format: the field count, then
// each field's type OID and its binary value (length -1 for NULL).
func appendRecordBinary(dst []byte, r *RecordValue) []byte {
	dst = binary.BigEndian.AppendUint32(dst, uint32(len(r.Fields)))
	for i, f := range r.Fields {
		t := r.fieldType(i, f)
		dst = binary.BigEndian.AppendUint32(dst, t.OID())
		if f.IsNull() {
			dst = binary.BigEndian.AppendUint32(dst, 0xffffffff)
			continue
		}
		at := len(dst)
		dst = append(dst, 0, 0, 0, 0)
		dst = AppendBinary(dst, f, t)
		binary.BigEndian.PutUint32(dst[at:], uint32(len(dst)-at-4))
	}
	return dst
}

// errRecordInput is PostgreSQL's error for reading an anonymous record.
func errRecordInput() error {
	return pgerr.New(pgerr.FeatureNotSupported, "input of anonymous composite types is not implemented")
}

// appendRecordKey writes each field behind a 1 byte, then a 0, as arrays
// do: field by field, then fewer fields first.
func appendRecordKey(dst []byte, r *RecordValue) []byte {
	for i := range r.Fields {
		dst = append(dst, 1)
		dst = appendKeyAsc(dst, r.Fields[i])
	}
	return append(dst, 0)
}

// appendRecordValue writes the descriptor's id (plus one, 0 for none),
// the field count and the fields.
func appendRecordValue(dst []byte, r *RecordValue) []byte {
	id := uint64(0)
	if r.Desc != nil {
		id = uint64(r.Desc.id) + 1
	}
	dst = binary.AppendUvarint(dst, id)
	dst = binary.AppendUvarint(dst, uint64(len(r.Fields)))
	for i := range r.Fields {
		dst = AppendValue(dst, r.Fields[i])
	}
	return dst
}

func (r *valueReader) record(depth int) (Datum, error) {
	if depth >= maxValueDepth {
		return Null, errCorruptValue("nesting")
	}
	id, err := r.uvarint()
	if err != nil {
		return Null, err
	}
	var desc *RecordDesc
	if id > 0 {
		if desc = recordDesc(int32(id - 1)); desc == nil || id-1 > 1<<31 {
			return Null, errCorruptValue("record descriptor")
		}
	}
	n, err := r.uvarint()
	if err != nil {
		return Null, err
	}
	if n > uint64(len(r.b)-r.pos) {
		return Null, errCorruptValue("record header")
	}
	fields := make([]Datum, 0, n)
	for range n {
		f, err := r.datum(depth + 1)
		if err != nil {
			return Null, err
		}
		fields = append(fields, f)
	}
	return NewRecord(desc, fields), nil
}

func (r *keyReader) record(depth int) (Datum, error) {
	if depth >= maxKeyDepth {
		return Null, errCorruptKey("nesting")
	}
	var fields []Datum
	for {
		c, err := r.byte()
		if err != nil {
			return Null, err
		}
		if c == 0 {
			return NewRecord(nil, fields), nil
		}
		if c != 1 {
			return Null, errCorruptKey("record field marker")
		}
		f, err := r.datum(depth + 1)
		if err != nil {
			return Null, err
		}
		fields = append(fields, f)
	}
}
