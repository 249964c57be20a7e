package scalar

// Known reports whether the library implements a function, aggregate,
// window function or table function of the given name. The system catalog
// lists exactly those in pg_proc, so a client that checks for a function
// before calling it is told the truth.
func Known(name string) bool {
	return len(lib.funcs[name]) > 0 || len(lib.aggs[name]) > 0 || len(lib.windows[name]) > 0 || len(lib.tables[name]) > 0
}
