package sqllogictest

import (
	"context"
	"time"
)

// cleanupTimeout bounds each DROP the runner issues on its own behalf.
const cleanupTimeout = 30 * time.Second

// object is a named object a file created.
type object struct {
	kind string
	name objectName
}

// objects tracks what a file's successful statements created, so that the
// file can leave the server as it found it without needing CREATE DATABASE
// (which streamdb may not have) or catalog queries.
type objects struct {
	live []object
	// created holds kind+" "+key for every object this file has created,
	// even if dropped since: only the first creation of a name may find a
	// leftover from an earlier crashed run.
	created map[string]bool
}

// beforeStatement drops a leftover of an object the statement is about to
// create for the first time in this file. Errors are ignored: the
// statement itself will report any real problem.
func (o *objects) beforeStatement(ctx context.Context, s *session, d ddl) {
	if d.op != ddlCreate {
		return
	}
	if o.created == nil {
		o.created = make(map[string]bool)
	}
	id := d.kind + " " + d.names[0].key()
	if o.created[id] {
		return
	}
	o.created[id] = true
	dropObject(ctx, s, object{kind: d.kind, name: d.names[0]})
}

// afterStatement records the effect of a statement that succeeded.
func (o *objects) afterStatement(d ddl) {
	switch d.op {
	case ddlCreate:
		o.forget(d.names[0].key())
		o.live = append(o.live, object{kind: d.kind, name: d.names[0]})
	case ddlDrop:
		for _, n := range d.names {
			o.forget(n.key())
		}
	case ddlAlter:
		if d.renamed != nil {
			for i := range o.live {
				if o.live[i].name.key() == d.names[0].key() {
					o.live[i].name = d.renamed
				}
			}
		}
	}
}

func (o *objects) forget(key string) {
	kept := o.live[:0]
	for _, ob := range o.live {
		if ob.name.key() != key {
			kept = append(kept, ob)
		}
	}
	o.live = kept
}

// dropAll drops the live objects, newest first, so that views go before the
// tables they read.
func (o *objects) dropAll(ctx context.Context, s *session) {
	for i := len(o.live) - 1; i >= 0; i-- {
		dropObject(ctx, s, o.live[i])
	}
	o.live = nil
}

// dropObject drops one object if it exists. When the server refuses
// because other objects depend on it (SQLSTATE 2BP01, for example a view
// the file created in a way the tracker missed), it retries with CASCADE.
func dropObject(ctx context.Context, s *session, ob object) {
	if s == nil || s.broken() {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, cleanupTimeout)
	defer cancel()
	sql := "DROP " + ob.kind + " IF EXISTS " + ob.name.sql()
	if _, err := s.exec(ctx, sql); sqlState(err) == "2BP01" {
		s.exec(ctx, sql+" CASCADE")
	}
}
