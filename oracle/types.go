package oracle

// typ is a type the generator knows. The set is deliberately small: it
// covers every comparison and arithmetic family the engine implements
// (integers of two widths, exact decimals, text, booleans and both calendar
// types) while letting the generator keep every expression free of runtime
// errors, whose order of evaluation would otherwise decide the result.
type typ uint8

const (
	tInt typ = iota
	tBigint
	tNumeric
	tText
	tBool
	tDate
	tTimestamp
	// tOpaque is the result of array_agg and jsonb_agg: a value that is
	// output and compared but never fed into another expression.
	tOpaque
)

// name is the type as written in SQL.
func (t typ) name() string {
	switch t {
	case tInt:
		return "int"
	case tBigint:
		return "bigint"
	case tNumeric:
		return "numeric"
	case tText:
		return "text"
	case tBool:
		return "bool"
	case tDate:
		return "date"
	case tTimestamp:
		return "timestamp"
	}
	return "opaque"
}

// class groups the types that mix freely in comparisons, CASE, COALESCE
// and set operations without a cast.
type class uint8

const (
	cNum class = iota
	cText
	cBool
	cTime
	cOpaque
)

// classes lists the classes expressions are generated in.
var classes = []class{cNum, cText, cBool, cTime}

func (t typ) class() class {
	switch t {
	case tInt, tBigint, tNumeric:
		return cNum
	case tText:
		return cText
	case tBool:
		return cBool
	case tDate, tTimestamp:
		return cTime
	}
	return cOpaque
}

// unify is the type PostgreSQL resolves two types of one class to in
// CASE, COALESCE, VALUES and set operations: the wider number, timestamp
// over date.
func unify(a, b typ) typ {
	if a.class() != b.class() {
		panic("oracle: unify across classes")
	}
	return max(a, b)
}
