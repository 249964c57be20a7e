package scalar

import (
	"math"
	"strconv"
	"strings"

	"github.com/cockroachdb/apd/v3"
	"github.com/streamdb/streamdb/sql/pgerr"
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
		return parseText(d.Str(), to)
	}
	switch to.Family {
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

func parseText(s string, to types.Type) (types.Datum, error) {
	s = strings.TrimSpace(s)
	bad := func() error {
		return pgerr.New(pgerr.InvalidTextRepresentation, "invalid input syntax for type %s: \"%s\"", to.Family, s)
	}
	switch to.Family {
	case types.Bool:
		switch strings.ToLower(s) {
		case "t", "true", "yes", "on", "1":
			return types.DTrue, nil
		case "f", "false", "no", "off", "0":
			return types.DFalse, nil
		}
		return types.Null, bad()
	case types.Int2, types.Int4, types.Int8:
		v, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return types.Null, bad()
		}
		return intResult(to.Family, v)
	case types.Float4, types.Float8:
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return types.Null, bad()
		}
		if to.Family == types.Float4 {
			return types.NewFloat4(float32(v)), nil
		}
		return types.NewFloat8(v), nil
	case types.Numeric:
		r, _, err := apd.NewFromString(s)
		if err != nil {
			return types.Null, bad()
		}
		if _, sc, ok := to.NumericPrecisionScale(); ok {
			roundScale(r, int(sc))
		}
		return numResult(r)
	case types.JSONB:
		c, err := types.CanonicalJSONB(s)
		if err != nil {
			return types.Null, err
		}
		return types.NewString(types.JSONB, c), nil
	}
	return types.NewString(to.Family, s), nil
}
