package sql

import (
	"context"

	"github.com/streamdb/streamdb/catalog"
	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/sql/parser"
)

// bindResetSource binds ALTER SOURCE … RESET: a Kafka source whose topic
// was deleted and created again, or whose broker lost records, stalls
// rather than read on by offsets that now name other records; RESET is
// how a user who has looked says go on. The source is built afresh from
// its definition and runs from the start on the topic as it is now (as
// a new source would, START OFFSET included), keeping the rows it has
// ingested (engine.ResetSource). It runs outside a transaction block,
// since it cannot be undone.
func (s *session) bindResetSource(st *parser.AlterSource) (*boundStmt, error) {
	const tag = "ALTER SOURCE"
	b := ddl(tag, func(ctx context.Context, s *session) error {
		if s.txn != nil && !s.txn.implicit {
			return pgerr.New(pgerr.ActiveSQLTransaction, "ALTER SOURCE … RESET cannot run inside a transaction block")
		}
		cat := s.e.snapshot().Catalog()
		obj, name, ok := resolveName(cat, st.Name)
		if !ok {
			return pgerr.New(pgerr.UndefinedObject, "source %q does not exist", name)
		}
		if obj.Kind != catalog.KindSource {
			return errWrongKind(name, catalog.KindSource, obj.Kind)
		}
		parsed, _, _ := parser.Parse(obj.SQL)
		if cs, ok := parsed.(*parser.CreateSource); !ok || cs.Kafka == nil {
			return pgerr.New(pgerr.FeatureNotSupported, "ALTER SOURCE … RESET is supported for Kafka sources only").
				WithDetail("%q is not a Kafka source: starting it over would ingest its rows again.", name)
		}
		src, err := binderHooks{log: s.e.log}.OpenSource(cat, obj)
		if err != nil {
			return err
		}
		return s.e.eng.ResetSource(ctx, obj.ID, src)
	})
	b.catalogIndependent = true
	return b, nil
}
