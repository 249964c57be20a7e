package sqllogictest

import (
	"os"
	"strings"
)

// rewrite is a record whose expected results are to be replaced.
type rewrite struct {
	rec   *Record
	lines []string
}

// applyRewrites replaces the expected results of the given records in the
// file at path: the lines after "----" up to the record's end, or, for a
// record without "----", a new "----" and results after its last line.
// Everything else in the file, comments and line endings included, is kept.
func applyRewrites(path string, rws []rewrite) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	lines := strings.SplitAfter(string(data), "\n")
	eol := "\n"
	if len(lines) > 0 && strings.HasSuffix(lines[0], "\r\n") {
		eol = "\r\n"
	}
	// Apply from the end of the file so earlier line numbers stay valid.
	for i := len(rws) - 1; i >= 0; i-- {
		rec := rws[i].rec
		var repl []string
		if rec.SepLine == 0 && len(rws[i].lines) == 0 {
			continue
		}
		from := rec.EndLine // 0-based index of the line after the record
		if rec.SepLine != 0 {
			from = rec.SepLine
		} else {
			repl = append(repl, "----"+eol)
		}
		for _, l := range rws[i].lines {
			repl = append(repl, l+eol)
		}
		to := rec.EndLine
		if to > len(lines) {
			to = len(lines)
		}
		if to > 0 && !strings.HasSuffix(lines[to-1], "\n") {
			lines[to-1] += eol
		}
		lines = append(lines[:from], append(repl, lines[to:]...)...)
	}
	info, err := os.Stat(path)
	if err != nil {
		return err
	}
	return os.WriteFile(path, []byte(strings.Join(lines, "")), info.Mode().Perm())
}
