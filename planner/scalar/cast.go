package scalar

import (
	"github.com/streamdb/streamdb/types"
)

// castDatum converts a non-NULL value between types with PostgreSQL's
// explicit-cast semantics (types.Cast): the binder has already checked
// that the cast is allowed where it appears.
func castDatum(d types.Datum, from, to types.Type, cfg *types.TextConfig) (types.Datum, error) {
	return types.Cast(d, from, to, cfg)
}
