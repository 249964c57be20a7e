package pgwire

import (
	"context"
	"strconv"
	"strings"

	"github.com/streamdb/streamdb/types"
)

// prepared is a statement created by a Parse message. The unnamed one ("")
// is replaced by the next Parse or simple query.
type prepared struct {
	stmt   Statement    // nil for an empty query
	params []types.Type // parameter types
	oids   []uint32     // parameter type OIDs, as in ParameterDescription
	cols   []Column     // nil when the statement returns no rows
}

// portal is a prepared statement bound to parameter values by Bind. It
// runs at its first Execute; an Execute with a row limit leaves it
// suspended with its Result open for the next one. Portals live until
// closed, replaced (the unnamed one) or the end of their transaction.
type portal struct {
	prep    *prepared
	params  []types.Datum
	formats []int16 // result formats as sent in Bind
	res     Result  // open while suspended
	// fbuf holds formats when there are few, saving an allocation per
	// Bind for the common case.
	fbuf [4]int16
	// suspended is set once an Execute has stopped at its row limit;
	// from then on each Execute's tag counts its own rows, as in
	// PostgreSQL.
	suspended bool
	// done is set once the portal has run to completion; tag is its
	// command tag.
	done bool
	tag  string
}

// close releases the portal's result, if it is open.
func (p *portal) close() {
	if p.res != nil {
		p.res.Close()
		p.res = nil
	}
}

// closePortal closes and forgets the named portal.
func (c *conn) closePortal(name string) {
	if p, ok := c.portals[name]; ok {
		delete(c.portals, name)
		p.close()
	}
}

// closePortals closes every portal, as the end of a transaction does.
func (c *conn) closePortals() {
	for name, p := range c.portals {
		delete(c.portals, name)
		p.close()
	}
}

// withRowCount returns a "SELECT n"-style tag with n replaced by rows: the
// tag of one Execute of a portal that was suspended before reports the
// rows of that Execute only. Tags without a trailing count are unchanged.
func withRowCount(tag string, rows int) string {
	i := strings.LastIndexByte(tag, ' ')
	if i < 0 {
		return tag
	}
	if _, err := strconv.ParseUint(tag[i+1:], 10, 64); err != nil {
		return tag
	}
	return tag[:i+1] + strconv.Itoa(rows)
}

// ReadPortal implements Portals: MOVE and FETCH on a portal the client
// bound read it as Execute would, without sending its rows.
func (c *conn) ReadPortal(ctx context.Context, name string, n int64, fn func(types.Row)) ([]Column, int64, bool, error) {
	pt, ok := c.portals[name]
	if !ok || pt.prep.stmt == nil || pt.prep.cols == nil {
		return nil, 0, false, nil
	}
	if pt.done {
		return pt.prep.cols, 0, true, nil
	}
	if pt.res == nil {
		res, err := pt.prep.stmt.Execute(ctx, pt.params)
		if err != nil {
			c.closePortal(name)
			return nil, 0, true, err
		}
		pt.res = res
	}
	var read int64
	for read < n {
		row, more, err := pt.res.Next(ctx)
		if err != nil {
			c.closePortal(name)
			return nil, read, true, err
		}
		if !more {
			pt.tag = pt.res.Tag()
			pt.close()
			pt.done = true
			break
		}
		if fn != nil {
			fn(row)
		}
		read++
	}
	pt.suspended = true
	return pt.prep.cols, read, true, nil
}
