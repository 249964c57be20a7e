package scalar

import (
	"math"
	"strconv"
	"strings"

	"github.com/cockroachdb/apd/v3"
	"github.com/streamdb/streamdb/sql/types"
)

// castDatum converts a non-NULL value between types.
func castDatum(d types.Datum, from, to types.Type, cfg *types.TextConfig) (types.Datum, error) {
	if to.Family.IsString() {
		if from.Family == types.Bool {
			if d.Bool() {
				return types.NewString(to.Family, "true"), nil
			}
			return types.NewString(to.Family, "false"), nil
		}
		if from.Family == types.Char {
			return types.NewString(to.Family, strings.TrimRight(d.Str(), " ")), nil
		}
		return types.NewString(to.Family, datumText(d, from, cfg)), nil
	}
	if from.Family.IsString() || from.Family == types.Unknown {
		return types.ParseText(d.Str(), to, cfg)
	}
	switch to.Family {
	case types.Timestamp, types.TimestampTZ:
		if from.Family == types.Date {
			us := dateToTS(d.Int())
			if to.Family == types.TimestampTZ && !isInf(us) {
				us = localToUTC(us, cfg.Location)
			}
			return types.NewInt(to.Family, us), nil
		}
	case types.Int2, types.Int4, types.Int8:
		switch from.Family {
		case types.Int2, types.Int4, types.Int8:
			return intResult(to.Family, d.Int())
		case types.Float4, types.Float8:
			return intResult(to.Family, int64(math.RoundToEven(d.Float())))
		case types.Numeric:
			var r apd.Decimal
			exactCtx.RoundToIntegralValue(&r, d.Decimal())
			v, err := r.Int64()
			if err != nil {
				return types.Null, intRangeErr(to.Family)
			}
			return intResult(to.Family, v)
		}
	case types.Float8, types.Float4:
		var f float64
		switch from.Family {
		case types.Int2, types.Int4, types.Int8:
			f = float64(d.Int())
		case types.Float4, types.Float8:
			f = d.Float()
		case types.Numeric:
			f = decFloat(d.Decimal())
		}
		if to.Family == types.Float4 {
			return types.NewFloat4(float32(f)), nil
		}
		return types.NewFloat8(f), nil
	case types.Numeric:
		r := new(apd.Decimal)
		switch from.Family {
		case types.Int2, types.Int4, types.Int8:
			r.SetInt64(d.Int())
		case types.Float4, types.Float8:
			r.SetString(strconv.FormatFloat(d.Float(), 'g', 15, 64))
		case types.Numeric:
			r.Set(d.Decimal())
		}
		if _, s, ok := to.NumericPrecisionScale(); ok {
			roundScale(r, int(s))
		}
		return numResult(r)
	}
	return d.WithKind(to.Family), nil
}
