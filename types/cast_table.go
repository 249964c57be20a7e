package types

// CastKind is the context in which a cast may be applied without being
// written, PostgreSQL's pg_cast.castcontext: implicitly in expressions,
// in assignment to a column, or only when written as CAST or ::.
type CastKind uint8

// Cast contexts, from most to least permissive.
const (
	CastImplicit CastKind = iota + 1
	CastAssignment
	CastExplicit
)

func (k CastKind) String() string {
	switch k {
	case CastImplicit:
		return "implicit"
	case CastAssignment:
		return "assignment"
	case CastExplicit:
		return "explicit"
	}
	return "none"
}

// pgCasts is pg_cast restricted to streamdb's types (PostgreSQL 15),
// keyed by source and target family. Casts between a type and itself
// (length coercions) and the automatic I/O conversions to and from
// string types are handled by CastContext's rules, not listed here.
var pgCasts = map[[2]Family]CastKind{
	{Int8, Float8}: CastImplicit, {Int8, Int4}: CastAssignment, {Int8, Numeric}: CastImplicit,
	{Int8, Oid}: CastImplicit, {Int8, Float4}: CastImplicit, {Int8, Int2}: CastAssignment,
	{Bool, Char}: CastAssignment, {Bool, Varchar}: CastAssignment, {Bool, Int4}: CastExplicit,
	{Bool, Text}:    CastAssignment,
	{Char, Varchar}: CastImplicit, {Char, Name}: CastImplicit, {Char, Text}: CastImplicit,
	{Varchar, Char}: CastImplicit, {Varchar, Name}: CastImplicit, {Varchar, Text}: CastImplicit,
	{Date, TimestampTZ}: CastImplicit, {Date, Timestamp}: CastImplicit,
	{Float8, Int8}: CastAssignment, {Float8, Int4}: CastAssignment, {Float8, Numeric}: CastAssignment,
	{Float8, Float4}: CastAssignment, {Float8, Int2}: CastAssignment,
	{Int4, Int8}: CastImplicit, {Int4, Bool}: CastExplicit, {Int4, Float8}: CastImplicit,
	{Int4, Numeric}: CastImplicit, {Int4, Oid}: CastImplicit, {Int4, Float4}: CastImplicit,
	{Int4, Int2}:     CastAssignment,
	{Interval, Time}: CastAssignment,
	{JSON, JSONB}:    CastAssignment,
	{JSONB, Int8}:    CastExplicit, {JSONB, Bool}: CastExplicit, {JSONB, Float8}: CastExplicit,
	{JSONB, Int4}: CastExplicit, {JSONB, JSON}: CastAssignment, {JSONB, Numeric}: CastExplicit,
	{JSONB, Float4}: CastExplicit, {JSONB, Int2}: CastExplicit,
	{Name, Char}: CastAssignment, {Name, Varchar}: CastAssignment, {Name, Text}: CastImplicit,
	{Numeric, Int8}: CastAssignment, {Numeric, Float8}: CastImplicit, {Numeric, Int4}: CastAssignment,
	{Numeric, Float4}: CastImplicit, {Numeric, Int2}: CastAssignment,
	{Oid, Int8}: CastAssignment, {Oid, Int4}: CastAssignment,
	{Float4, Int8}: CastAssignment, {Float4, Float8}: CastImplicit, {Float4, Int4}: CastAssignment,
	{Float4, Numeric}: CastAssignment, {Float4, Int2}: CastAssignment,
	{Int2, Int8}: CastImplicit, {Int2, Float8}: CastImplicit, {Int2, Int4}: CastImplicit,
	{Int2, Numeric}: CastImplicit, {Int2, Oid}: CastImplicit, {Int2, Float4}: CastImplicit,
	{Text, Char}: CastImplicit, {Text, Varchar}: CastImplicit, {Text, Name}: CastImplicit,
	{Time, Interval}:    CastImplicit,
	{TimestampTZ, Date}: CastAssignment, {TimestampTZ, Time}: CastAssignment,
	{TimestampTZ, Timestamp}: CastAssignment,
	{Timestamp, Date}:        CastAssignment, {Timestamp, Time}: CastAssignment,
	{Timestamp, TimestampTZ}: CastImplicit,
	{QChar, Text}:            CastImplicit, {QChar, Char}: CastAssignment, {QChar, Varchar}: CastAssignment,
	{QChar, Int4}: CastExplicit, {Int4, QChar}: CastExplicit,
	{Text, QChar}: CastAssignment, {Char, QChar}: CastAssignment, {Varchar, QChar}: CastAssignment,
}

// CastContext reports whether a cast from one type to another exists and
// in which context it applies, following find_coercion_pathway: a type
// casts implicitly to itself (applying a modifier) and unknown literals to
// anything; pg_cast entries next; then arrays by their element types; then
// the automatic I/O conversions, which turn anything into a string type in
// assignment and read any type from a string type explicitly.
func CastContext(from, to Type) (CastKind, bool) {
	switch {
	case from.Family == Unknown:
		return CastImplicit, true
	case from.Family == to.Family && from.Family != Array:
		return CastImplicit, true
	}
	if k, ok := pgCasts[[2]Family{from.Family, to.Family}]; ok {
		return k, true
	}
	if k, ok := regCast(from.Family, to.Family); ok {
		return k, true
	}
	if from.Family == Array && to.Family == Array {
		return CastContext(from.ElemType(), to.ElemType())
	}
	switch {
	case to.Family.IsString():
		return CastAssignment, true
	case from.Family.IsString():
		return CastExplicit, true
	}
	return 0, false
}

// Category returns pg_type.typcategory, which PostgreSQL's overload
// resolution uses to prefer candidates of the argument's category: 'A'
// array, 'B' boolean, 'D' date/time, 'N' numeric, 'S' string, 'T'
// timespan, 'C' composite (record), 'U' user-defined (bytea, uuid, json,
// jsonb), 'X' unknown.
func Category(f Family) byte {
	switch f {
	case Bool:
		return 'B'
	case Int2, Int4, Int8, Float4, Float8, Numeric, Oid, RegClass, RegType, RegProc, RegNamespace:
		return 'N'
	case Text, Varchar, Char, Name:
		return 'S'
	case Date, Time, Timestamp, TimestampTZ:
		return 'D'
	case Interval:
		return 'T'
	case Array:
		return 'A'
	case Record:
		return 'C'
	case Unknown:
		return 'X'
	case QChar:
		return 'Z'
	case Void:
		return 'P'
	}
	return 'U'
}

// Preferred reports pg_type.typispreferred: the type overload resolution
// favours within its category (boolean, float8, oid, text, timestamptz,
// interval).
func Preferred(f Family) bool {
	switch f {
	case Bool, Float8, Oid, Text, TimestampTZ, Interval:
		return true
	}
	return false
}
