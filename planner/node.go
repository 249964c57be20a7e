package planner

import "github.com/streamdb/streamdb/types"

func (n *Get) Columns() []Column       { return n.Cols }
func (n *Values) Columns() []Column    { return n.Cols }
func (n *Filter) Columns() []Column    { return n.Input.Columns() }
func (n *Project) Columns() []Column   { return n.Cols }
func (n *Aggregate) Columns() []Column { return n.Cols }
func (n *Distinct) Columns() []Column  { return n.Input.Columns() }
func (n *SetOp) Columns() []Column     { return n.Left.Columns() }
func (n *TopK) Columns() []Column      { return n.Input.Columns() }

// Columns returns the left columns followed by the right columns, or only
// the left columns for semi and anti joins.
func (n *Join) Columns() []Column {
	l := n.Left.Columns()
	if n.Kind == SemiJoin || n.Kind == AntiJoin {
		return l
	}
	return concatCols(l, n.Right.Columns())
}

// Columns returns the input columns followed by the function's columns.
func (n *FlatMap) Columns() []Column {
	cols := concatCols(n.Input.Columns(), n.Cols)
	if n.Ordinality {
		cols = append(cols, Column{Name: "ordinality", Type: types.TypeInt8})
	}
	return cols
}

// Columns returns the input columns followed by one column per call.
func (n *Window) Columns() []Column { return concatCols(n.Input.Columns(), n.Cols) }

func concatCols(a, b []Column) []Column {
	c := make([]Column, 0, len(a)+len(b))
	return append(append(c, a...), b...)
}

func (n *Get) Inputs() []Node       { return nil }
func (n *Values) Inputs() []Node    { return nil }
func (n *Filter) Inputs() []Node    { return []Node{n.Input} }
func (n *Project) Inputs() []Node   { return []Node{n.Input} }
func (n *Join) Inputs() []Node      { return []Node{n.Left, n.Right} }
func (n *Aggregate) Inputs() []Node { return []Node{n.Input} }
func (n *Distinct) Inputs() []Node  { return []Node{n.Input} }
func (n *SetOp) Inputs() []Node     { return []Node{n.Left, n.Right} }
func (n *TopK) Inputs() []Node      { return []Node{n.Input} }
func (n *FlatMap) Inputs() []Node   { return []Node{n.Input} }
func (n *Window) Inputs() []Node    { return []Node{n.Input} }

func (n *Get) withInputs([]Node) Node    { return n }
func (n *Values) withInputs([]Node) Node { return n }

func (n *Filter) withInputs(in []Node) Node {
	c := *n
	c.Input = in[0]
	return &c
}

func (n *Project) withInputs(in []Node) Node {
	c := *n
	c.Input = in[0]
	return &c
}

func (n *Join) withInputs(in []Node) Node {
	c := *n
	c.Left, c.Right = in[0], in[1]
	return &c
}

func (n *Aggregate) withInputs(in []Node) Node {
	c := *n
	c.Input = in[0]
	return &c
}

func (n *Distinct) withInputs(in []Node) Node { return &Distinct{Input: in[0]} }

func (n *SetOp) withInputs(in []Node) Node {
	c := *n
	c.Left, c.Right = in[0], in[1]
	return &c
}

func (n *TopK) withInputs(in []Node) Node {
	c := *n
	c.Input = in[0]
	return &c
}

func (n *FlatMap) withInputs(in []Node) Node {
	c := *n
	c.Input = in[0]
	return &c
}

func (n *Window) withInputs(in []Node) Node {
	c := *n
	c.Input = in[0]
	return &c
}

// WithInputs returns a copy of n over new inputs, for rewrites outside the
// package.
func WithInputs(n Node, inputs []Node) Node { return n.withInputs(inputs) }

// Walk calls fn for n and every node below it, parents first. fn returns
// false to skip a node's inputs.
func Walk(n Node, fn func(Node) bool) {
	if !fn(n) {
		return
	}
	for _, in := range n.Inputs() {
		Walk(in, fn)
	}
}

// RewriteNodes rebuilds the plan bottom-up, replacing each node by fn's
// result; unchanged subtrees are shared.
func RewriteNodes(n Node, fn func(Node) Node) Node {
	ins := n.Inputs()
	if len(ins) > 0 {
		changed := false
		newIns := make([]Node, len(ins))
		for i, in := range ins {
			newIns[i] = RewriteNodes(in, fn)
			changed = changed || newIns[i] != in
		}
		if changed {
			n = n.withInputs(newIns)
		}
	}
	return fn(n)
}

// Columns returns the left columns followed by the right columns.
func (n *Apply) Columns() []Column { return concatCols(n.Left.Columns(), n.Right.Columns()) }

// Inputs returns Left and Right.
func (n *Apply) Inputs() []Node { return []Node{n.Left, n.Right} }

func (n *Apply) withInputs(in []Node) Node {
	return &Apply{Kind: n.Kind, Left: in[0], Right: in[1], Guard: n.Guard}
}
