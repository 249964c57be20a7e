package scalar

import (
	"math"

	"github.com/streamdb/streamdb/types"
)

// Comparison operators = <> (and its spelling !=) < <= > >= for every
// comparable type, by types.Compare (PostgreSQL's btree order: NaN equals
// NaN and sorts last, char ignores trailing blanks). Integer-like and float
// families get specialised closures that skip the generic switch. Mixed
// integer widths compare by value without casts, as int24eq and friends do.

var comparableTypes = []types.Type{
	types.TypeBool, types.TypeFloat4, types.TypeFloat8, types.TypeNumeric,
	types.TypeText, types.TypeChar, types.TypeName, types.TypeBytea, types.TypeDate, types.TypeTime,
	types.TypeTimestamp, types.TypeTimestampTZ, types.TypeInterval, types.TypeUUID, types.TypeJSONB,
	types.TypeOid,
}

type cmpPred func(c int) bool

var cmpOps = []struct {
	name string
	pred cmpPred
}{
	{"=", func(c int) bool { return c == 0 }},
	{"<>", func(c int) bool { return c != 0 }},
	{"!=", func(c int) bool { return c != 0 }},
	{"<", func(c int) bool { return c < 0 }},
	{"<=", func(c int) bool { return c <= 0 }},
	{">", func(c int) bool { return c > 0 }},
	{">=", func(c int) bool { return c >= 0 }},
}

func cmpGeneric(p cmpPred) Binary {
	return func(a, b types.Datum) (types.Datum, error) {
		return types.NewBool(p(types.Compare(a, b))), nil
	}
}

func cmpInt(p cmpPred) Binary {
	return func(x, y types.Datum) (types.Datum, error) {
		a, b := x.Int(), y.Int()
		c := 0
		if a < b {
			c = -1
		} else if a > b {
			c = 1
		}
		return types.NewBool(p(c)), nil
	}
}

func cmpFloat(p cmpPred) Binary {
	return func(x, y types.Datum) (types.Datum, error) {
		a, b := x.Float(), y.Float()
		var c int
		switch {
		case math.IsNaN(a) || math.IsNaN(b):
			c = types.Compare(x, y)
		case a < b:
			c = -1
		case a > b:
			c = 1
		}
		return types.NewBool(p(c)), nil
	}
}

func init() {
	for _, op := range cmpOps {
		for _, l := range intTypes {
			for _, r := range intTypes {
				addOp(strictBin(op.name, ts(l, r), types.TypeBool, cmpInt(op.pred)))
			}
		}
		for _, t := range comparableTypes {
			impl := cmpGeneric(op.pred)
			switch t.Family {
			case types.Bool, types.Date, types.Time, types.Timestamp, types.TimestampTZ, types.Oid:
				impl = cmpInt(op.pred)
			case types.Float4, types.Float8:
				impl = cmpFloat(op.pred)
			}
			addOp(strictBin(op.name, ts(t, t), types.TypeBool, impl))
		}
		addOp(
			strictBin(op.name, ts(types.TypeFloat4, types.TypeFloat8), types.TypeBool, cmpFloat(op.pred)),
			strictBin(op.name, ts(types.TypeFloat8, types.TypeFloat4), types.TypeBool, cmpFloat(op.pred)),
			strictBin(op.name, ts(AnyArray, AnyArray), types.TypeBool, cmpGeneric(op.pred)),
		)
	}
}
