package compat

import (
	"context"
	"os"
	"strings"
	"testing"
)

// readmeSQL returns the SQL blocks of the README section under heading,
// with the indentation of a list item removed.
func readmeSQL(t *testing.T, heading string) []string {
	t.Helper()
	raw, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(raw), "\n"+heading+"\n")
	if !ok {
		t.Fatalf("README.md has no section %q", heading)
	}
	section, _, _ = strings.Cut(section, "\n## ")
	var blocks []string
	var cur *strings.Builder
	for line := range strings.Lines(section) {
		trimmed := strings.TrimSpace(line)
		switch {
		case cur == nil && trimmed == "```sql":
			cur = &strings.Builder{}
		case cur != nil && trimmed == "```":
			blocks = append(blocks, cur.String())
			cur = nil
		case cur != nil:
			cur.WriteString(trimmed + "\n")
		}
	}
	return blocks
}

// TestReadmeGrafana runs "Point Grafana at streamdb" from the README: its
// schema, then its dashboard query after macro expansion, through the
// same driver as Grafana, so that the documented query keeps working.
func TestReadmeGrafana(t *testing.T) {
	blocks := readmeSQL(t, "## Point Grafana at streamdb")
	if len(blocks) != 2 {
		t.Fatalf("want a schema block and a panel query, found %d SQL blocks", len(blocks))
	}
	srv := startServer(t, false)
	conn := connect(t, srv.url("sslmode=disable"))
	for _, stmt := range strings.Split(blocks[0], ";") {
		if strings.TrimSpace(stmt) != "" {
			mustExec(t, conn, stmt)
		}
	}
	mustExec(t, conn, `INSERT INTO metrics VALUES ('2024-01-01 00:00:10+00', 'a', 1), ('2024-01-01 00:00:50+00', 'a', 3),
		('2024-01-01 00:06:10+00', 'b', 5), ('2023-12-31 00:00:00+00', 'a', 100)`)
	r, err := pgxDB{conn}.query(context.Background(), expandMacros(t, blocks[1], grafanaFrom, grafanaTo))
	if err != nil {
		t.Fatal(err)
	}
	if want := "1704067200|a|2\n1704067500|b|5"; r.lines != want {
		t.Errorf("README panel query:\n got %q\nwant %q", r.lines, want)
	}
	if strings.Join(r.names, ",") != "time,metric,value" {
		t.Errorf("README panel query columns: %v", r.names)
	}
}
