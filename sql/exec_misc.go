package sql

import (
	"context"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/streamdb/streamdb/catalog"
	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/pgwire"
	"github.com/streamdb/streamdb/planner"
	"github.com/streamdb/streamdb/types"
)

// setValue renders SET's argument list as the setting's text.
func setValue(args []*pg_query.Node) (string, error) {
	var parts []string
	for _, a := range args {
		switch {
		case a.GetAConst() != nil:
			c := a.GetAConst()
			switch v := c.Val.(type) {
			case *pg_query.A_Const_Sval:
				parts = append(parts, v.Sval.Sval)
			case *pg_query.A_Const_Ival:
				parts = append(parts, itoa64(int64(v.Ival.Ival)))
			case *pg_query.A_Const_Fval:
				parts = append(parts, v.Fval.Fval)
			case *pg_query.A_Const_Boolval:
				if v.Boolval.Boolval {
					parts = append(parts, "on")
				} else {
					parts = append(parts, "off")
				}
			}
		case a.GetTypeCast() != nil:
			// SET TIME ZONE INTERVAL '…' and the like.
			inner, err := setValue([]*pg_query.Node{a.GetTypeCast().Arg})
			if err != nil {
				return "", err
			}
			parts = append(parts, inner)
		default:
			return "", pgerr.New(pgerr.SyntaxError, "SET value must be a constant")
		}
	}
	return strings.Join(parts, ", "), nil
}

func itoa64(v int64) string {
	return string(types.AppendText(nil, types.NewInt8(v), types.TypeInt8, types.DefaultTextConfig()))
}

// settingName maps SET's special spellings to the parameter name.
func settingName(name string) string {
	switch strings.ToLower(name) {
	case "timezone":
		return "TimeZone"
	case "transaction_isolation":
		return "transaction_isolation"
	}
	return name
}

func (s *session) bindSet(vs *pg_query.VariableSetStmt) (*boundStmt, error) {
	name := settingName(vs.Name)
	switch vs.Kind {
	case pg_query.VariableSetKind_VAR_SET_MULTI:
		// SET TRANSACTION / SESSION CHARACTERISTICS: streamdb runs every
		// transaction with the same isolation, so these are accepted.
		return independent(nil, func(ctx context.Context, s *session, _ []types.Datum) (pgwire.Result, error) {
			return commandResult("SET"), nil
		}), nil
	case pg_query.VariableSetKind_VAR_RESET_ALL:
		return independent(nil, func(ctx context.Context, s *session, _ []types.Datum) (pgwire.Result, error) {
			old := s.info.settings
			s.resetRole()
			s.info.settings = s.info.sessionSettings().withNames(old.names)
			s.reportChanges(old)
			return commandResult("RESET"), nil
		}), nil
	}
	reset := vs.Kind == pg_query.VariableSetKind_VAR_SET_DEFAULT || vs.Kind == pg_query.VariableSetKind_VAR_RESET
	if name == "role" {
		return bindSetRole(vs, reset)
	}
	value := ""
	if !reset {
		v, err := setValue(vs.Args)
		if err != nil {
			return nil, err
		}
		value = v
	}
	tag := "SET"
	if vs.Kind == pg_query.VariableSetKind_VAR_RESET {
		tag = "RESET"
	}
	return independent(nil, func(ctx context.Context, s *session, _ []types.Datum) (pgwire.Result, error) {
		old := s.info.settings
		next, def, err := old.set(name, value, reset)
		if err != nil {
			return nil, err
		}
		s.info.settings = next
		if def.reported {
			v, _ := next.get(def.name)
			if ov, _ := old.get(def.name); ov != v && s.notifier != nil {
				s.notifier.ParameterStatus(def.name, v)
			}
		}
		return commandResult(tag), nil
	}), nil
}

// reportChanges sends ParameterStatus for reported settings that differ
// from old.
func (s *session) reportChanges(old *settings) {
	if s.notifier == nil {
		return
	}
	prev := old.reported()
	for i, kv := range s.info.settings.reported() {
		if prev[i][1] != kv[1] {
			s.notifier.ParameterStatus(kv[0], kv[1])
		}
	}
}

func (s *session) bindShow(cat *catalog.Catalog, vs *pg_query.VariableShowStmt) (*boundStmt, error) {
	name := strings.ToLower(vs.Name)
	switch name {
	case "all":
		cols := []pgwire.Column{{Name: "name", Type: types.TypeText}, {Name: "setting", Type: types.TypeText}, {Name: "description", Type: types.TypeText}}
		return independent(cols, func(ctx context.Context, s *session, _ []types.Datum) (pgwire.Result, error) {
			var rows []types.Row
			for _, kv := range s.info.settings.all() {
				rows = append(rows, types.Row{types.NewText(kv[0]), types.NewText(kv[1]), types.NewText(kv[2])})
			}
			return &rowsResult{rows: rows, tag: "SHOW"}, nil
		}), nil
	case "tables", "views":
		kind := catalog.KindTable
		if name == "views" {
			kind = catalog.KindView
		}
		return showObjects(kind), nil
	}
	def := settingName(vs.Name)
	if _, ok := newSettings("").get(def); !ok {
		return nil, pgerr.New(pgerr.UndefinedObject, "unrecognized configuration parameter %q", vs.Name)
	}
	canonical := def
	if i, ok := settingIndex[strings.ToLower(def)]; ok {
		canonical = settingDefs[i].name
	}
	cols := []pgwire.Column{{Name: strings.ToLower(canonical), Type: types.TypeText}}
	if canonical == "TimeZone" {
		cols[0].Name = "TimeZone"
	} else if canonical == "DateStyle" {
		cols[0].Name = "DateStyle"
	} else if canonical == "IntervalStyle" {
		cols[0].Name = "IntervalStyle"
	}
	return independent(cols, func(ctx context.Context, s *session, _ []types.Datum) (pgwire.Result, error) {
		v, _ := s.info.settings.get(def)
		return &rowsResult{rows: []types.Row{{types.NewText(v)}}, tag: "SHOW"}, nil
	}), nil
}

// showObjects lists the objects of one kind, as SHOW TABLES does.
func showObjects(kind catalog.ObjectKind) *boundStmt {
	cols := []pgwire.Column{{Name: "name", Type: types.TypeText}}
	return &boundStmt{cols: cols, run: func(ctx context.Context, s *session, _ []types.Datum) (pgwire.Result, error) {
		var rows []types.Row
		for _, o := range s.e.snapshot().Catalog().Objects(kind) {
			rows = append(rows, types.Row{types.NewText(o.Name)})
		}
		return &rowsResult{rows: rows, tag: "SHOW"}, nil
	}, catalogIndependent: true}
}

// bindExplain explains a SELECT, or the read that finds the rows of an
// UPDATE or DELETE, as the statement would run it.
func (s *session) bindExplain(cat *catalog.Catalog, raw *rawStatement, es *pg_query.ExplainStmt, params []types.Type) (*boundStmt, error) {
	b := newBinder(cat, &s.info, params)
	var q *planner.Query
	switch {
	case es.Query.GetSelectStmt() != nil:
		bq, err := b.selectStmt(es.Query.GetSelectStmt(), nil)
		if err != nil {
			return nil, err
		}
		q = bq.q
	case es.Query.GetUpdateStmt() != nil:
		up := es.Query.GetUpdateStmt()
		obj, err := writeTarget(cat, up.Relation, "update")
		if err != nil {
			return nil, err
		}
		plan, err := b.updatePlan(up, obj, aliasOf(up.Relation))
		if err != nil {
			return nil, err
		}
		q = &planner.Query{Root: plan}
	case es.Query.GetDeleteStmt() != nil:
		del := es.Query.GetDeleteStmt()
		obj, err := writeTarget(cat, del.Relation, "delete from")
		if err != nil {
			return nil, err
		}
		plan, err := b.deletePlan(del, obj, aliasOf(del.Relation))
		if err != nil {
			return nil, err
		}
		q = &planner.Query{Root: plan}
	default:
		return nil, pgerr.New(pgerr.FeatureNotSupported, "EXPLAIN is supported for SELECT, UPDATE and DELETE only")
	}
	q, err := planner.Plan(q, planner.OneTick)
	if err != nil {
		return nil, err
	}
	text := planner.Explain(q)
	cols := []pgwire.Column{{Name: "QUERY PLAN", Type: types.TypeText}}
	return &boundStmt{params: b.paramTypes(), cols: cols, run: func(ctx context.Context, s *session, _ []types.Datum) (pgwire.Result, error) {
		var rows []types.Row
		for _, line := range strings.Split(strings.TrimRight(text, "\n"), "\n") {
			rows = append(rows, types.Row{types.NewText(line)})
		}
		return &rowsResult{rows: rows, tag: "EXPLAIN"}, nil
	}}, nil
}
