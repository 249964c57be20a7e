package sinks

import (
	"strings"

	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/types"
)

// CheckUniqueKey checks that no two rows of a relation's snapshot share
// the values of the key columns (indexes into columns), counting a row
// with multiplicity n as n rows. NULLs compare equal, since they encode
// to the same external key. It is the check CREATE SINK … KEY (cols)
// runs against the relation unless the key is NOT ENFORCED; the error
// names the first duplicated key as CREATE UNIQUE INDEX over duplicated
// rows does (23505).
//
// A snapshot can show that a key is not unique, not that it stays
// unique: rows the relation gains later are not checked (a NOT ENFORCED
// sink's behaviour on duplicates is what every sink then does).
func CheckUniqueKey(columns []Column, key []int, snapshot []Change) error {
	seen := make(map[string]struct{}, len(snapshot))
	var buf []byte
	for _, c := range snapshot {
		buf = buf[:0]
		for _, k := range key {
			buf = types.AppendKey(buf, c.Row[k], false)
		}
		_, dup := seen[string(buf)]
		if dup || c.Diff > 1 {
			names := make([]string, len(key))
			vals := make([]string, len(key))
			for i, k := range key {
				names[i] = columns[k].Name
				vals[i] = c.Row[k].String()
			}
			return pgerr.New(pgerr.UniqueViolation, "upsert key could not be validated as unique").
				WithDetail("Key (%s)=(%s) is duplicated.", strings.Join(names, ", "), strings.Join(vals, ", ")).
				WithHint("Choose a key that is unique, or declare KEY (…) NOT ENFORCED if it is unique by construction.")
		}
		seen[string(buf)] = struct{}{}
	}
	return nil
}
