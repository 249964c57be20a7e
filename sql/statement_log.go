package sql

import (
	"context"
	"log/slog"
	"strconv"
	"strings"

	"github.com/streamdb/streamdb/types"
)

// logStatement logs a statement the session is about to run, at debug
// level: what a tool sends is what a user needs to see when it fails.
// Parameter values may be secrets (passwords, personal data), so they
// are logged only when Config.LogParameters asks for them; otherwise
// each shows as <redacted> with its type.
func (s *session) logStatement(ctx context.Context, st *statement, params []types.Datum) {
	log := s.e.log
	if !log.Enabled(ctx, slog.LevelDebug) {
		return
	}
	attrs := []any{"pid", s.pid, "sql", st.raw.text}
	if len(params) > 0 {
		var b strings.Builder
		for i, p := range params {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString("$" + strconv.Itoa(i+1) + " = ")
			var t types.Type
			if st.bound != nil && i < len(st.bound.params) {
				t = st.bound.params[i]
			}
			switch {
			case p.IsNull():
				b.WriteString("NULL")
			case s.e.logParams:
				b.WriteString(strconv.Quote(types.FormatText(p, t, s.TextConfig())))
			default:
				b.WriteString("<redacted " + t.String() + ">")
			}
		}
		attrs = append(attrs, "params", b.String())
	}
	log.DebugContext(ctx, "statement", attrs...)
}
