package sqllogictest

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// ExpectedFailures is the checked-in list of records known to fail, one
// entry a line:
//
//	path[:line]  reason
//
// A path names a file by its trailing path components (so
// "evidence/in1.test" matches wherever the corpus lives); without a line
// the entry covers every record of the file. A reason starting with
// "[batch]" or "[incremental]" limits the entry to that mode. Blank lines
// and lines starting with '#' are ignored.
//
// A listed failure does not fail a run. A listed record that passes, and a
// listed line that holds no record, are reported so the list only shrinks.
type ExpectedFailures struct {
	entries []*expectedEntry
}

type expectedEntry struct {
	path   string // slash-separated
	line   int    // 0 for the whole file
	mode   Mode   // meaningful when any is false
	any    bool   // the entry applies in every mode
	reason string
	source string // "list:line", for messages
}

func (e *expectedEntry) String() string {
	if e.line == 0 {
		return e.path + "  " + e.reason
	}
	return e.path + ":" + strconv.Itoa(e.line) + "  " + e.reason
}

// LoadExpectedFailures reads an expected-failure list from a file.
func LoadExpectedFailures(path string) (*ExpectedFailures, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ParseExpectedFailures(f, path)
}

// ParseExpectedFailures reads an expected-failure list; name is used in
// error messages.
func ParseExpectedFailures(r io.Reader, name string) (*ExpectedFailures, error) {
	ef := &ExpectedFailures{}
	sc := bufio.NewScanner(r)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || line[0] == '#' {
			continue
		}
		target, reason, _ := strings.Cut(strings.ReplaceAll(line, "\t", " "), " ")
		reason = strings.TrimSpace(reason)
		if reason == "" {
			return nil, fmt.Errorf("%s:%d: entry %q has no reason", name, n, target)
		}
		e := &expectedEntry{path: target, reason: reason, any: true, source: fmt.Sprintf("%s:%d", name, n)}
		if i := strings.LastIndexByte(target, ':'); i >= 0 {
			l, err := strconv.Atoi(target[i+1:])
			if err != nil || l <= 0 {
				return nil, fmt.Errorf("%s:%d: bad line number in %q", name, n, target)
			}
			e.path, e.line = target[:i], l
		}
		e.path = filepath.ToSlash(filepath.Clean(e.path))
		switch {
		case strings.HasPrefix(reason, "[batch]"):
			e.any, e.mode = false, Batch
		case strings.HasPrefix(reason, "[incremental]"):
			e.any, e.mode = false, Incremental
		}
		ef.entries = append(ef.entries, e)
	}
	return ef, sc.Err()
}

// fileExpectations are the entries that apply to one file in one mode.
type fileExpectations struct {
	whole *expectedEntry
	lines map[int]*expectedEntry
	// outcome of each line entry's record: 'p' passed, 'f' failed, 's'
	// skipped; a missing outcome means no record stands on that line.
	outcome map[int]byte
}

// forFile selects the entries for a file run in mode.
func (ef *ExpectedFailures) forFile(path string, mode Mode) *fileExpectations {
	fe := &fileExpectations{}
	if ef == nil {
		return fe
	}
	p := filepath.ToSlash(filepath.Clean(path))
	for _, e := range ef.entries {
		if !e.any && e.mode != mode || !(p == e.path || strings.HasSuffix(p, "/"+e.path)) {
			continue
		}
		if e.line == 0 {
			fe.whole = e
			continue
		}
		if fe.lines == nil {
			fe.lines = make(map[int]*expectedEntry)
			fe.outcome = make(map[int]byte)
		}
		fe.lines[e.line] = e
	}
	return fe
}

// note remembers the outcome of the record at line for the report and
// reports whether a failure of that record is listed.
func (fe *fileExpectations) note(line int, outcome byte) bool {
	if _, ok := fe.lines[line]; ok {
		fe.outcome[line] = outcome
		return true
	}
	return fe.whole != nil
}

// notes returns the messages about entries that no longer hold: records
// that passed, lines without a record, and whole-file entries for a file
// without failures.
func (fe *fileExpectations) notes(path string, failures int) []string {
	var out []string
	for line, e := range fe.lines {
		switch fe.outcome[line] {
		case 'p':
			out = append(out, fmt.Sprintf("%s:%d: unexpected pass — remove it from the list (%s)", path, line, e.source))
		case 0:
			out = append(out, fmt.Sprintf("%s:%d: listed in %s but no record ran at that line", path, line, e.source))
		}
	}
	sort.Strings(out)
	if fe.whole != nil && failures == 0 {
		out = append(out, fmt.Sprintf("%s: unexpected pass of the whole file — remove it from the list (%s)", path, fe.whole.source))
	}
	return out
}
