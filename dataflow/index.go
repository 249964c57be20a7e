package dataflow

import "github.com/streamdb/streamdb/types"

// Index returns an Output ordered by key(row) (then by the row), for point
// and prefix lookups on chosen columns: CREATE INDEX, primary keys, and
// lookup joins against a view. Snapshot.Lookup finds the rows of one key.
func (g *Graph) Index(src Node, key func(types.Row) types.Row) *Index {
	x := &Index{Output: newOutput(g.input(src), key)}
	x.persistAs(g.stateKeys())
	g.add(&outputOp{o: x.Output}, new(stream))
	return x
}

// Index is an Output whose rows are ordered by an index key; see Output
// for its maintenance and concurrency.
type Index struct {
	*Output
}
