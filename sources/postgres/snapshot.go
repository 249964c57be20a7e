package postgres

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pglogrepl"
	"github.com/streamdb/streamdb/sources"
	"github.com/streamdb/streamdb/types"
)

// snapshotPending reads every table the position has no snapshot of, in
// one REPEATABLE READ transaction on the exported snapshot of a slot:
// the source's own slot when this session created it (the source's first
// start), else a temporary slot (a table added later, or a snapshot a
// crash interrupted). The snapshot's consistent point P is recorded per
// table; the stream applies a table's transactions only from P on, and
// the snapshot holds exactly those before, so the two neither overlap
// nor leave a gap.
func (s *session) snapshotPending(ctx context.Context) error {
	r := s.r
	var todo []*table
	for _, t := range r.tables {
		if _, ok := r.pos.tables[t.def.ID]; !ok {
			todo = append(todo, t)
		}
	}
	if len(todo) == 0 {
		return nil
	}
	exported := s.created
	if exported == nil {
		tmp, res, err := s.createTempSlot(ctx)
		if err != nil {
			return err
		}
		defer tmp.Close(context.Background())
		exported = &res
	}
	at, err := pglogrepl.ParseLSN(exported.ConsistentPoint)
	if err != nil {
		return err
	}
	if _, err := s.meta.Exec(ctx, "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY"); err != nil {
		return upstreamError("starting the snapshot", err)
	}
	defer s.meta.Exec(context.Background(), "ROLLBACK")
	if _, err := s.meta.Exec(ctx, "SET TRANSACTION SNAPSHOT "+quoteLiteral(exported.SnapshotName)); err != nil {
		return upstreamError("importing the snapshot", err)
	}
	published, err := publicationTables(ctx, s.meta, r.s.cfg.Publication, s.version)
	if err != nil {
		return err
	}
	byOID := make(map[uint32]pubTable, len(published))
	for _, pt := range published {
		byOID[pt.oid] = pt
	}
	r.s.log.Info("snapshot started", "tables", len(todo), "consistent_point", at.String())
	for i, t := range todo {
		if err := s.snapshotTable(ctx, t, byOID, at, i, len(todo)); err != nil {
			return err
		}
	}
	if _, err := s.meta.Exec(ctx, "COMMIT"); err != nil {
		return upstreamError("ending the snapshot", err)
	}
	s.created = nil
	return nil
}

// snapshotTable reads one table into batches of at most
// SnapshotBatchRows rows and about SnapshotBatchBytes. The first batch
// truncates the output (it may hold rows of an interrupted snapshot) and
// the last records the table's snapshot point; a crash between them
// leaves the table unrecorded, so the next start reads it again.
func (s *session) snapshotTable(ctx context.Context, t *table, published map[uint32]pubTable, at pglogrepl.LSN, nth, of int) error {
	r := s.r
	cfg := &r.s.cfg
	p := newPending(len(r.tables), &r.pos)
	if p.next.lsn == 0 {
		// The source's first start: the stream begins at the slot's
		// consistent point.
		p.next.lsn, p.next.sysid = at, s.sysid
	}
	p.next.tables[t.def.ID] = tableState{snapshot: at}
	p.stateChanged = true
	p.batch.Truncate = []int{t.out}
	pt, ok := published[t.def.OID]
	if !ok {
		r.stall(p, t, fmt.Sprintf("publication %q no longer covers upstream table %s; add it back (ALTER PUBLICATION %s ADD TABLE %s) and recreate the subsource",
			cfg.Publication, t.qname, maybeQuote(cfg.Publication), t.qname))
		return r.commit(ctx, p)
	}
	ct, err := readTable(ctx, s.meta, t.def.OID, pt.attnames)
	if err != nil {
		return err
	}
	if ct.missing {
		r.stall(p, t, fmt.Sprintf("upstream table %s no longer exists", t.qname))
		return r.commit(ctx, p)
	}
	sc, err := t.reconcile(ctx, s.meta, s.tr, &ct.rel)
	if err != nil {
		return err
	}
	if sc.stall != "" {
		r.stall(p, t, sc.stall)
		return r.commit(ctx, p)
	}
	for i, c := range sc.added {
		p.batch.AddColumns = append(p.batch.AddColumns, sources.AddedColumn{Output: t.out, Column: c, Fill: sc.fills[i]})
		t.cols = append(t.cols, c)
	}
	t.relCols = 0

	var total int64
	if err := s.meta.QueryRow(ctx, `SELECT reltuples::int8 FROM pg_catalog.pg_class WHERE oid = $1`, t.def.OID).Scan(&total); err != nil {
		return upstreamError("reading the upstream catalog", err)
	}
	sel, binary, err := s.selectList(ctx, t, &ct)
	if err != nil {
		return err
	}
	from := "ONLY " + quoteIdent(ct.rel.namespace) + "." + quoteIdent(ct.rel.name)
	if ct.partitioned {
		from = quoteIdent(ct.rel.namespace) + "." + quoteIdent(ct.rel.name)
	}
	query := "COPY (SELECT " + sel + " FROM " + from
	if pt.rowFilter != "" {
		query += " WHERE " + pt.rowFilter
	}
	query += ") TO STDOUT (FORMAT binary)"

	start := time.Now()
	lastLog := start
	var done, dead int64
	progress := func() {
		r.s.status.set(func(b *statusBoard) {
			b.tables[t.out].Snapshotting, b.tables[t.out].RowsDone, b.tables[t.out].RowsTotal = true, done, total
		})
		est := "unknown"
		if total >= 0 {
			est = fmt.Sprintf("≈%d", total)
		}
		r.report(sources.Snapshotting, fmt.Sprintf("table %d of %d (%s): %d of %s rows", nth+1, of, t.qname, done, est))
	}
	progress()
	r.s.log.Info("snapshotting table", "table", t.qname, "output", t.def.Output.Name, "rows_estimate", total)

	// The first batch keeps the table's snapshot point out of the
	// position; the last batch puts it in. Batches are committed on the
	// committer's goroutine while the next is read, so the position
	// they build on is view, not r.pos.
	final := p.next
	view := p.next.clone()
	delete(view.tables, t.def.ID)
	p.next = view
	c := r.startCommitter(ctx, nil)
	defer c.stop()
	var rows rowArena
	// A small table's batch gets room for its rows only.
	room := cfg.SnapshotBatchRows
	if total >= 0 && total < int64(room) {
		room = int(total) + 1
	}
	var size int // COPY bytes of the batch's rows
	// Every batch but the last is replayable: until the last records the
	// table's snapshot point, a restart reads the table again from its
	// Truncate, so a batch a machine crash loses is lost together with
	// all that follow it and read again. The last is committed durably,
	// and with it, the log being written in order, the others. Keyed rows
	// are fresh: the output was truncated and the key is unique upstream.
	newBatch := func() {
		p.batch.Changes[t.out] = make([]sources.Change, 0, room)
		size = 0
		p.batch.Replayable = true
		if t.key != nil {
			p.batch.Fresh = []int{t.out}
		}
	}
	newBatch()
	// waited is how long reading waited for the engine to commit the
	// batch before: the log tells which side bounds the snapshot.
	var waited time.Duration
	flush := func() error {
		w0 := time.Now()
		if err := c.wait(); err != nil {
			return err
		}
		waited += time.Since(w0)
		view = p.next
		c.send(p)
		p = newPending(len(r.tables), &view)
		newBatch()
		if now := time.Now(); now.Sub(lastLog) >= 10*time.Second {
			lastLog = now
			r.s.log.Info("snapshot progress", "table", t.qname, "rows", done, "rows_estimate", total)
		}
		progress()
		return nil
	}
	dec := &copyDecoder{ncols: len(t.cols), row: func(data []byte, fields []span) error {
		row, key, bad := t.snapshotRow(&rows, data, fields, binary)
		done++
		out := &p.batch.Changes[t.out]
		switch {
		case bad != nil:
			dead++
			p.batch.DeadLetters = append(p.batch.DeadLetters, sources.DeadLetter{
				Partition: t.def.Output.Name, Offset: int64(at), Key: keyText(t, row, bad), Err: bad.message(t), Time: time.Now()})
		case t.key != nil:
			*out = append(*out, sources.Change{Row: row, Key: key})
		default:
			*out = append(*out, sources.Change{Row: row, Diff: 1})
		}
		size += len(data)
		if len(*out)+len(p.batch.DeadLetters) >= cfg.SnapshotBatchRows || size >= cfg.SnapshotBatchBytes {
			return flush()
		}
		return nil
	}}
	if _, err := s.meta.PgConn().CopyTo(ctx, dec, query); err != nil {
		if ferr := c.stop(); ferr != nil {
			return ferr
		}
		return upstreamError("reading table "+t.qname, err)
	}
	p.next, p.stateChanged, p.batch.Replayable = final, true, false
	if err := flush(); err != nil {
		return err
	}
	if err := c.wait(); err != nil {
		return err
	}
	r.s.status.set(func(b *statusBoard) { b.tables[t.out].Snapshotting = false })
	elapsed := time.Since(start)
	r.s.log.Info("snapshotted table", "table", t.qname, "rows", done, "dead_letters", dead,
		"elapsed", elapsed, "rows_per_s", int64(float64(done)/max(elapsed.Seconds(), 1e-9)), "waited_for_engine", waited)
	return nil
}

// selectList is the snapshot's column list: each column read in binary
// when its upstream type is streamdb's, cast to text otherwise (enums,
// domains, arrays, TEXT COLUMNS). binary[i] says which.
func (s *session) selectList(ctx context.Context, t *table, ct *catalogTable) (string, []bool, error) {
	var sel strings.Builder
	binary := make([]bool, len(t.cols))
	for i, c := range t.cols {
		if i > 0 {
			sel.WriteString(", ")
		}
		sel.WriteString(quoteIdent(c.Name))
		if !t.isText(c.Name) {
			u, err := s.tr.resolve(ctx, s.meta, ct.rel.cols[i].oid, ct.rel.cols[i].typmod)
			if err != nil {
				return "", nil, err
			}
			binary[i] = u.exact
		}
		if !binary[i] {
			sel.WriteString("::text")
		}
	}
	return sel.String(), binary, nil
}

// snapshotRow decodes a row of the snapshot's binary COPY. The row's
// bytes are copied into one string, which the values of strings share.
func (t *table) snapshotRow(rows *rowArena, data []byte, fields []span, binary []bool) (row, key types.Row, bad *badValue) {
	n := len(t.cols)
	buf := rows.alloc(n + len(t.key))
	row = buf[:n:n]
	s := string(data)
	for i, f := range fields {
		if f.null {
			continue
		}
		d, err := snapshotValue(s[f.off:f.off+f.n], data[f.off:f.off+f.n], t.cols[i].Type, binary[i])
		if err != nil {
			if bad == nil {
				bad = &badValue{col: i, err: err}
			}
			continue
		}
		row[i] = d
	}
	if t.key != nil {
		key = buf[n:]
		for i, k := range t.key {
			key[i] = row[k]
		}
	}
	return row, key, bad
}

// snapshotValue decodes one field, given both as a string sharing the
// row's and as bytes; strings read in binary are their text, so they
// keep the string instead of copying the bytes again.
func snapshotValue(s string, b []byte, typ types.Type, binary bool) (types.Datum, error) {
	if !binary {
		return types.ParseText(s, typ, nil)
	}
	switch typ.Family {
	case types.Text, types.Varchar, types.Char, types.Name, types.JSON:
		return types.ParseText(s, typ, nil)
	case types.Bytea:
		return types.NewString(types.Bytea, s), nil
	}
	return types.ParseBinary(b, typ)
}

// rowArena hands out rows from blocks of a few rows each: one allocation
// per block instead of per row, while a block's memory stays bounded if a
// few of its rows outlive the others.
type rowArena struct{ block []types.Datum }

const arenaBlock = 256

func (a *rowArena) alloc(n int) types.Row {
	if len(a.block) < n {
		a.block = make([]types.Datum, max(n, arenaBlock))
	}
	r := a.block[:n:n]
	a.block = a.block[n:]
	return r
}

// keyText renders a decoded row's key for a dead letter, nil when the
// output has no key or the bad value is part of it.
func keyText(t *table, row types.Row, bad *badValue) []byte {
	if t.key == nil {
		return nil
	}
	parts := make([]string, len(t.key))
	for i, k := range t.key {
		if k == bad.col {
			return nil
		}
		if !row[k].IsNull() {
			parts[i] = types.FormatText(row[k], t.cols[k].Type, nil)
		}
	}
	return []byte("(" + strings.Join(parts, ",") + ")")
}
