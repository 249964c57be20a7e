package scalar

import (
	"encoding/hex"
	"strconv"

	"github.com/streamdb/streamdb/sql/types"
)

// appendText appends d's text form as PostgreSQL's output function prints
// it under the session settings cfg.
func appendText(dst []byte, d types.Datum, t types.Type, cfg *types.TextConfig) []byte {
	switch d.Kind() {
	case types.Bool:
		if d.Bool() {
			return append(dst, 't')
		}
		return append(dst, 'f')
	case types.Int2, types.Int4, types.Int8, types.Oid:
		return strconv.AppendInt(dst, d.Int(), 10)
	case types.Float8:
		return strconv.AppendFloat(dst, d.Float(), 'g', -1, 64)
	case types.Float4:
		return strconv.AppendFloat(dst, d.Float(), 'g', -1, 32)
	case types.Numeric:
		return append(dst, d.Decimal().Text('f')...)
	case types.Bytea:
		return append(append(dst, `\x`...), hex.EncodeToString([]byte(d.Str()))...)
	}
	return append(dst, d.Str()...)
}

// datumText returns d's text form.
func datumText(d types.Datum, t types.Type, cfg *types.TextConfig) string {
	return string(appendText(nil, d, t, cfg))
}
