package sql

import (
	"errors"
	"strconv"
	"strings"

	"github.com/streamdb/streamdb/catalog"
	"github.com/streamdb/streamdb/dataflow"
	"github.com/streamdb/streamdb/engine"
	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/sql/pgcatalog"
	"github.com/streamdb/streamdb/types"
)

// A materialized view in error reads as its first error (dataflow's
// errors as data). The read names the view, so that a user whose query
// joins several knows which one to look at, and points at
// streamdb_view_errors, which lists every error of every view with one
// input row that fails so (engine.ViewError).

// viewReadError is the error a read of materialized view name fails
// with when the view is in error err.
func viewReadError(name string, err error) error {
	pe := pgerr.As(err)
	if pe == nil || errors.Is(err, dataflow.ErrSnapshotGone) {
		return err
	}
	out := &pgerr.Error{Code: pe.Code, Severity: pe.Severity, Detail: pe.Detail, Err: err,
		Message: "materialized view " + quoteIdentifier(name) + ": " + pe.Message,
		Hint:    "SELECT * FROM streamdb_view_errors WHERE view = " + "'" + strings.ReplaceAll(name, "'", "''") + "'" + " shows an input row that fails so; the view reads again once no row does."}
	if pe.Hint != "" {
		out.Hint = pe.Hint + "\n" + out.Hint
	}
	return out
}

// ViewErrors implements pgcatalog.Source: the errors of the snapshot's
// materialized views, each with its example row in the text form of a
// record of its input.
func (v *catalogView) ViewErrors() []pgcatalog.ViewError {
	snap := v.snapshot()
	cat := snap.Catalog()
	var out []pgcatalog.ViewError
	for _, o := range cat.Objects(catalog.KindMaterializedView) {
		for _, ve := range v.s.e.eng.ViewErrors(snap, o.ID) {
			row := pgcatalog.ViewError{View: o.Name, Code: string(ve.Err.Code), Message: ve.Err.Message, Count: ve.Count, Since: ve.Since}
			if ex := ve.Example; ex != nil {
				row.Input, row.Example = exampleText(cat, ex)
				if ex.Located {
					row.Source, row.Partition, row.Offset = sourceName(cat, ex.Input), ex.Partition, ex.Offset
				}
			}
			out = append(out, row)
		}
	}
	return out
}

// exampleText names an example's relation and prints its row as a
// record of that relation's columns.
func exampleText(cat *catalog.Catalog, ex *engine.ErrorExample) (string, string) {
	in, ok := cat.ByID(ex.Input)
	if !ok {
		return "", ""
	}
	names := make([]string, len(ex.Row))
	typs := make([]types.Type, len(ex.Row))
	for i, d := range ex.Row {
		names[i] = "f" + strconv.Itoa(i+1)
		typs[i] = types.Type{Family: d.Kind(), Mod: -1}
		if i < len(in.Columns) {
			names[i], typs[i] = in.Columns[i].Name, in.Columns[i].Type
		}
	}
	rec := types.NewRecord(types.InternRecord(in.Name, names, typs), ex.Row)
	return in.Name, string(types.AppendText(nil, rec, types.RecordType(in.Name, names, typs), nil))
}

// sourceName is the name of the source that fills relation id: the
// relation itself for a source's only output, else its source.
func sourceName(cat *catalog.Catalog, id uint64) string {
	o, ok := cat.ByID(id)
	if !ok {
		return ""
	}
	if o.Kind == catalog.KindSubsource {
		if src, ok := cat.ByID(o.Source); ok {
			return src.Name
		}
	}
	return o.Name
}
