package sqllogictest

import (
	"strings"
	"testing"
)

func TestExpectedFailuresParse(t *testing.T) {
	bad := map[string]string{
		"select1.test":            "has no reason",
		"select1.test:x  reason":  "bad line number",
		"select1.test:0  reason":  "bad line number",
		"select1.test:-3  reason": "bad line number",
	}
	for list, want := range bad {
		if _, err := ParseExpectedFailures(strings.NewReader(list), "l"); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseExpectedFailures(%q) error = %v, want %q", list, err, want)
		}
	}
}

func TestExpectedFailuresMatch(t *testing.T) {
	list := `# comment

evidence/in1.test	SQLite only
index/view/10/slt_good_1.test:563  dialect
select1.test:10  [incremental] views only
select1.test:20  [batch] batch only
`
	ef, err := ParseExpectedFailures(strings.NewReader(list), "l")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		path   string
		mode   Mode
		line   int
		listed bool
	}{
		{"/corpus/evidence/in1.test", Batch, 5, true},
		{"evidence/in1.test", Incremental, 99, true},
		{"/corpus/other/evidence/in1.test.bak", Batch, 5, false},
		{"/corpus/xevidence/in1.test", Batch, 5, false},
		{"../shared/sqllogictest/sqlite/index/view/10/slt_good_1.test", Batch, 563, true},
		{"../shared/sqllogictest/sqlite/index/view/10/slt_good_1.test", Batch, 564, false},
		{"/c/select1.test", Incremental, 10, true},
		{"/c/select1.test", Batch, 10, false},
		{"/c/select1.test", Batch, 20, true},
		{"/c/select1.test", Incremental, 20, false},
	}
	for _, tt := range tests {
		fe := ef.forFile(tt.path, tt.mode)
		if got := fe.note(tt.line, 'f'); got != tt.listed {
			t.Errorf("%s:%d in %v: listed = %v, want %v", tt.path, tt.line, tt.mode, got, tt.listed)
		}
	}
	var none *ExpectedFailures
	if none.forFile("x.test", Batch).note(1, 'f') {
		t.Error("a nil list lists a failure")
	}
}

func TestExpectedFailuresNotes(t *testing.T) {
	ef, err := ParseExpectedFailures(strings.NewReader("f.slt:1  a\nf.slt:2  b\nf.slt:3  c\nf.slt:4  d\ng.slt  whole\n"), "l")
	if err != nil {
		t.Fatal(err)
	}
	fe := ef.forFile("f.slt", Batch)
	fe.note(1, 'p')
	fe.note(2, 'f')
	fe.note(3, 's')
	notes := fe.notes("f.slt", 1)
	if len(notes) != 2 || !strings.Contains(notes[0], "f.slt:1: unexpected pass") || !strings.Contains(notes[1], "f.slt:4: listed in l:4 but no record") {
		t.Errorf("notes = %q", notes)
	}
	if notes := ef.forFile("g.slt", Batch).notes("g.slt", 0); len(notes) != 1 || !strings.Contains(notes[0], "unexpected pass of the whole file") {
		t.Errorf("whole-file notes = %q", notes)
	}
	if notes := ef.forFile("g.slt", Batch).notes("g.slt", 3); len(notes) != 0 {
		t.Errorf("whole-file notes with failures = %q", notes)
	}
}
