package main

import (
	"strings"
	"testing"
)

// TestQueryFiles checks the query set the harness promises and that every
// file says how it departs from the standard query.
func TestQueryFiles(t *testing.T) {
	qs, err := loadQueries()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, q := range qs {
		names = append(names, q.Name)
		if !strings.Contains(q.Notes, "Changes from the standard") {
			t.Errorf("%s: the header does not state its changes from the standard query", q.Name)
		}
		if !strings.HasPrefix(strings.ToUpper(q.SQL), "SELECT") && !strings.HasPrefix(strings.ToUpper(q.SQL), "WITH") {
			t.Errorf("%s: the statement is not a query: %.40q", q.Name, q.SQL)
		}
	}
	want := "q0 q1 q2 q3 q4 q5 q6 q7 q8 q9 q15 q17 q18 q19 q20"
	if got := strings.Join(names, " "); got != want {
		t.Fatalf("queries = %s, want %s", got, want)
	}
}

func TestParseQueryFile(t *testing.T) {
	for _, tc := range []struct {
		file, text string
		wantSQL    string
		wantErr    string
	}{
		{file: "q7.sql", text: "-- note one\n-- note two\nSELECT 1\nFROM t;\n", wantSQL: "SELECT 1\nFROM t"},
		{file: "q7.sql", text: "SELECT 1", wantErr: "missing the header"},
		{file: "q7.sql", text: "-- only notes\n", wantErr: "no statement"},
		{file: "q7.sql", text: "-- n\nSELECT 1; SELECT 2", wantErr: "one statement"},
		{file: "x.sql", text: "-- n\nSELECT 1", wantErr: "named q<number>"},
	} {
		q, err := parseQueryFile(tc.file, tc.text)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("parseQueryFile(%q) error = %v, want %q", tc.text, err, tc.wantErr)
			}
			continue
		}
		if err != nil || q.SQL != tc.wantSQL || q.Num != 7 {
			t.Errorf("parseQueryFile(%q) = %+v, %v", tc.text, q, err)
		}
	}
}

func TestSelectQueries(t *testing.T) {
	all := []query{{Name: "q0"}, {Name: "q1"}, {Name: "q2"}}
	got, err := selectQueries(all, "q2, q0")
	if err != nil || len(got) != 2 || got[0].Name != "q2" || got[1].Name != "q0" {
		t.Fatalf("selectQueries = %v, %v", got, err)
	}
	if _, err := selectQueries(all, "q9"); err == nil {
		t.Fatal("selectQueries accepted an unknown query")
	}
	if got, _ := selectQueries(all, ""); len(got) != 3 {
		t.Fatalf("empty selection = %v, want all", got)
	}
}
