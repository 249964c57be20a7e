package scalar

// AggFunc is an aggregate function overload.
type AggFunc struct {
	Name string
}

// WindowFunc is a window function overload.
type WindowFunc struct {
	Name string
}

// TableFunc is a set-returning function usable in FROM.
type TableFunc struct {
	Name string
}
