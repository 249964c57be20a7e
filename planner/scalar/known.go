package scalar

// Known reports whether the library implements a function, aggregate,
// window function or table function of the given name. The system catalog
// lists exactly those in pg_proc, so a client that checks for a function
// before calling it is told the truth.
func Known(name string) bool {
	return len(lib.funcs[name]) > 0 || len(lib.aggs[name]) > 0 || len(lib.windows[name]) > 0 || len(lib.tables[name]) > 0
}

// IsTableFunc reports whether name is a set-returning function usable in
// FROM; any other function there yields one row.
func IsTableFunc(name string) bool { return len(lib.tables[name]) > 0 }
