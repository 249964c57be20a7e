package engine

import (
	"context"
	"encoding/binary"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/streamdb/streamdb/catalog"
	"github.com/streamdb/streamdb/dataflow"
	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/sources"
	"github.com/streamdb/streamdb/storage"
	"github.com/streamdb/streamdb/types"
)

// runningSource is a source the engine ingests from. Its goroutine runs
// the sources.Source; every batch it emits becomes part of a tick, which
// commits the batch's rows together with its resume positions.
type runningSource struct {
	obj *catalog.Object
	src sources.Source
	// outputs holds the relation id of each output; progress and errors
	// are the companion relations.
	outputs  []uint64
	progress uint64
	errors   uint64
	resume   map[string][]byte
	// byRow indexes the rows of an append relation by their key
	// encoding once a retraction needs it (see applyChanges), by
	// relation id.
	byRow map[uint64]map[string][]string
	// keyBuf, valBuf and ends are appendChanges' scratch space (for a
	// cold relation, appendCold's chunk and row).
	keyBuf, valBuf []byte
	ends           []int
	// spare holds, per relation that is not stored, the delta of the
	// last tick whose batch went back to the source (see
	// releaseBatches): the next tick's delta is built in it.
	spare map[uint64]dataflow.Batch

	mu     sync.Mutex
	state  sources.State
	reason string

	cancel  context.CancelFunc
	dropped bool // set by the coordinator when the source is dropped
	// idle is set while a source that is not stored waits for a view to
	// read it (see startStreams).
	idle bool
	// done is closed when the source's Run has returned; after, when
	// set, is closed once the runtime this one replaced has (see
	// DDL.ReplaceSource), and the source starts only then.
	done    chan struct{}
	started bool
	after   <-chan struct{}
}

// status returns the state SHOW SOURCES reports.
func (rs *runningSource) status() string {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if rs.idle {
		return "waiting for a view"
	}
	if (rs.state == sources.Stalled || rs.state == sources.Snapshotting) && rs.reason != "" {
		return string(rs.state) + ": " + rs.reason
	}
	if rs.state == "" {
		return string(sources.Starting)
	}
	return string(rs.state)
}

// sourceSink is the engine side of a running source.
type sourceSink struct {
	e  *Engine
	rs *runningSource
}

// Emit hands a batch to the tick loop and waits until it is committed.
func (k *sourceSink) Emit(ctx context.Context, b *sources.Batch) error {
	return k.e.submit(ctx, &coordReq{source: k.rs, batch: b})
}

// Status records the source's state.
func (k *sourceSink) Status(s sources.State, reason string) {
	k.rs.mu.Lock()
	k.rs.state, k.rs.reason = s, reason
	k.rs.mu.Unlock()
}

// startSource runs a source in the tick loop's group until ctx ends or
// the source is dropped. A source that fails for good stalls with its
// reason; it does not stop the engine. A source that is not stored
// waits for a view to read it: the events it would ingest before would
// reach no view, and a view made after them could not be hydrated.
func (e *Engine) startSource(ctx context.Context, rs *runningSource) {
	if rs.obj.NotStored && !e.isRead(rs) {
		rs.idle = true
		return
	}
	rs.idle = false
	ctx, rs.cancel = context.WithCancel(ctx)
	rs.started = true
	sink := &sourceSink{e: e, rs: rs}
	e.group.Go(func() error {
		defer close(rs.done)
		err := rs.src.Run(ctx, rs.resume, sink)
		if err != nil && ctx.Err() == nil {
			sink.Status(sources.Stalled, err.Error())
			e.log.Error("source stopped", "source", rs.obj.Name, "err", err)
		}
		return nil
	})
}

// applySource writes a source batch into the source's relations and the
// store, with the positions it reads up to, and records the deltas.
//
// The batch applies in the order package sources documents: AddColumns,
// Truncate, Changes, DeadLetters, Progress.
func (e *Engine) applySource(ctx context.Context, rs *runningSource, b *sources.Batch, batch *storage.Batch, deltas map[uint64]dataflow.Batch) error {
	if rs.dropped {
		return pgerr.New(pgerr.ObjectNotInPrerequisiteState, "source %q was dropped", rs.obj.Name)
	}
	if err := e.checkSchemaChanges(rs, b, deltas); err != nil {
		return err
	}
	if err := e.addColumns(ctx, rs, b.AddColumns, batch); err != nil {
		return err
	}
	rest, err := e.dropUnread(rs, b, batch, deltas)
	if err != nil {
		return err
	}
	if err := e.truncate(rs, rest, batch, deltas); err != nil {
		return err
	}
	for i, changes := range b.Changes {
		if i >= len(rs.outputs) || rs.outputs[i] == 0 || len(changes) == 0 {
			continue
		}
		apply := e.applyChanges
		if slices.Contains(b.Fresh, i) {
			apply = e.applyFresh
		}
		if err := apply(rs, rs.outputs[i], changes, batch, deltas); err != nil {
			return err
		}
	}
	if len(b.DeadLetters) > 0 {
		// Errors relations created before the offset column was an int8
		// named "offset" have a text column "position".
		errs, ok := e.tables[rs.errors]
		if !ok {
			return fmt.Errorf("errors relation %d of source %s is missing", rs.errors, rs.obj.Name)
		}
		textOffset := errs.obj.Columns[1].Type.Family == types.Text
		changes := make([]sources.Change, len(b.DeadLetters))
		for i, dl := range b.DeadLetters {
			at := dl.Time
			if at.IsZero() {
				at = time.Now()
			}
			offset := types.NewInt8(dl.Offset)
			if textOffset {
				offset = types.NewText(strconv.FormatInt(dl.Offset, 10))
			}
			changes[i] = sources.Change{Diff: 1, Row: types.Row{
				types.NewText(dl.Partition), offset,
				nullableBytes(dl.Key), nullableBytes(dl.Value),
				types.NewText(dl.Err), types.NewTimestampTZ(at.UnixMicro()),
			}}
		}
		if err := e.applyChanges(rs, rs.errors, changes, batch, deltas); err != nil {
			return err
		}
	}
	for key, st := range b.State {
		batch.SetPosition(rs.obj.ID, key, st)
	}
	if len(b.Progress) > 0 {
		changes := make([]sources.Change, 0, len(b.Progress))
		for part, pos := range b.Progress {
			batch.SetPosition(rs.obj.ID, part, pos)
			offset := types.Null
			if len(pos) == 8 {
				offset = types.NewInt8(int64(binary.BigEndian.Uint64(pos)))
			}
			key := types.Row{types.NewText(part)}
			changes = append(changes, sources.Change{Key: key, Row: types.Row{key[0], offset}})
		}
		if err := e.applyChanges(rs, rs.progress, changes, batch, deltas); err != nil {
			return err
		}
	}
	return nil
}

func nullableBytes(b []byte) types.Datum {
	if b == nil {
		return types.Null
	}
	return types.NewBytea(b)
}

// applyChanges applies a source's changes to one of its relations. Upsert
// relations key rows by their key columns. Append relations store each row
// under a generated row id, as tables without a primary key do: ids only
// grow, so a tick's rows append to the end of the relation in memory and in
// Pebble, and the key adds 8 bytes to the row instead of a second copy of
// it. A retraction finds a stored row equal to the one it retracts through
// rs's byRow index, which only relations that ever retract build.
func (e *Engine) applyChanges(rs *runningSource, id uint64, changes []sources.Change, batch *storage.Batch, deltas map[uint64]dataflow.Batch) error {
	t, ok := e.tables[id]
	if !ok {
		return fmt.Errorf("source relation %d is missing", id)
	}
	if wm := e.wms[id]; wm != nil {
		var dead []sources.Change
		changes, dead = screenSource(wm, changes, e.clock.Now())
		if len(dead) > 0 && rs.errors != 0 {
			if err := e.applyChanges(rs, rs.errors, dead, batch, deltas); err != nil {
				return err
			}
		}
	}
	d := deltas[id]
	if d == nil && rs.spare[id] != nil {
		d = rs.spare[id][:0]
		delete(rs.spare, id)
	}
	d = slices.Grow(d, len(changes))
	var err error
	switch {
	case t.notStored():
		d, err = streamChanges(t, changes, d)
	case t.obj.Appends:
		d, err = appendChanges(rs, t, changes, batch, d)
	default:
		d, err = upsertChanges(t, changes, batch, d)
	}
	if err != nil {
		return err
	}
	if len(d) > 0 {
		deltas[id] = d
		e.dirty[id] = true
	}
	return nil
}

// upsertChanges replaces or deletes the rows of an upsert relation by key,
// appending the resulting updates to d. A change that moves a row to
// another key (OldKey) deletes the row under the old key first; one that
// leaves columns Unchanged takes them from the row it replaces, and
// applies nothing when there is none.
func upsertChanges(t *tableState, changes []sources.Change, batch *storage.Batch, d dataflow.Batch) (dataflow.Batch, error) {
	var buf []byte
	// remove deletes the row under key, returning it.
	remove := func(key string) (types.Row, bool, error) {
		old, ok, err := t.remove(key)
		if err != nil || !ok {
			return nil, false, err
		}
		batch.Delete(t.obj.ID, []byte(key))
		row, err := types.DecodeRow([]byte(old), nil)
		if err != nil {
			return nil, false, err
		}
		d = append(d, dataflow.Update{Row: row, Diff: -1})
		return row, true, nil
	}
	for _, ch := range changes {
		key := string(types.AppendKeyRow(buf[:0], ch.Key))
		var prev types.Row
		var had bool
		if ch.OldKey != nil {
			from := string(types.AppendKeyRow(buf[:0], ch.OldKey))
			var err error
			if from != key {
				if prev, had, err = remove(from); err != nil {
					return d, err
				}
			}
		}
		row := ch.Row
		if row != nil && len(ch.Unchanged) > 0 {
			if ch.OldKey == nil || string(types.AppendKeyRow(buf[:0], ch.OldKey)) == key {
				old, ok, err := t.get(key)
				if err != nil {
					return d, err
				}
				if ok {
					if prev, err = types.DecodeRow([]byte(old), nil); err != nil {
						return d, err
					}
					had = true
				}
			}
			if !had {
				// The row it replaces never arrived (a dead letter):
				// it stays absent rather than gain NULLs.
				continue
			}
			row = slices.Clone(row)
			for _, c := range ch.Unchanged {
				if c >= 0 && c < len(row) && c < len(prev) {
					row[c] = prev[c]
				}
			}
		}
		if _, _, err := remove(key); err != nil {
			return d, err
		}
		if row == nil {
			continue
		}
		buf = types.AppendRow(buf[:0], row)
		t.insert(key, string(buf))
		batch.Put(t.obj.ID, []byte(key), buf)
		d = append(d, dataflow.Update{Row: row, Diff: 1})
	}
	return d, nil
}

// streamChanges passes the changes of a relation that is not stored on
// as its delta, counting the rows it ingested. Such a relation never
// retracts: nothing would find the row retracted.
func streamChanges(t *tableState, changes []sources.Change, d dataflow.Batch) (dataflow.Batch, error) {
	for _, ch := range changes {
		if ch.Diff < 0 {
			return d, fmt.Errorf("source relation %s is not stored, but its source retracted a row", t.obj.Name)
		}
		if ch.Diff > 0 {
			d = append(d, dataflow.Update{Row: ch.Row, Diff: ch.Diff})
			t.rows += ch.Diff
		}
	}
	t.snap = nil
	return d, nil
}

// appendChanges inserts and retracts the rows of an append relation,
// appending the resulting updates to d. The inserted rows' keys and values
// are encoded into scratch buffers and stored as slices of one string
// each, two allocations per batch rather than two per row; rows of an
// append relation are rarely deleted, so the shared strings seldom outlive
// most of their rows. A cold relation's rows go to the store in chunks
// (appendCold).
func appendChanges(rs *runningSource, t *tableState, changes []sources.Change, batch *storage.Batch, d dataflow.Batch) (dataflow.Batch, error) {
	if t.store != nil {
		return appendCold(rs, t, changes, batch, d)
	}
	id := t.obj.ID
	idx := rs.byRow[id]
	keys, vals, ends := rs.keyBuf[:0], rs.valBuf[:0], rs.ends[:0]
	first := len(d)
	// flush stores the inserts gathered since the last retraction.
	flush := func() {
		ks, vs := string(keys), string(vals)
		start := 0
		for i, end := range ends {
			batch.Put(id, keys[8*i:8*i+8], vals[start:end])
			key := ks[8*i : 8*i+8]
			t.insert(key, vs[start:end])
			if idx != nil {
				p := string(types.AppendKeyRow(nil, d[first+i].Row))
				idx[p] = append(idx[p], key)
			}
			start = end
		}
		t.snap = nil
		keys, vals, ends = keys[:0], vals[:0], ends[:0]
		first = len(d)
	}
	for _, ch := range changes {
		for n := ch.Diff; n > 0; n-- {
			keys = binary.BigEndian.AppendUint64(keys, uint64(t.nextRowID))
			t.nextRowID++
			vals = types.AppendRow(vals, ch.Row)
			ends = append(ends, len(vals))
			d = append(d, dataflow.Update{Row: ch.Row, Diff: 1})
		}
		if ch.Diff >= 0 {
			continue
		}
		flush()
		if idx == nil {
			var err error
			if idx, err = buildRowIndex(t.snapshot()); err != nil {
				return d, err
			}
			if rs.byRow == nil {
				rs.byRow = map[uint64]map[string][]string{}
			}
			rs.byRow[id] = idx
		}
		p := string(types.AppendKeyRow(nil, ch.Row))
		for n := ch.Diff; n < 0 && len(idx[p]) > 0; n++ {
			ks := idx[p]
			key := ks[len(ks)-1]
			if len(ks) == 1 {
				delete(idx, p)
			} else {
				idx[p] = ks[:len(ks)-1]
			}
			old, _, err := t.remove(key)
			if err != nil {
				return d, err
			}
			batch.Delete(id, []byte(key))
			row, err := types.DecodeRow([]byte(old), nil)
			if err != nil {
				return d, err
			}
			d = append(d, dataflow.Update{Row: row, Diff: -1})
		}
		first = len(d)
	}
	if len(ends) > 0 {
		flush()
	}
	rs.keyBuf, rs.valBuf, rs.ends = keys, vals, ends
	return d, nil
}

// buildRowIndex maps the key encoding of every row of an append relation
// to the keys it is stored under, for finding rows to retract.
func buildRowIndex(s *TableSnap) (map[string][]string, error) {
	idx := map[string][]string{}
	err := s.Scan(func(key string, row types.Row) bool {
		p := string(types.AppendKeyRow(nil, row))
		idx[p] = append(idx[p], key)
		return true
	})
	return idx, err
}

// isRead reports whether a flow reads one of a source's outputs.
func (e *Engine) isRead(rs *runningSource) bool {
	for _, id := range rs.outputs {
		if id != 0 && len(e.readers[id]) > 0 {
			return true
		}
	}
	return false
}

// startStreams starts the sources that are not stored and waited for a
// view that now reads them. The coordinator calls it after every change
// that can add a reader.
func (e *Engine) startStreams(ctx context.Context) {
	e.sourcesMu.Lock()
	defer e.sourcesMu.Unlock()
	for _, rs := range e.running {
		if rs.idle && e.isRead(rs) {
			e.startSource(ctx, rs)
		}
	}
}

// SourceStatus returns a source's state for SHOW SOURCES.
func (e *Engine) SourceStatus(id uint64) string {
	e.sourcesMu.Lock()
	rs := e.running[id]
	e.sourcesMu.Unlock()
	if rs == nil {
		return "stopped"
	}
	return rs.status()
}

// runningFor assembles a source's runtime from its catalog entries: the
// source holds the rows of its one output itself, or each output kept
// has a data subsource, and the progress and errors subsources belong to
// it. An output that is not kept has relation id 0.
func runningFor(cat *catalog.Catalog, src *catalog.Object, s sources.Source) *runningSource {
	rs := &runningSource{obj: src, src: s, outputs: make([]uint64, len(s.Outputs())), done: make(chan struct{})}
	if src.HasRows() && len(rs.outputs) > 0 {
		rs.outputs[0] = src.ID
	}
	for _, o := range cat.Dependents(src.ID) {
		if o.Source != src.ID {
			continue
		}
		switch o.Role {
		case "data":
			if o.Output < len(rs.outputs) {
				rs.outputs[o.Output] = o.ID
			}
		case "progress":
			rs.progress = o.ID
		case "errors":
			rs.errors = o.ID
		}
	}
	return rs
}

// recoverSource rebuilds a source after a restart from its stored
// definition (through the binder) and positions. It is started, with
// the others, when the tick loop starts, once the whole catalog is
// loaded and its relations exist.
func (e *Engine) recoverSource(o *catalog.Object) error {
	resume := map[string][]byte{}
	if err := e.store.Positions(o.ID, func(part string, pos []byte) error {
		resume[part] = append([]byte(nil), pos...)
		return nil
	}); err != nil {
		return err
	}
	e.pendingSources = append(e.pendingSources, pendingSource{obj: o, resume: resume})
	return nil
}

// pendingSource is a recovered source waiting for its relations.
type pendingSource struct {
	obj    *catalog.Object
	resume map[string][]byte
}

// wireSources builds the recovered sources and connects them to their
// relations. It runs once the whole catalog is loaded: a source's
// subsources, which may describe what it replicates (a PostgreSQL
// source's upstream tables), come after it in id order.
func (e *Engine) wireSources() error {
	for _, p := range e.pendingSources {
		src, err := e.binder.OpenSource(e.cat, p.obj)
		if err != nil {
			return fmt.Errorf("recover source %q: %w", p.obj.Name, err)
		}
		rs := runningFor(e.cat, p.obj, src)
		rs.resume = p.resume
		e.running[p.obj.ID] = rs
	}
	e.pendingSources = nil
	return nil
}

// SourceDef describes a new source for CreateSource.
type SourceDef struct {
	Name string
	// SQL is the statement that created the source, which the Binder
	// rebuilds it from on start.
	SQL string
	// DependsOn lists the objects the source uses (its connection).
	DependsOn []uint64
	// Own says the source object holds the rows of the source's one
	// output itself (a Kafka topic). Otherwise Relations names the
	// relation of each output, a subsource; an output with no name is
	// not kept.
	Own       bool
	Relations []string
	// StartTimestamp is an absolute start time the source reads from,
	// kept for its restarts (see catalog.Object.StartTimestamp).
	StartTimestamp int64
	// NotStored says the outputs' rows are not kept, only fed to the
	// views that read them (WITH (STORED = false)); every output must
	// then be append-only.
	NotStored bool
	// Watermark and LateData are the event-time watermark of the first
	// output's relation and its policy for late rows (catalog.Object).
	Watermark *catalog.WatermarkDef
	LateData  string
	// Upstream describes, per output, the upstream table its subsource
	// replicates (a PostgreSQL source's); nil entries for none.
	Upstream []*catalog.UpstreamTable
}

// CreateSource creates a source: its catalog entry, the relations of its
// outputs, and its progress and errors relations; and runs s from the
// start once the change has committed.
func (tx *DDL) CreateSource(ctx context.Context, def SourceDef, s sources.Source) error {
	src := &catalog.Object{Kind: catalog.KindSource, Schema: catalog.DefaultSchema, Name: def.Name, SQL: def.SQL,
		DependsOn: def.DependsOn, StartTimestamp: def.StartTimestamp, NotStored: def.NotStored, ID: tx.NextID()}
	if def.NotStored {
		if tx.e.recompute {
			return pgerr.New(pgerr.FeatureNotSupported, "a source that is not stored needs the views over it to persist their state, which this server does not (it recomputes views on start)")
		}
		for _, out := range s.Outputs() {
			if len(out.Key) > 0 || out.Retracts {
				return pgerr.New(pgerr.FeatureNotSupported, "STORED = false is only supported for append-only sources: output %q of source %q replaces or retracts rows", out.Name, def.Name)
			}
		}
	}
	objs := []*catalog.Object{src}
	for i, out := range s.Outputs() {
		switch {
		case def.Own && i == 0:
			setOutputColumns(src, out)
			src.Watermark, src.LateData = def.Watermark, def.LateData
		case !def.Own && i < len(def.Relations) && def.Relations[i] != "":
			o := tx.subsourceObject(src, def.Relations[i], i, out)
			if i < len(def.Upstream) {
				o.Upstream = def.Upstream[i]
			}
			if i == 0 {
				o.Watermark, o.LateData = def.Watermark, def.LateData
			}
			objs = append(objs, o)
		}
	}
	for _, comp := range []struct {
		role string
		cols []catalog.ColumnDef
		key  []int
	}{{"progress", catalog.ProgressColumns, []int{0}}, {"errors", catalog.ErrorsColumns, nil}} {
		objs = append(objs, &catalog.Object{Kind: catalog.KindSubsource, Schema: catalog.DefaultSchema, Name: def.Name + "_" + comp.role,
			SQL: def.SQL, Source: src.ID, Role: comp.role, Columns: comp.cols, PrimaryKey: comp.key,
			Appends: comp.key == nil, Cold: comp.key == nil, ID: tx.NextID()})
	}
	for _, o := range objs {
		if other, exists := tx.cat.Lookup(o.Schema, o.Name); exists {
			err := tx.cat.NameTaken(other)
			if o != src {
				err.Detail = fmt.Sprintf("Source %q would create %s %q; %s", def.Name, o.Kind, o.Name, err.Detail)
				if o.Role == "data" {
					err.Hint = "Name the source's tables yourself: FOR TABLES (name AS other_name, …)."
				}
			}
			return err
		}
	}
	for _, o := range objs {
		if err := tx.Create(ctx, o); err != nil {
			return err
		}
	}
	rs := runningFor(tx.cat, src, s)
	tx.afterCommit(func(ctx context.Context, e *Engine) {
		e.sourcesMu.Lock()
		e.running[rs.obj.ID] = rs
		e.sourcesMu.Unlock()
		e.startSource(ctx, rs)
	})
	return nil
}

// subsourceObject returns the catalog entry of the relation that output i
// of source src fills.
func (tx *DDL) subsourceObject(src *catalog.Object, name string, i int, out sources.Output) *catalog.Object {
	o := &catalog.Object{Kind: catalog.KindSubsource, Schema: catalog.DefaultSchema, Name: name, SQL: src.SQL,
		Source: src.ID, Role: "data", Output: i, ID: tx.NextID(), NotStored: src.NotStored}
	setOutputColumns(o, out)
	return o
}

// setOutputColumns gives the relation of an output its columns and the
// way its rows are kept (o.NotStored set before, from its source).
func setOutputColumns(o *catalog.Object, out sources.Output) {
	o.Columns = outputColumns(out)
	o.PrimaryKey = out.Key
	o.Appends = len(out.Key) == 0
	o.Cold = o.Appends && !out.Retracts && !o.NotStored
}

// CreateSubsource adds the relation of output i of source src (ALTER
// SOURCE … ADD SUBSOURCE), empty; the source's new runtime, which has
// that output, is given by ReplaceSource in the same change.
func (tx *DDL) CreateSubsource(ctx context.Context, src *catalog.Object, name string, i int, out sources.Output, upstream *catalog.UpstreamTable) error {
	if other, exists := tx.cat.Lookup(catalog.DefaultSchema, name); exists {
		return pgerr.New(pgerr.DuplicateTable, "%s %q already exists", other.Kind, name)
	}
	o := tx.subsourceObject(src, name, i, out)
	o.Upstream = upstream
	return tx.Create(ctx, o)
}

func outputColumns(out sources.Output) []catalog.ColumnDef {
	cols := make([]catalog.ColumnDef, len(out.Columns))
	for i, c := range out.Columns {
		cols[i] = catalog.ColumnDef{Name: c.Name, Type: c.Type, NotNull: c.NotNull}
	}
	return cols
}
