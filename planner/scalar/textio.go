package scalar

import (
	"github.com/streamdb/streamdb/types"
)

// datumText returns d's text form as PostgreSQL's output function prints
// it under the session settings cfg.
func datumText(d types.Datum, t types.Type, cfg *types.TextConfig) string {
	return types.FormatText(d, t, cfg)
}
