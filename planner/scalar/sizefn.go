package scalar

import (
	"strconv"

	"github.com/streamdb/streamdb/types"
)

// The object size functions psql's \dt+ and \dm+ and monitoring
// dashboards call. A table's or source's size is what the store holds of
// it on disk; a materialized view's, the bytes of state its operators
// keep in memory (it has none on disk). An object that does not exist
// gives NULL, as in PostgreSQL.
func init() {
	size := func(name string) *Func {
		return sessionFn(name, ts(oidT), int8T, func(s Session, _ *EvalContext, a []types.Datum) (types.Datum, error) {
			n, ok, err := s.RelationSize(uint32(a[0].Int()))
			if err != nil || !ok {
				return types.Null, err
			}
			return types.NewInt8(n), nil
		})
	}
	addFunc(size("pg_table_size"), size("pg_relation_size"), size("pg_total_relation_size"),
		&Func{Name: "pg_size_pretty", Params: ts(int8T), Ret: textT, Strict: true, Volatility: Immutable,
			Impl: func(_ *EvalContext, a []types.Datum) (types.Datum, error) {
				return types.NewText(sizePretty(a[0].Int())), nil
			}})
}

// sizeUnits are pg_size_pretty's units, as PostgreSQL 15's dbsize.c
// defines them: a unit is used below its limit; the rounded ones are
// computed in half units and rounded at the end.
var sizeUnits = []struct {
	name  string
	limit int64
	round bool
	bits  uint
}{
	{"bytes", 10 * 1024, false, 0},
	{"kB", 20*1024 - 1, true, 10},
	{"MB", 20*1024 - 1, true, 20},
	{"GB", 20*1024 - 1, true, 30},
	{"TB", 20*1024 - 1, true, 40},
	{"PB", 20*1024 - 1, true, 50},
}

// sizePretty is pg_size_pretty(bigint).
func sizePretty(size int64) string {
	for i, u := range sizeUnits {
		if i == len(sizeUnits)-1 || -u.limit < size && size < u.limit {
			if u.round {
				if size < 0 {
					size = (size - 1) / 2
				} else {
					size = (size + 1) / 2
				}
			}
			return strconv.FormatInt(size, 10) + " " + u.name
		}
		next := sizeUnits[i+1]
		bits := next.bits - u.bits
		if next.round {
			bits--
		}
		if u.round {
			bits++
		}
		size /= int64(1) << bits
	}
	panic("unreachable")
}
