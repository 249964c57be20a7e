package scalar

import (
	"github.com/google/uuid"

	"github.com/streamdb/streamdb/types"
)

// Miscellaneous functions: UUID generation and NULL counting.

func init() {
	addFunc(
		&Func{Name: "gen_random_uuid", Ret: types.TypeUUID, Volatility: Volatile, Impl: func(*EvalContext, []types.Datum) (types.Datum, error) {
			return types.NewUUID(uuid.New()), nil
		}},
		&Func{Name: "num_nulls", Params: ts(AnyT), Variadic: true, Ret: int4T, Impl: countNulls(true)},
		&Func{Name: "num_nonnulls", Params: ts(AnyT), Variadic: true, Ret: int4T, Impl: countNulls(false)},
	)
}

func countNulls(nulls bool) Impl {
	return func(_ *EvalContext, a []types.Datum) (types.Datum, error) {
		n := 0
		for _, d := range a {
			if d.IsNull() == nulls {
				n++
			}
		}
		return int4Of(n), nil
	}
}
