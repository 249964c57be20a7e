package scalar

import (
	"github.com/streamdb/streamdb/sql/types"
)

// appendText appends d's text form as PostgreSQL's output function prints
// it under the session settings cfg.
func appendText(dst []byte, d types.Datum, t types.Type, cfg *types.TextConfig) []byte {
	return types.AppendText(dst, d, t, cfg)
}

// datumText returns d's text form.
func datumText(d types.Datum, t types.Type, cfg *types.TextConfig) string {
	return types.FormatText(d, t, cfg)
}
