package planner

import (
	"github.com/streamdb/streamdb/dataflow"
	"github.com/streamdb/streamdb/pgerr"
)

// Recursive is a recursive WITH query: Base (the non-recursive term)
// UNION [ALL] the iterations of Step (the recursive term), which reads
// the previous iteration's rows through the WorkTable leaf of the same
// ID, as PostgreSQL evaluates it (see dataflow.Recursive). Union is
// UNION's semantics: Base is distinct and the result a set. Both terms
// have the columns Cols.
type Recursive struct {
	Name       string
	ID         int
	Base, Step Node
	Union      bool
	Cols       []Column
	// Limited, decided by Physical, bounds the iterations at
	// MaxRecursion: a maintained view's recursion is bounded, an ad hoc
	// one is not, as in PostgreSQL.
	Limited bool
}

// WorkTable is the recursive reference inside a Recursive's Step: the
// rows of the previous iteration.
type WorkTable struct {
	Name string
	ID   int
	Cols []Column
}

// MaxRecursion bounds the iterations a maintained view may need for a
// recursive query; an ad hoc query has no bound, as in PostgreSQL.
const MaxRecursion = 1000

func (n *Recursive) Columns() []Column { return n.Cols }
func (n *WorkTable) Columns() []Column { return n.Cols }

// Inputs returns Base and Step.
func (n *Recursive) Inputs() []Node { return []Node{n.Base, n.Step} }
func (n *WorkTable) Inputs() []Node { return nil }

func (n *Recursive) withInputs(in []Node) Node {
	c := *n
	c.Base, c.Step = in[0], in[1]
	return &c
}

func (n *WorkTable) withInputs([]Node) Node { return n }

// lowerRecursive plans a recursive query on dataflow.Recursive. The
// parts of the step that do not read the working table (the tables it
// joins with, constant relations) are lowered once, in the main graph,
// and become the Recursive's external collections; the rest of the step
// is lowered anew for every iteration's graph, over that graph's inputs.
func lowerRecursive(lc *LowerContext, r *Recursive) (dataflow.Node, error) {
	base, err := Lower(lc, r.Base)
	if err != nil {
		return base, err
	}
	if !readsWorkTable(r.Step, r.ID) {
		return base, pgerr.New(pgerr.InternalError, "recursive term of %q without its recursive reference", r.Name)
	}
	externals := recursiveExternals(r)
	ext := make([]dataflow.Node, len(externals))
	for i, e := range externals {
		if ext[i], err = Lower(lc, e); err != nil {
			return base, err
		}
	}
	spec := dataflow.RecursiveSpec{Distinct: r.Union}
	if r.Limited {
		spec.MaxIterations = MaxRecursion
	}
	spec.Step = func(g *dataflow.Graph, work dataflow.Node, extIn []dataflow.Node) (dataflow.Node, error) {
		sub := &LowerContext{Graph: g, Eval: lc.Eval,
			Get: func(*Get) (dataflow.Node, error) {
				return dataflow.Node{}, pgerr.New(pgerr.InternalError, "relation read inside the recursive term of %q", r.Name)
			}}
		seeds := map[Node]dataflow.Node{}
		for i, e := range externals {
			seeds[e] = extIn[i]
		}
		Walk(r.Step, func(n Node) bool {
			if isWorkTable(n, r.ID) {
				seeds[n] = work
			}
			return true
		})
		return lowerSeeded(sub, r.Step, seeds)
	}
	return lc.Graph.Recursive(base, ext, spec)
}

// lowerSeeded lowers root in a fresh context whose memo already maps the
// seed nodes to dataflow nodes. (Physical fused no seed into its
// consumer: see recursiveExternals.)
func lowerSeeded(lc *LowerContext, root Node, seeds map[Node]dataflow.Node) (dataflow.Node, error) {
	lc.memo = seeds
	lc.need = computeNeeded(root)
	return Lower(lc, root)
}

// recursiveExternals returns the parts of r's step that read no working
// table of a recursion around them (r's, or that of a recursive query
// nested in r's step, as a decorrelated subquery's): they are lowered
// once, outside the iterations, and fed to every iteration's graph as
// inputs, so Physical counts them as read more than once and fuses none
// into its consumer inside the step.
func recursiveExternals(r *Recursive) []Node {
	var externals []Node
	var collect func(n Node)
	collect = func(n Node) {
		for _, in := range n.Inputs() {
			if readsWorkTable(in, r.ID) || readsFreeWorkTable(in) {
				collect(in)
			} else {
				externals = append(externals, in)
			}
		}
	}
	collect(r.Step)
	return externals
}

// readsFreeWorkTable reports whether n reads the working table of a
// recursive query that n does not hold: n then runs only inside that
// query's iterations.
func readsFreeWorkTable(n Node) bool {
	defined := map[int]bool{}
	var read []int
	Walk(n, func(x Node) bool {
		switch y := x.(type) {
		case *Recursive:
			defined[y.ID] = true
		case *WorkTable:
			read = append(read, y.ID)
		}
		return true
	})
	for _, id := range read {
		if !defined[id] {
			return true
		}
	}
	return false
}

// readsWorkTable reports whether n is or holds the working table id.
func readsWorkTable(n Node, id int) bool {
	found := false
	Walk(n, func(x Node) bool {
		found = found || isWorkTable(x, id)
		return !found
	})
	return found
}

func isWorkTable(n Node, id int) bool {
	w, ok := n.(*WorkTable)
	return ok && w.ID == id
}
