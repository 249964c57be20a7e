package types

import (
	"fmt"
	"strconv"
)

// Family is the kind of a SQL type, independent of modifiers such as
// varchar(n) or numeric(p,s).
type Family uint8

// The type families streamdb supports. Unknown is the type of an untyped
// literal or NULL before the binder resolves it; it is also the family of the
// NULL Datum.
const (
	Unknown Family = iota
	Bool
	Int2
	Int4
	Int8
	Float4
	Float8
	Numeric
	Text
	Varchar
	Char // bpchar, blank-padded character(n)
	Name
	Bytea
	Date
	Time
	Timestamp
	TimestampTZ
	Interval
	UUID
	JSON
	JSONB
	Oid
	Array
	// The object identifier types: their values are OIDs (Datums of kind
	// Oid), read and printed as object names (reg.go).
	RegClass
	RegType
	RegProc
	RegNamespace
	// QChar is "char": PostgreSQL's one-byte type of the catalogs'
	// code columns (pg_type.typtype, pg_class.relkind…), a string of at
	// most one byte.
	QChar
	// Void is the result of functions that return nothing (pg_advisory_lock,
	// pg_notify): its one value prints as the empty string.
	Void
	// Record is a row value (record.go).
	Record
	numFamilies
)

// Type is a SQL type: a family plus its modifier and, for arrays, the
// element family. Type is comparable with ==.
type Type struct {
	Family Family
	// Mod is the type modifier in streamdb's decoded form, -1 when absent:
	// the length n of varchar(n) and char(n); precision<<16 | scale for
	// numeric(p,s); the fractional-second precision of time and timestamps;
	// PostgreSQL's own typmod for interval (interval_typmod.go).
	// TypMod converts it to PostgreSQL's atttypmod.
	Mod int32
	// Elem is the element family of an array type; its modifier is Mod.
	Elem Family
}

// Common types without modifiers.
var (
	TypeUnknown     = Type{Family: Unknown, Mod: -1}
	TypeBool        = Type{Family: Bool, Mod: -1}
	TypeInt2        = Type{Family: Int2, Mod: -1}
	TypeInt4        = Type{Family: Int4, Mod: -1}
	TypeInt8        = Type{Family: Int8, Mod: -1}
	TypeFloat4      = Type{Family: Float4, Mod: -1}
	TypeFloat8      = Type{Family: Float8, Mod: -1}
	TypeNumeric     = Type{Family: Numeric, Mod: -1}
	TypeText        = Type{Family: Text, Mod: -1}
	TypeVarchar     = Type{Family: Varchar, Mod: -1}
	TypeChar        = Type{Family: Char, Mod: -1}
	TypeName        = Type{Family: Name, Mod: -1}
	TypeBytea       = Type{Family: Bytea, Mod: -1}
	TypeDate        = Type{Family: Date, Mod: -1}
	TypeTime        = Type{Family: Time, Mod: -1}
	TypeTimestamp   = Type{Family: Timestamp, Mod: -1}
	TypeTimestampTZ = Type{Family: TimestampTZ, Mod: -1}
	TypeInterval    = Type{Family: Interval, Mod: -1}
	TypeUUID        = Type{Family: UUID, Mod: -1}
	TypeJSON        = Type{Family: JSON, Mod: -1}
	TypeJSONB       = Type{Family: JSONB, Mod: -1}
	TypeOid         = Type{Family: Oid, Mod: -1}
	TypeRegClass    = Type{Family: RegClass, Mod: -1}
	TypeRegType     = Type{Family: RegType, Mod: -1}
	TypeRegProc     = Type{Family: RegProc, Mod: -1}
	TypeRegNS       = Type{Family: RegNamespace, Mod: -1}
	TypeQChar       = Type{Family: QChar, Mod: -1}
	TypeVoid        = Type{Family: Void, Mod: -1}
	// TypeRecord is the type record without a known descriptor.
	TypeRecord = Type{Family: Record, Mod: -1}
)

// ArrayOf returns the array type whose elements have type elem.
func ArrayOf(elem Type) Type {
	return Type{Family: Array, Mod: elem.Mod, Elem: elem.Family}
}

// ElemType returns the element type of an array type.
func (t Type) ElemType() Type {
	if t.Mod == VectorMod {
		return Type{Family: t.Elem, Mod: -1}
	}
	return Type{Family: t.Elem, Mod: t.Mod}
}

// NumericMod returns the modifier of numeric(precision, scale).
func NumericMod(precision, scale int32) int32 { return precision<<16 | scale&0xffff }

// NumericPrecisionScale decodes a numeric modifier; ok is false when the
// type has no modifier.
func (t Type) NumericPrecisionScale() (precision, scale int32, ok bool) {
	if t.Mod < 0 {
		return 0, 0, false
	}
	return t.Mod >> 16, int32(int16(t.Mod & 0xffff)), true
}

type familyInfo struct {
	name     string // SQL name as format_type prints it
	oid      uint32
	arrayOID uint32
	size     int16 // typlen: -1 variable length
}

var families = [numFamilies]familyInfo{
	Unknown:      {"unknown", 705, 0, -2},
	Bool:         {"boolean", 16, 1000, 1},
	Int2:         {"smallint", 21, 1005, 2},
	Int4:         {"integer", 23, 1007, 4},
	Int8:         {"bigint", 20, 1016, 8},
	Float4:       {"real", 700, 1021, 4},
	Float8:       {"double precision", 701, 1022, 8},
	Numeric:      {"numeric", 1700, 1231, -1},
	Text:         {"text", 25, 1009, -1},
	Varchar:      {"character varying", 1043, 1015, -1},
	Char:         {"character", 1042, 1014, -1},
	Name:         {"name", 19, 1003, 64},
	Bytea:        {"bytea", 17, 1001, -1},
	Date:         {"date", 1082, 1182, 4},
	Time:         {"time without time zone", 1083, 1183, 8},
	Timestamp:    {"timestamp without time zone", 1114, 1115, 8},
	TimestampTZ:  {"timestamp with time zone", 1184, 1185, 8},
	Interval:     {"interval", 1186, 1187, 16},
	UUID:         {"uuid", 2950, 2951, 16},
	JSON:         {"json", 114, 199, -1},
	JSONB:        {"jsonb", 3802, 3807, -1},
	Oid:          {"oid", 26, 1028, 4},
	Array:        {"anyarray", 2277, 0, -1},
	RegClass:     {"regclass", 2205, 2210, 4},
	RegType:      {"regtype", 2206, 2211, 4},
	RegProc:      {"regproc", 24, 1008, 4},
	RegNamespace: {"regnamespace", 4089, 4090, 4},
	QChar:        {`"char"`, 18, 1002, 1},
	Void:         {"void", 2278, 0, 4},
	Record:       {"record", 2249, 2287, -1},
}

// OID returns the PostgreSQL type OID, as sent in RowDescription.
func (t Type) OID() uint32 {
	if t.IsVector() {
		return t.vectorOID()
	}
	if t.Family == Array {
		return families[t.Elem].arrayOID
	}
	return families[t.Family].oid
}

// Size returns PostgreSQL's typlen: the fixed byte width, or -1 for
// variable-length types.
func (t Type) Size() int16 {
	if t.Family == Array {
		return -1
	}
	return families[t.Family].size
}

// TypMod returns PostgreSQL's atttypmod for the type, -1 when absent.
func (t Type) TypMod() int32 {
	if t.Mod < 0 {
		return -1
	}
	switch t.Family {
	case Varchar, Char, Numeric:
		return t.Mod + 4
	case Array:
		return t.ElemType().TypMod()
	case Record:
		// Mod is the descriptor's id in this process, not a typmod.
		return -1
	}
	return t.Mod
}

// WithTypMod returns t with the modifier decoded from PostgreSQL's
// atttypmod (the inverse of TypMod), as found in catalogs and logical
// replication messages.
func (t Type) WithTypMod(typmod int32) Type {
	t.Mod = -1
	if typmod < 0 {
		return t
	}
	f := t.Family
	if f == Array {
		f = t.Elem
	}
	switch f {
	case Varchar, Char, Numeric:
		if typmod >= 4 {
			t.Mod = typmod - 4
		}
	case Interval, Time, Timestamp, TimestampTZ:
		t.Mod = typmod
	}
	return t
}

// TypeForOID returns the type with the given PostgreSQL OID, with no
// modifier; ok is false for OIDs streamdb does not support.
func TypeForOID(oid uint32) (Type, bool) {
	for f := range families {
		fi := &families[f]
		if fi.oid == oid && Family(f) != Array {
			return Type{Family: Family(f), Mod: -1}, true
		}
		if fi.arrayOID == oid && fi.arrayOID != 0 {
			return Type{Family: Array, Mod: -1, Elem: Family(f)}, true
		}
	}
	return Type{}, false
}

// String returns the type as PostgreSQL's format_type prints it, for
// example "character varying(10)", "numeric(10,2)" or "integer[]".
func (t Type) String() string {
	if t.Family >= numFamilies {
		return fmt.Sprintf("family(%d)", t.Family)
	}
	if t.IsVector() {
		return map[Family]string{Int2: "int2vector", Oid: "oidvector"}[t.Elem]
	}
	if t.Family == Array {
		return t.ElemType().String() + "[]"
	}
	name := families[t.Family].name
	if t.Mod < 0 {
		return name
	}
	switch t.Family {
	case Varchar, Char:
		return name + "(" + strconv.Itoa(int(t.Mod)) + ")"
	case Numeric:
		p, s, _ := t.NumericPrecisionScale()
		return name + "(" + strconv.Itoa(int(p)) + "," + strconv.Itoa(int(s)) + ")"
	case Time, Timestamp:
		base := "time"
		if t.Family == Timestamp {
			base = "timestamp"
		}
		return base + "(" + strconv.Itoa(int(t.Mod)) + ") without time zone"
	case TimestampTZ:
		return "timestamp(" + strconv.Itoa(int(t.Mod)) + ") with time zone"
	case Interval:
		return name + intervalTypmodOut(t.Mod)
	}
	return name
}

// Name returns the family's SQL name without modifiers.
func (f Family) String() string {
	if f >= numFamilies {
		return fmt.Sprintf("family(%d)", uint8(f))
	}
	return families[f].name
}

// IsNumeric reports whether values of the family are numbers.
func (f Family) IsNumeric() bool {
	switch f {
	case Int2, Int4, Int8, Float4, Float8, Numeric:
		return true
	}
	return false
}

// IsReg reports whether the family is one of the object identifier types
// (regclass, regtype, regproc, regnamespace).
func (f Family) IsReg() bool { return f >= RegClass && f <= RegNamespace }

// IsInteger reports whether the family is one of the integer types.
func (f Family) IsInteger() bool { return f == Int2 || f == Int4 || f == Int8 }

// IsString reports whether the family is a character string type.
func (f Family) IsString() bool {
	switch f {
	case Text, Varchar, Char, Name:
		return true
	}
	return false
}
