package scalar

import (
	"time"

	"github.com/streamdb/streamdb/types"
)

// MzNowName is the name of mz_now(), Materialize's logical clock: in an ad
// hoc query the timestamp it reads at, in a view the time of each tick,
// against which a temporal filter (WHERE mz_now() <= ts + INTERVAL '5
// minutes') decides when a row enters and leaves the view.
const MzNowName = "mz_now"

func init() {
	addFunc(clockFunc(MzNowName, tstzT, Stable, func(ctx *EvalContext) types.Datum {
		if ctx == nil || ctx.ReadTime.IsZero() {
			return types.NewTimestampTZ(time.Now().UnixMicro())
		}
		return types.NewTimestampTZ(ctx.ReadTime.UnixMicro())
	}))
}

// IsMzNow reports whether e is a call of mz_now().
func IsMzNow(e Expr) bool {
	c, ok := e.(*Call)
	return ok && c.Fn.Name == MzNowName && len(c.Args) == 0
}

// HasMzNow reports whether e calls mz_now() anywhere.
func HasMzNow(e Expr) bool {
	found := false
	Walk(e, func(x Expr) bool {
		found = found || IsMzNow(x)
		return !found
	})
	return found
}
