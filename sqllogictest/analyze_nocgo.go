//go:build !cgo

package sqllogictest

// incrementalSupported is false without cgo: incremental mode needs
// pg_query to see which relations a query reads.
const incrementalSupported = false

func analyzeQuery(string, SortMode, int) queryInfo {
	return queryInfo{fallback: "built without cgo"}
}

func relationsRead(string) []string { return nil }
