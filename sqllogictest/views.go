package sqllogictest

import (
	"context"
	"strings"
)

// createViews creates the views planned before record i. A creation that
// fails with SQLSTATE 0A000 (feature not supported), or because the query
// returns an anonymous record (42P16, which a PostgreSQL view cannot
// hold), sends the query to batch; any other failure is the query
// record's failure, reported when it is reached. A view name left over from an earlier crashed run is dropped
// and the creation retried once; a connection lost on the way is
// re-established for the views that follow.
//
// With Config.RefreshViews the views are created WITH NO DATA: PostgreSQL
// would otherwise run the query at once over the still empty tables, where
// for example 20 / count(*) divides by zero, although the query at its
// position, over the data, is fine.
func (f *fileRun) createViews(ctx context.Context, i int) {
	for _, v := range f.plan.before[i] {
		if err := f.ensureSession(ctx); err != nil {
			// A creation that timed out may have cost the connection.
			v.err = err
			continue
		}
		create := v.create
		if f.cfg.RefreshViews {
			create += " WITH NO DATA"
		}
		rctx, cancel := f.recordContext(ctx)
		_, err := f.sess.exec(rctx, create)
		if sqlState(err) == "42P07" {
			dropObject(rctx, f.sess, object{kind: "MATERIALIZED VIEW", name: objectName{v.name}})
			_, err = f.sess.exec(rctx, create)
		}
		cancel()
		switch {
		case err == nil:
			v.created = true
		case sqlState(err) == "0A000":
			v.fallback = "view not supported (0A000): " + errorMessage(err)
		case sqlState(err) == "42P16" && strings.Contains(errorMessage(err), "pseudo-type record"):
			// A query of anonymous records, which PostgreSQL keeps in
			// no relation.
			v.fallback = "view of a record column (42P16)"
		default:
			v.err = err
		}
	}
}

// readView reads a query's result from its view, refreshing it first when
// the server does not maintain views (Config.RefreshViews), and drops the
// view: no view outlives its query.
func (f *fileRun) readView(ctx context.Context, v *viewPlan, rec *Record) error {
	if f.cfg.RefreshViews {
		if _, err := f.sess.exec(ctx, "REFRESH MATERIALIZED VIEW "+v.name); err != nil {
			return err
		}
	}
	err := f.sess.query(ctx, v.read, rec.Types, &f.rs)
	if _, derr := f.sess.exec(ctx, "DROP MATERIALIZED VIEW "+v.name); derr == nil {
		v.dropped = true
	}
	return err
}

// countFallback counts query record i as run in batch, by reason.
func (f *fileRun) countFallback(i int) {
	if f.plan == nil {
		return
	}
	reason := f.plan.fallbacks[i]
	if v := f.plan.views[i]; v != nil && v.fallback != "" {
		reason = v.fallback
	}
	if reason == "" {
		reason = "unknown"
	}
	f.res.Fallbacks++
	f.res.FallbackReasons[shortReason(reason)]++
}

// shortReason keeps reason lines short in the summary.
func shortReason(r string) string {
	if i := strings.IndexByte(r, '\n'); i >= 0 {
		r = r[:i]
	}
	if len(r) > 120 {
		r = r[:117] + "..."
	}
	return r
}

// dropViews drops the views that were created but never read, as when a
// file stops early.
func (f *fileRun) dropViews(ctx context.Context) {
	if f.plan == nil {
		return
	}
	for _, v := range f.plan.views {
		if v.created && !v.dropped {
			dropObject(ctx, f.sess, object{kind: "MATERIALIZED VIEW", name: objectName{v.name}})
		}
	}
}
