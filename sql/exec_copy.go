package sql

import (
	"bytes"
	"context"
	"encoding/binary"
	"slices"
	"strconv"
	"strings"
	"unsafe"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/streamdb/streamdb/catalog"
	"github.com/streamdb/streamdb/engine"
	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/pgwire"
	"github.com/streamdb/streamdb/planner/scalar"
	"github.com/streamdb/streamdb/types"
)

// COPY. COPY t FROM STDIN returns a copyIn result, which pgwire feeds the
// client's data: rows are parsed as the data arrives, held in memory, and
// written into the session's transaction only when the data is complete
// and every row parsed and passed the table's constraints, so a bad row
// fails the whole COPY and writes nothing. The write itself is the same as
// a multi-row INSERT's, minus the query: one transaction, one tick.
// COPY … TO STDOUT runs the query (a table's rows or any SELECT) and
// returns a copyOut result that formats rows into CopyData as pgwire asks
// for them.

// copyFileError is the error of COPY to or from a server file or
// program (see server_access.go): PostgreSQL's for a role that is not a
// superuser, 0A000 for a superuser.
func (s *session) copyFileError(cat *catalog.Catalog, cs *pg_query.CopyStmt) error {
	hint := "Use COPY … FROM STDIN or COPY … TO STDOUT; psql's \\copy reads and writes client-side files that way."
	if cat.IsSuperuser(s.info.role) {
		return pgerr.New(pgerr.FeatureNotSupported, "COPY to or from a file or program is not supported").WithHint("%s", hint)
	}
	var err *pgerr.Error
	switch {
	case cs.IsProgram:
		err = pgerr.New(pgerr.InsufficientPrivilege, "must be superuser or have privileges of the pg_execute_server_program role to COPY to or from an external program")
	case cs.IsFrom:
		err = pgerr.New(pgerr.InsufficientPrivilege, "must be superuser or have privileges of the pg_read_server_files role to COPY from a file")
	default:
		err = pgerr.New(pgerr.InsufficientPrivilege, "must be superuser or have privileges of the pg_write_server_files role to COPY to a file")
	}
	return err.WithHint("Anyone can COPY to stdout or from stdin. psql's \\copy command also works for anyone.")
}

// bindCopy binds a COPY statement.
func (s *session) bindCopy(cat *catalog.Catalog, raw *rawStatement, cs *pg_query.CopyStmt) (*boundStmt, error) {
	if cs.Filename != "" || cs.IsProgram {
		return nil, s.copyFileError(cat, cs)
	}
	if cs.WhereClause != nil {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "COPY FROM … WHERE is not supported")
	}
	f, err := copyOptions(cs.Options, cs.IsFrom)
	if err != nil {
		return nil, err
	}
	if cs.IsFrom {
		return s.bindCopyFrom(cat, cs, f)
	}
	return s.bindCopyTo(cat, raw, cs, f)
}

// copyOptions reads COPY's WITH options, with PostgreSQL's defaults and
// checks.
func copyOptions(opts []*pg_query.Node, from bool) (copyFormat, error) {
	f := copyFormat{delim: '\t', null: `\N`}
	var delim, quote, escape, null *string
	for _, n := range opts {
		d := n.GetDefElem()
		if d == nil {
			continue
		}
		val := defElemString(d)
		switch d.Defname {
		case "format":
			switch strings.ToLower(val) {
			case "text":
			case "csv":
				f.csv = true
			case "binary":
				f.binary = true
			default:
				return f, pgerr.New(pgerr.InvalidParameterValue, "COPY format %q not recognized", val)
			}
		case "header":
			switch strings.ToLower(val) {
			case "", "true", "on", "1":
				f.header = true
			case "false", "off", "0":
			case "match":
				if !from {
					return f, pgerr.New(pgerr.FeatureNotSupported, "cannot use \"match\" with HEADER in COPY TO")
				}
				f.header = true
			default:
				return f, pgerr.New(pgerr.InvalidParameterValue, "header requires a Boolean value or \"match\"")
			}
		case "delimiter":
			delim = &val
		case "null":
			null = &val
		case "quote":
			quote = &val
		case "escape":
			escape = &val
		case "encoding":
			if v := strings.ToUpper(strings.ReplaceAll(val, "-", "")); v != "UTF8" && v != "UNICODE" {
				return f, pgerr.New(pgerr.FeatureNotSupported, "encoding %q is not supported; streamdb speaks UTF8 only", val)
			}
		case "freeze":
		default:
			return f, pgerr.New(pgerr.FeatureNotSupported, "COPY option %q is not supported", d.Defname)
		}
	}
	if f.csv {
		f.delim, f.null, f.quote, f.escape = ',', "", '"', '"'
	}
	if delim != nil {
		if len(*delim) != 1 {
			return f, pgerr.New(pgerr.FeatureNotSupported, "COPY delimiter must be a single one-byte character")
		}
		f.delim = (*delim)[0]
	}
	if null != nil {
		f.null = *null
	}
	for _, o := range []struct {
		v   *string
		dst *byte
		n   string
	}{{quote, &f.quote, "quote"}, {escape, &f.escape, "escape"}} {
		if o.v == nil {
			continue
		}
		if !f.csv {
			return f, pgerr.New(pgerr.FeatureNotSupported, "COPY %s available only in CSV mode", o.n)
		}
		if len(*o.v) != 1 {
			return f, pgerr.New(pgerr.FeatureNotSupported, "COPY %s must be a single one-byte character", o.n)
		}
		*o.dst = (*o.v)[0]
		if o.n == "quote" && escape == nil {
			f.escape = f.quote
		}
	}
	switch {
	case f.binary && (delim != nil || null != nil || f.header):
		return f, pgerr.New(pgerr.SyntaxError, "cannot specify DELIMITER, NULL or HEADER in BINARY mode")
	case f.delim == '\r' || f.delim == '\n':
		return f, pgerr.New(pgerr.InvalidParameterValue, "COPY delimiter cannot be newline or carriage return")
	case !f.csv && f.delim == '\\':
		return f, pgerr.New(pgerr.InvalidParameterValue, "COPY delimiter cannot be \"\\\"")
	case f.csv && f.delim == f.quote:
		return f, pgerr.New(pgerr.InvalidParameterValue, "COPY delimiter and quote must be different")
	case strings.IndexByte(f.null, f.delim) >= 0:
		return f, pgerr.New(pgerr.InvalidParameterValue, "COPY delimiter character must not appear in the NULL specification")
	}
	return f, nil
}

// defElemString returns a DefElem's argument as text.
func defElemString(d *pg_query.DefElem) string {
	if d.Arg == nil {
		return ""
	}
	switch {
	case d.Arg.GetString_() != nil:
		return d.Arg.GetString_().Sval
	case d.Arg.GetInteger() != nil:
		return strconv.Itoa(int(d.Arg.GetInteger().Ival))
	case d.Arg.GetBoolean() != nil:
		return strconv.FormatBool(d.Arg.GetBoolean().Boolval)
	case d.Arg.GetAStar() != nil:
		return "*"
	}
	return ""
}

// copyColumns resolves a COPY column list to positions in obj.
func copyColumns(obj *catalog.Object, list []*pg_query.Node) ([]int, error) {
	if len(list) == 0 {
		cols := make([]int, len(obj.Columns))
		for i := range cols {
			cols[i] = i
		}
		return cols, nil
	}
	seen := map[int]bool{}
	var cols []int
	for _, n := range list {
		name := n.GetString_().GetSval()
		idx := -1
		for i, c := range obj.Columns {
			if c.Name == name {
				idx = i
			}
		}
		if idx < 0 {
			return nil, pgerr.New(pgerr.UndefinedColumn, "column %q of relation %q does not exist", name, obj.Name)
		}
		if seen[idx] {
			return nil, pgerr.New(pgerr.DuplicateColumn, "column %q specified more than once", name)
		}
		seen[idx] = true
		cols = append(cols, idx)
	}
	return cols, nil
}

func (s *session) bindCopyFrom(cat *catalog.Catalog, cs *pg_query.CopyStmt, f copyFormat) (*boundStmt, error) {
	if cs.Relation == nil {
		return nil, pgerr.New(pgerr.SyntaxError, "COPY FROM needs a table")
	}
	obj, err := writeTarget(cat, cs.Relation, "copy to")
	if err != nil {
		return nil, err
	}
	cols, err := copyColumns(obj, cs.Attlist)
	if err != nil {
		return nil, err
	}
	b := newBinder(cat, &s.info, nil)
	b.require(obj, catalog.PrivInsert)
	listed := map[int]bool{}
	for _, c := range cols {
		listed[c] = true
	}
	defaults := make([]scalar.Evaluator, len(obj.Columns))
	for i, c := range obj.Columns {
		if listed[i] || c.Default == "" {
			continue
		}
		e, err := b.columnDefault(c)
		if err != nil {
			return nil, err
		}
		if defaults[i], err = scalar.Compile(e); err != nil {
			return nil, err
		}
	}
	rc, err := b.rowChecker(obj)
	if err != nil {
		return nil, err
	}
	return &boundStmt{run: func(ctx context.Context, s *session, _ []types.Datum) (pgwire.Result, error) {
		ci := &copyIn{s: s, obj: obj, f: f, cols: cols, defaults: defaults, rc: rc,
			ev: s.evalContext(nil), binaryHeader: f.binary}
		ci.cfg = ci.ev.Text
		return ci, nil
	}}, nil
}

// copyIn receives a COPY FROM STDIN (pgwire.CopyInResult).
type copyIn struct {
	s        *session
	obj      *catalog.Object
	f        copyFormat
	cols     []int
	defaults []scalar.Evaluator
	rc       *rowChecker
	ev       *scalar.EvalContext
	cfg      *types.TextConfig

	pending      []byte // data not yet parsed: an incomplete line or tuple
	line         int64
	ended        bool // the end-of-data marker was seen
	binaryHeader bool // a binary COPY's header is still to be read
	rows         []types.Row
	arena        []types.Datum
	fields       [][]byte
	nulls        []bool
	scratch      []byte
	tag          string
	// run is the statement's execution, which goes on while the data
	// arrives; held estimates the bytes of the rows kept, which the
	// memory guard weighs.
	run  *stmtRun
	held int64
}

var (
	_ pgwire.CopyInResult = (*copyIn)(nil)
	_ lingering           = (*copyIn)(nil)
)

func (c *copyIn) CopyFormat() (bool, int) { return c.f.binary, len(c.cols) }

func (c *copyIn) Next(context.Context) (types.Row, bool, error) { return nil, false, nil }
func (c *copyIn) Tag() string                                   { return c.tag }

func (c *copyIn) Close() {
	if c.run != nil {
		c.run.end()
		c.run = nil
	}
}

func (c *copyIn) linger(r *stmtRun) { c.run = r }

// CopyData parses the complete lines (or binary tuples) the data brings.
func (c *copyIn) CopyData(ctx context.Context, data []byte) error {
	if ctx.Err() != nil {
		return c.failed(pgerr.Canceled())
	}
	if c.ended {
		return nil
	}
	c.pending = append(c.pending, data...)
	used, err := c.parse(c.pending, false)
	if err != nil {
		return c.failed(err)
	}
	c.pending = c.pending[:copy(c.pending, c.pending[used:])]
	if c.run != nil {
		if err := c.run.check(c.held + int64(cap(c.pending)) + int64(cap(c.rows))*sizeRowRef); err != nil {
			return c.failed(c.run.err(err))
		}
	}
	return nil
}

// CopyDone parses what remains and writes the rows.
func (c *copyIn) CopyDone(ctx context.Context) error {
	if c.run != nil {
		detach := c.run.attach(ctx)
		defer detach()
	}
	if !c.ended && len(c.pending) > 0 && !c.f.binary {
		if _, err := c.parse(c.pending, true); err != nil {
			return c.failed(err)
		}
	}
	if c.f.binary && !c.ended && (len(c.pending) > 0 || c.binaryHeader) {
		// The trailer is optional, as in PostgreSQL; a cut tuple is not.
		return c.failed(pgerr.New(pgerr.BadCopyFileFormat, "unexpected EOF in COPY data"))
	}
	c.tag = "COPY " + strconv.Itoa(len(c.rows))
	s := c.s
	if s.txn == nil && !s.block {
		// A COPY that is its own transaction goes to the coordinator as
		// one write set, without the per-row bookkeeping a transaction
		// that may read its own writes needs.
		return c.commitAlone(ctx)
	}
	if err := c.write(ctx); err != nil {
		return c.failed(err)
	}
	if s.txn.implicit && !s.block {
		return s.commit(ctx)
	}
	return nil
}

// commitAlone commits the rows as a transaction of their own. Keys taken
// before the COPY are found by the coordinator's validation, duplicates
// within the data here.
func (c *copyIn) commitAlone(ctx context.Context) error {
	obj := c.obj
	changes := make([]engine.RowChange, len(c.rows))
	// Keys in ascending order, as dumps usually are, have their
	// duplicates side by side; only data out of order needs a set.
	sorted := true
	for i, row := range c.rows {
		changes[i].Row = row
		if len(obj.PrimaryKey) == 0 {
			continue
		}
		if i&4095 == 0 && ctx.Err() != nil {
			return c.failed(pgerr.Canceled())
		}
		key := engine.RowKey(obj, row)
		changes[i].Key = key
		if i > 0 && sorted {
			switch prev := changes[i-1].Key; {
			case prev == key:
				return c.failed(engine.UniqueViolation(obj, row))
			case prev > key:
				sorted = false
			}
		}
	}
	if len(obj.PrimaryKey) > 0 && !sorted {
		seen := make(map[string]struct{}, len(changes))
		for _, ch := range changes {
			if _, dup := seen[ch.Key]; dup {
				return c.failed(engine.UniqueViolation(obj, ch.Row))
			}
			seen[ch.Key] = struct{}{}
		}
	}
	c.rows = nil
	if len(changes) == 0 {
		return nil
	}
	w := &engine.WriteSet{Tables: map[uint64][]engine.RowChange{obj.ID: changes}}
	if err := c.s.e.eng.Commit(ctx, w); err != nil {
		return c.failed(err)
	}
	return nil
}

// CopyFail is the client abandoning the COPY.
func (c *copyIn) CopyFail(_ context.Context, msg string) error {
	return c.failed(pgerr.New(pgerr.QueryCanceled, "COPY from stdin failed: %s", msg))
}

// failed ends the statement with err: an explicit transaction becomes
// failed, as after any statement error.
func (c *copyIn) failed(err error) error {
	c.rows, c.arena, c.pending = nil, nil, nil
	c.s.fail()
	return err
}

// parse consumes complete lines (text, CSV) or tuples (binary) from b and
// returns how many bytes it used; final means b ends the data.
func (c *copyIn) parse(b []byte, final bool) (int, error) {
	if c.f.binary {
		return c.parseBinary(b)
	}
	pos := 0
	for pos < len(b) && !c.ended {
		var n int
		if c.f.csv {
			n = c.f.csvRecordEnd(b[pos:])
		} else {
			n = bytes.IndexByte(b[pos:], '\n')
			if n >= 0 {
				n++
			}
		}
		if n < 0 {
			if !final {
				break
			}
			n = len(b) - pos
		}
		line := b[pos : pos+n]
		pos += n
		line = bytes.TrimSuffix(line, []byte{'\n'})
		line = bytes.TrimSuffix(line, []byte{'\r'})
		c.line++
		if c.line == 1 && c.f.header {
			continue
		}
		if string(line) == `\.` {
			c.ended = true
			break
		}
		if err := c.parseLine(line); err != nil {
			return pos, err
		}
	}
	return pos, nil
}

// parseLine turns one text or CSV line into a row.
func (c *copyIn) parseLine(line []byte) error {
	var err error
	if c.f.csv {
		c.fields, c.nulls, c.scratch, err = c.f.splitCSV(line, c.fields, c.nulls, c.scratch)
		if err != nil {
			return c.withLine(err, "", nil, false)
		}
	} else {
		c.fields, c.nulls, c.scratch = c.f.splitText(line, c.fields, c.nulls, c.scratch)
	}
	if len(c.fields) < len(c.cols) {
		name := c.obj.Columns[c.cols[len(c.fields)]].Name
		return c.withLine(pgerr.New(pgerr.BadCopyFileFormat, "missing data for column %q", name), "", nil, false)
	}
	if len(c.fields) > len(c.cols) {
		return c.withLine(pgerr.New(pgerr.BadCopyFileFormat, "extra data after last expected column"), "", nil, false)
	}
	row := c.newRow()
	for i, col := range c.cols {
		if c.nulls[i] {
			continue
		}
		d, err := types.ParseText(fieldText(c.fields[i], c.obj.Columns[col].Type.Family), c.obj.Columns[col].Type, c.cfg)
		if err != nil {
			return c.withLine(err, c.obj.Columns[col].Name, c.fields[i], false)
		}
		row[col] = d
	}
	return c.finishRow(row)
}

// fieldText is a field's text for types.ParseText. Numbers and booleans
// are parsed without keeping their text, so they borrow the line buffer
// and a bulk load allocates nothing for them; any other type gets a copy,
// as its Datum may hold the string.
func fieldText(b []byte, f types.Family) string {
	switch f {
	case types.Bool, types.Int2, types.Int4, types.Int8, types.Oid, types.Float4, types.Float8, types.Numeric:
		return unsafe.String(unsafe.SliceData(b), len(b))
	}
	return string(b)
}

// newRow returns a NULL row of the table's width, carved from an arena
// so that a large COPY allocates per thousand rows, not per row.
func (c *copyIn) newRow() types.Row {
	w := len(c.obj.Columns)
	if len(c.arena) < w {
		c.arena = make([]types.Datum, w*1024)
	}
	row := c.arena[:w:w]
	c.arena = c.arena[w:]
	return row
}

// finishRow fills defaults and keeps the row.
func (c *copyIn) finishRow(row types.Row) error {
	for i, ev := range c.defaults {
		if ev != nil {
			d, err := ev(c.ev, nil)
			if err != nil {
				return c.withLine(err, "", nil, false)
			}
			row[i] = d
		}
	}
	if err := c.rc.check(c.ev, row); err != nil {
		return c.withLine(err, "", nil, false)
	}
	if len(c.rows) == cap(c.rows) {
		// Double: append grows a large slice by 1.25×, copying a
		// million-row COPY's rows several times over.
		c.rows = slices.Grow(c.rows, max(len(c.rows), 1024))
	}
	c.rows = append(c.rows, row)
	c.held += rowBytes(row)
	return nil
}

// withLine adds the COPY's position to an error, as PostgreSQL's CONTEXT
// line does: "COPY t, line 3, column b: "x"".
func (c *copyIn) withLine(err error, column string, value []byte, isNull bool) error {
	e := pgerr.As(err)
	if e == nil {
		return err
	}
	out := *e
	ctx := lineContext(c.obj.Name, c.line, column, value, isNull)
	if out.Detail != "" {
		out.Detail += "\n"
	}
	out.Detail += ctx
	return &out
}

// parseBinary consumes complete binary tuples.
func (c *copyIn) parseBinary(b []byte) (int, error) {
	pos := 0
	if c.binaryHeader {
		if len(b) < len(binarySignature)+8 {
			return 0, nil
		}
		if !bytes.Equal(b[:len(binarySignature)], binarySignature) {
			return 0, pgerr.New(pgerr.BadCopyFileFormat, "COPY file signature not recognized")
		}
		ext := int(binary.BigEndian.Uint32(b[len(binarySignature)+4:]))
		if len(b) < len(binarySignature)+8+ext {
			return 0, nil
		}
		pos = len(binarySignature) + 8 + ext
		c.binaryHeader = false
	}
	for pos+2 <= len(b) && !c.ended {
		n := int(int16(binary.BigEndian.Uint16(b[pos:])))
		if n == -1 {
			c.ended = true
			return pos + 2, nil
		}
		c.line++
		if n != len(c.cols) {
			return pos, c.withLine(pgerr.New(pgerr.BadCopyFileFormat, "row field count is %d, expected %d", n, len(c.cols)), "", nil, false)
		}
		end := pos + 2
		complete := true
		for i := 0; i < n; i++ {
			if end+4 > len(b) {
				complete = false
				break
			}
			l := int(int32(binary.BigEndian.Uint32(b[end:])))
			end += 4
			if l > 0 {
				end += l
			}
		}
		if !complete || end > len(b) {
			c.line--
			break
		}
		row := c.newRow()
		p := pos + 2
		for _, col := range c.cols {
			l := int(int32(binary.BigEndian.Uint32(b[p:])))
			p += 4
			if l < 0 {
				continue
			}
			d, err := types.ParseBinary(b[p:p+l], c.obj.Columns[col].Type)
			if err != nil {
				return pos, c.withLine(err, c.obj.Columns[col].Name, nil, true)
			}
			row[col] = d
			p += l
		}
		if err := c.finishRow(row); err != nil {
			return pos, err
		}
		pos = end
	}
	return pos, nil
}

// write adds the rows to the session's transaction, as INSERT does.
func (c *copyIn) write(ctx context.Context) error {
	s, obj := c.s, c.obj
	snap := s.e.snapshot()
	base, _ := snap.Table(obj.ID)
	if base == nil {
		return pgerr.New(pgerr.UndefinedTable, "relation %q does not exist", obj.Name)
	}
	tt := s.writeTxn().table(obj)
	for i, row := range c.rows {
		if i&4095 == 0 && ctx.Err() != nil {
			return pgerr.Canceled()
		}
		if len(obj.PrimaryKey) == 0 {
			tt.insertNew(row)
			continue
		}
		key := engine.RowKey(obj, row)
		if cur, touched := tt.lookup(key); (touched && cur != nil) || (!touched && hasKey(base, key)) {
			return engine.UniqueViolation(obj, row)
		}
		tt.set(key, row, base)
	}
	return nil
}

func (s *session) bindCopyTo(cat *catalog.Catalog, raw *rawStatement, cs *pg_query.CopyStmt, f copyFormat) (*boundStmt, error) {
	var query *rawStatement
	switch {
	case cs.Query != nil:
		if cs.Query.GetSelectStmt() == nil {
			return nil, pgerr.New(pgerr.FeatureNotSupported, "COPY (query) TO supports SELECT queries only")
		}
		query = &rawStatement{node: cs.Query, text: raw.text, offset: raw.offset}
	default:
		obj, ok := cat.Lookup(cs.Relation.Schemaname, cs.Relation.Relname)
		if !ok {
			return nil, pgerr.New(pgerr.UndefinedTable, "relation %q does not exist", cs.Relation.Relname)
		}
		if obj.Kind == catalog.KindView {
			return nil, pgerr.New(pgerr.WrongObjectType, "cannot copy from view %q", obj.Name).
				WithHint("Try the COPY (SELECT ...) TO variant.")
		}
		cols, err := copyColumns(obj, cs.Attlist)
		if err != nil {
			return nil, err
		}
		names := make([]string, len(cols))
		for i, c := range cols {
			names[i] = quoteIdentifier(obj.Columns[c].Name)
		}
		raws, err := parseQuery("SELECT " + strings.Join(names, ", ") + " FROM " + quoteIdentifier(obj.Schema) + "." + quoteIdentifier(obj.Name))
		if err != nil {
			return nil, err
		}
		query = &raws[0]
	}
	inner, err := s.bindQuery(cat, query, nil)
	if err != nil {
		return nil, err
	}
	colTypes := make([]types.Type, len(inner.cols))
	names := make([]string, len(inner.cols))
	for i, c := range inner.cols {
		colTypes[i], names[i] = c.Type, c.Name
	}
	return &boundStmt{run: func(ctx context.Context, s *session, params []types.Datum) (pgwire.Result, error) {
		res, err := inner.run(ctx, s, params)
		if err != nil {
			return nil, err
		}
		return &copyOut{f: f, cols: colTypes, names: names, res: res, cfg: s.info.settings.textConfig()}, nil
	}}, nil
}

// quoteIdentifier quotes a name for SQL text when it needs quotes.
func quoteIdentifier(s string) string {
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}

// copyOut sends a query's rows as COPY data (pgwire.CopyOutResult), one
// row per CopyData message as PostgreSQL does: clients such as psycopg
// parse each message as one row. The rows stream from the query's
// result as the client takes them.
type copyOut struct {
	f       copyFormat
	cols    []types.Type
	names   []string
	res     pgwire.Result
	n       int
	cfg     *types.TextConfig
	started bool
	done    bool
	buf     []byte
	scratch []byte
}

var (
	_ pgwire.CopyOutResult = (*copyOut)(nil)
	_ lingering            = (*copyOut)(nil)
)

func (c *copyOut) CopyFormat() (bool, int) { return c.f.binary, len(c.cols) }

func (c *copyOut) Next(context.Context) (types.Row, bool, error) { return nil, false, nil }
func (c *copyOut) Tag() string                                   { return "COPY " + strconv.Itoa(c.n) }
func (c *copyOut) Close()                                        { c.res.Close() }

// linger hands the statement's execution to the query's result, which
// ends it when it is closed.
func (c *copyOut) linger(r *stmtRun) {
	if l, ok := c.res.(lingering); ok {
		l.linger(r)
		return
	}
	r.end()
}

func (c *copyOut) NextCopyData(ctx context.Context) ([]byte, bool, error) {
	if c.done {
		return nil, false, nil
	}
	if ctx.Err() != nil {
		return nil, false, pgerr.Canceled()
	}
	c.buf = c.buf[:0]
	if !c.started {
		c.started = true
		switch {
		case c.f.binary:
			// The header travels with the first row, as in PostgreSQL.
			c.buf = append(c.buf, binarySignature...)
			c.buf = append(c.buf, 0, 0, 0, 0, 0, 0, 0, 0)
		case c.f.header:
			for i, n := range c.names {
				if i > 0 {
					c.buf = append(c.buf, c.f.delim)
				}
				if c.f.csv {
					c.buf = c.f.appendCSVField(c.buf, []byte(n))
				} else {
					c.buf = c.f.appendTextField(c.buf, []byte(n))
				}
			}
			c.buf = append(c.buf, '\n')
			return c.buf, true, nil
		}
	}
	row, ok, err := c.res.Next(ctx)
	if err != nil {
		return nil, false, err
	}
	if ok {
		c.buf, c.scratch = c.f.appendRow(c.buf, row, c.cols, c.cfg, c.scratch)
		c.n++
		return c.buf, true, nil
	}
	c.done = true
	if c.f.binary {
		return append(c.buf, 0xFF, 0xFF), true, nil
	}
	return nil, false, nil
}
