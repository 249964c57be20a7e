package planner

// Session appends to each input row the bounds of its session window,
// window_start and window_end: per partition of Keys, the rows whose
// times (column TS) follow each other by less than Gap microseconds form
// one session, from its first time to its last time plus Gap. A row with
// a NULL time belongs to no session and is dropped. It is how SESSION(t,
// ts, gap, keys...) in FROM is planned.
type Session struct {
	Input Node
	TS    int
	Gap   int64
	Keys  []int
	Cols  []Column // window_start and window_end
}

// EmitOnClose emits each row of its input once it is final: when the
// watermark of column Col has passed the row's value (a materialized
// view's EMIT ON WINDOW CLOSE, Col its window's start or end). The view
// then never retracts a row, and holds only closed windows.
type EmitOnClose struct {
	Input Node
	Col   int
}

// JoinExpiry is what lets a join forget a side's rows: a condition Col +
// Shift < Other, Col a column of the side and Other one of the other
// side (from a conjunct such as b.ts <= a.ts + INTERVAL '10 minutes':
// for a, Col a.ts, Shift ten minutes, Other b.ts). A row whose Col plus
// Shift lies behind the other side's watermark on Other matches no row
// still to come, and once the side's own watermark on Col has passed it
// the row cannot be retracted either: it is forgotten.
type JoinExpiry struct {
	Col, Other int
	// Shift is in microseconds.
	Shift int64
}

func (n *Session) Columns() []Column     { return concatCols(n.Input.Columns(), n.Cols) }
func (n *EmitOnClose) Columns() []Column { return n.Input.Columns() }
func (n *Session) Inputs() []Node        { return []Node{n.Input} }
func (n *EmitOnClose) Inputs() []Node    { return []Node{n.Input} }

func (n *Session) withInputs(in []Node) Node {
	c := *n
	c.Input = in[0]
	return &c
}

func (n *EmitOnClose) withInputs(in []Node) Node {
	c := *n
	c.Input = in[0]
	return &c
}
