package sql

import (
	"context"
	"log/slog"
	"strconv"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/streamdb/streamdb/sql/parser"
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
	attrs := []any{"pid", s.pid, "sql", redactedText(st.raw)}
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

// redactedText is a statement's text for the log: as sent, but for the
// statements that carry a secret's value or a password, which are
// printed again with the value replaced by ********.
func redactedText(raw *rawStatement) string {
	const mask = "********"
	switch st := raw.ours.(type) {
	case *parser.CreateSecret:
		c := *st
		c.Value.Value = mask
		return c.String()
	case *parser.AlterSecret:
		c := *st
		c.Value.Value = mask
		return c.String()
	}
	if raw.node == nil {
		return raw.text
	}
	var opts []*pg_query.Node
	var rebuild func([]*pg_query.Node) *pg_query.Node
	switch {
	case raw.node.GetCreateRoleStmt() != nil:
		cs := raw.node.GetCreateRoleStmt()
		opts = cs.Options
		rebuild = func(o []*pg_query.Node) *pg_query.Node {
			return &pg_query.Node{Node: &pg_query.Node_CreateRoleStmt{CreateRoleStmt: &pg_query.CreateRoleStmt{StmtType: cs.StmtType, Role: cs.Role, Options: o}}}
		}
	case raw.node.GetAlterRoleStmt() != nil:
		as := raw.node.GetAlterRoleStmt()
		opts = as.Options
		rebuild = func(o []*pg_query.Node) *pg_query.Node {
			return &pg_query.Node{Node: &pg_query.Node_AlterRoleStmt{AlterRoleStmt: &pg_query.AlterRoleStmt{Role: as.Role, Options: o, Action: as.Action}}}
		}
	default:
		return raw.text
	}
	masked := make([]*pg_query.Node, len(opts))
	found := false
	for i, n := range opts {
		masked[i] = n
		if d := n.GetDefElem(); d != nil && d.Defname == "password" && d.Arg != nil {
			masked[i] = &pg_query.Node{Node: &pg_query.Node_DefElem{DefElem: &pg_query.DefElem{Defname: d.Defname,
				Arg: &pg_query.Node{Node: &pg_query.Node_String_{String_: &pg_query.String{Sval: mask}}}}}}
			found = true
		}
	}
	if !found {
		return raw.text
	}
	text, err := deparse(rebuild(masked))
	if err != nil {
		return "<statement with a password>"
	}
	return text
}
