package planner

// Mode is how a plan runs, which decides the operators it may use.
type Mode uint8

const (
	// Maintained is a materialized view, an index or a subscription: its
	// dataflow is stepped tick after tick with its inputs' changes,
	// retractions included.
	Maintained Mode = iota
	// OneTick is an ad hoc read: its dataflow is stepped once over a
	// snapshot, whose rows arrive as insertions.
	OneTick
)

// Physical is the last stage of the optimizer pipeline (see OptimizeFor):
// it decides which operators run the plan in mode, and records each
// decision on the plan's nodes, which Lower obeys and EXPLAIN shows:
//
//   - a one-tick filter over a key's leading columns reads only the key
//     spans it can match (lookup.go);
//   - a top-k, or an aggregate's MIN and MAX, over an input that never
//     retracts keeps only what insertions need (append_only.go);
//   - a join that one consumer alone reads builds that consumer's rows:
//     a projection's (join_fusion.go), or asks a top-k's gate before
//     building a match (topk_gate.go);
//   - row_number() over the top-k below it is numbered by the top-k
//     (window_topk.go);
//   - in a maintained plan, a filter that compares mz_now() is temporal
//     (temporal.go), and an aggregate grouped by a column with a
//     watermark and an interval join forget what the watermark has
//     passed (expiry.go).
//
// The plan is not changed: nodes with a decision are copies, and a node
// reached by two paths (a CTE read twice) stays one node, since a fusion
// is only sound for a node that one consumer alone reads.
func Physical(n Node, mode Mode) Node {
	p := &physical{oneTick: mode == OneTick, refs: countRefs(n), done: map[Node]Node{}, count: map[Node]int{}, wms: watermarks{}}
	return p.node(n)
}

// PhysicalQuery is Physical over a query: a LIMIT or OFFSET becomes a
// top-k over the relation, decided like any other, that keeps only the
// rows the final sort returns. The query it returns has no LIMIT or
// OFFSET of its own: its Order only sorts the rows the top-k kept.
func PhysicalQuery(q *Query, mode Mode) *Query {
	root := q.Root
	if q.Limit != nil || q.Offset != nil {
		root = &TopK{Input: root, Order: q.Order, Limit: q.Limit, Offset: q.Offset}
	}
	c := *q
	c.Root, c.Limit, c.Offset = Physical(root, mode), nil, nil
	return &c
}

// physical is one run of Physical. refs counts the references to the
// input plan's nodes; done maps each node visited to its decided copy,
// so that shared nodes stay shared, and count holds the references to
// each decided node: its original's.
type physical struct {
	oneTick bool
	refs    map[Node]int
	done    map[Node]Node
	count   map[Node]int
	// wms holds the watermarks of the decided nodes' columns.
	wms watermarks
}

func (p *physical) node(n Node) Node {
	if d, ok := p.done[n]; ok {
		return d
	}
	orig := n
	if r, ok := n.(*Recursive); ok {
		for _, e := range recursiveExternals(r) {
			p.refs[e] += 2
		}
	}
	ins := n.Inputs()
	if len(ins) > 0 {
		newIns := make([]Node, len(ins))
		changed := false
		for i, in := range ins {
			newIns[i] = p.node(in)
			changed = changed || newIns[i] != in
		}
		if changed {
			n = n.withInputs(newIns)
		}
	}
	d := p.decide(n)
	p.done[orig] = d
	p.count[d] = p.refs[orig]
	return d
}

// decide records the decisions for n, whose inputs are decided already.
func (p *physical) decide(n Node) Node {
	switch x := n.(type) {
	case *Filter:
		if p.oneTick {
			return lookupFilter(x)
		}
		return temporalFilter(x)
	case *Aggregate:
		c := *x
		c.AppendOnly = appendOnly(x.Input, p.oneTick)
		if !p.oneTick {
			c.Expires, c.ExpireKey = p.expiringKey(x)
		}
		if c.AppendOnly || c.Expires {
			return &c
		}
	case *Join:
		if !p.oneTick && x.Kind == InnerJoin {
			if l, r := p.joinExpiry(x); l != nil || r != nil {
				c := *x
				c.LeftExpire, c.RightExpire = l, r
				return &c
			}
		}
	case *TopK:
		c := *x
		c.Monotonic = x.Limit != nil && appendOnly(x.Input, p.oneTick)
		c.Gated = c.Monotonic && p.gatable(&c)
		if c.Monotonic || c.Gated {
			return &c
		}
	case *Project:
		if p.count[x.Input] <= 1 {
			if n, ok := narrowTemporal(x); ok {
				return n
			}
		}
		if j, ok := x.Input.(*Join); ok && p.fusable(j) {
			if _, ok := columnIndexes(x.Exprs); ok {
				c := *x
				c.JoinBuilds = true
				return &c
			}
		}
	case *Recursive:
		c := *x
		c.Limited = !p.oneTick
		return &c
	case *Window:
		if p.numbered(x) {
			c := *x
			c.Numbered = true
			return &c
		}
	}
	return n
}
