package pgwire

import (
	"context"

	"github.com/jackc/pgx/v5/pgproto3"
	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/types"
)

// The extended query protocol: Parse, Bind, Describe, Execute and Close,
// each answered on its own, with Sync ending the batch. An error makes the
// connection discard messages up to the next Sync (see conn.handle).

// parse handles Parse: the query must hold at most one statement, which is
// described (names and types resolved) right away, as PostgreSQL analyzes
// at Parse time.
func (c *conn) parse(ctx context.Context, m *pgproto3.Parse) error {
	if m.Name == "" {
		delete(c.stmts, "")
	} else if _, ok := c.stmts[m.Name]; ok {
		return localf(pgerr.DuplicatePreparedStatement, "prepared statement \"%s\" already exists", m.Name)
	}
	if err := checkEncoding(m.Query); err != nil {
		return err
	}
	stmts, err := c.sess.Parse(ctx, m.Query)
	if err != nil {
		return err
	}
	p := &prepared{}
	switch len(stmts) {
	case 0:
		// Nothing to run, but the parameters the client declared still
		// have to be bound.
		p.oids = append([]uint32(nil), m.ParameterOIDs...)
		p.params = make([]types.Type, len(p.oids))
		for i, oid := range p.oids {
			p.params[i], _ = types.TypeForOID(oid)
		}
	case 1:
		p.stmt = stmts[0]
		if p.params, p.cols, err = p.stmt.Describe(ctx, m.ParameterOIDs); err != nil {
			return err
		}
		p.oids = make([]uint32, len(p.params))
		for i, t := range p.params {
			p.oids[i] = t.OID()
		}
	default:
		return pgerr.New(pgerr.SyntaxError, "cannot insert multiple commands into a prepared statement")
	}
	c.stmts[m.Name] = p
	return c.w.send(&pgproto3.ParseComplete{})
}

// bind handles Bind: it decodes the parameters and creates the portal.
// Nothing runs until Execute.
func (c *conn) bind(m *pgproto3.Bind) error {
	p, err := c.lookupStatement(m.PreparedStatement)
	if err != nil {
		return err
	}
	if m.DestinationPortal == "" {
		c.closePortal("")
	} else if _, ok := c.portals[m.DestinationPortal]; ok {
		return localf(pgerr.DuplicateCursor, "cursor \"%s\" already exists", m.DestinationPortal)
	}
	params, err := decodeParams(m, p, m.PreparedStatement, c.sess.TextConfig())
	if err != nil {
		return err
	}
	if n := len(m.ResultFormatCodes); n > 1 && n != len(p.cols) {
		return localf(pgerr.ProtocolViolation, "bind message has %d result formats but query has %d columns", n, len(p.cols))
	}
	pt := &portal{prep: p, params: params}
	pt.formats = append(pt.fbuf[:0], m.ResultFormatCodes...)
	c.portals[m.DestinationPortal] = pt
	return c.w.send(&pgproto3.BindComplete{})
}

// describe handles Describe of a statement (ParameterDescription, then
// RowDescription or NoData) or of a portal (RowDescription with the result
// formats chosen in Bind, or NoData).
func (c *conn) describe(m *pgproto3.Describe) error {
	switch m.ObjectType {
	case 'S':
		p, err := c.lookupStatement(m.Name)
		if err != nil {
			return err
		}
		if err := c.w.send(&pgproto3.ParameterDescription{ParameterOIDs: p.oids}); err != nil {
			return err
		}
		return c.describeRows(p.cols, nil)
	case 'P':
		pt, err := c.lookupPortal(m.Name)
		if err != nil {
			if cs, ok := c.sess.(CursorSession); ok && m.Name != "" {
				if cols, ok := cs.DescribeCursor(m.Name); ok {
					return c.describeRows(cols, nil)
				}
			}
			return err
		}
		return c.describeRows(pt.prep.cols, pt.formats)
	}
	return localf(pgerr.ProtocolViolation, "invalid DESCRIBE message subtype %d", m.ObjectType)
}

func (c *conn) describeRows(cols []Column, formats []int16) error {
	if cols == nil {
		return c.w.send(&pgproto3.NoData{})
	}
	return c.w.rowDescription(cols, formats)
}

// execute handles Execute: it runs the portal, or resumes it if suspended,
// sending at most m.MaxRows rows (all when 0). When the limit stops it
// before the end, the portal answers PortalSuspended and keeps its Result
// open; like PostgreSQL it does not look ahead, so a result of exactly
// MaxRows rows is suspended once more before it completes.
func (c *conn) execute(ctx context.Context, m *pgproto3.Execute) error {
	pt, err := c.lookupPortal(m.Portal)
	if err != nil {
		return err
	}
	if pt.prep.stmt == nil {
		return c.w.send(&pgproto3.EmptyQueryResponse{})
	}
	for _, f := range pt.formats {
		if f != formatText && f != formatBinary {
			return localf(pgerr.InvalidParameterValue, "unsupported format code: %d", f)
		}
	}
	if pt.done {
		if pt.prep.cols == nil {
			return localf(pgerr.ObjectNotInPrerequisiteState, "portal \"%s\" cannot be run", m.Portal)
		}
		return c.w.commandComplete(withRowCount(pt.tag, 0))
	}
	if pt.res == nil {
		if !c.inBlock {
			c.inBlock = true
			c.sess.BeginBlock()
		}
		if pt.res, err = pt.prep.stmt.Execute(ctx, pt.params); err != nil {
			c.closePortal(m.Portal)
			return err
		}
	}
	if handled, err := c.runCopy(ctx, pt.res); handled {
		tag := pt.res.Tag()
		c.closePortal(m.Portal)
		if err != nil {
			return err
		}
		return c.w.commandComplete(tag)
	}
	n, done, err := c.streamRows(ctx, pt.res, pt.prep.cols, pt.formats, int(m.MaxRows))
	if err != nil {
		// A failed portal is gone, as PostgreSQL drops it with the
		// failed transaction.
		c.closePortal(m.Portal)
		return err
	}
	if !done {
		pt.suspended = true
		if err := c.w.send(&pgproto3.PortalSuspended{}); err != nil {
			return err
		}
		return c.w.flush()
	}
	pt.tag = pt.res.Tag()
	pt.close()
	pt.done = true
	tag := pt.tag
	if pt.suspended {
		tag = withRowCount(tag, n)
	}
	return c.w.commandComplete(tag)
}

// closeObject handles Close of a statement or portal. Closing one that
// does not exist is not an error.
func (c *conn) closeObject(m *pgproto3.Close) error {
	switch m.ObjectType {
	case 'S':
		delete(c.stmts, m.Name)
	case 'P':
		c.closePortal(m.Name)
	default:
		return localf(pgerr.ProtocolViolation, "invalid CLOSE message subtype %d", m.ObjectType)
	}
	return c.w.send(&pgproto3.CloseComplete{})
}

func (c *conn) lookupStatement(name string) (*prepared, error) {
	if p, ok := c.stmts[name]; ok {
		return p, nil
	}
	if name == "" {
		return nil, localf(pgerr.InvalidSQLStatementName, "unnamed prepared statement does not exist")
	}
	return nil, localf(pgerr.InvalidSQLStatementName, "prepared statement \"%s\" does not exist", name)
}

func (c *conn) lookupPortal(name string) (*portal, error) {
	if p, ok := c.portals[name]; ok {
		return p, nil
	}
	return nil, localf(pgerr.InvalidCursorName, "portal \"%s\" does not exist", name)
}
