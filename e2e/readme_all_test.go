package e2e

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestReadmeExamplesTogether runs the SQL of every README example, top to
// bottom, in one fresh database with a broker: a reader who tries them
// all in turn must not meet "already exists". Only what cannot end is
// left out (\watch, COPY (SUBSCRIBE …)), and the section that needs an upstream
// PostgreSQL server.
func TestReadmeExamplesTogether(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binaries; skipped with -short")
	}
	if _, err := exec.LookPath("psql"); err != nil {
		t.Skip("psql is not installed (Debian package postgresql-client)")
	}
	raw, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, brokerAddr := startDevkafka(t, "--partitions", "3")
	_, addr := startStreamdb(t, t.TempDir())
	md := string(raw)
	if before, rest, ok := strings.Cut(md, "\n## PostgreSQL in 2 minutes\n"); ok {
		_, after, _ := strings.Cut(rest, "\n## ")
		md = before + "\n## " + after
	}
	script := strings.ReplaceAll(readmeSQL(md), "127.0.0.1:9092", brokerAddr)
	if strings.Count(script, "CREATE ") < 8 {
		t.Fatalf("found too few README examples:\n%s", script)
	}
	host, port, _ := strings.Cut(addr, ":")
	cmd := exec.Command("psql", "-X", "-v", "ON_ERROR_STOP=1", "-h", host, "-p", port, "-U", "streamdb", "-d", "streamdb", "-f", "-")
	cmd.Env = shellEnv
	cmd.Stdin = strings.NewReader(script)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("the README's examples in one database: %v\n%s\nscript:\n%s", err, out, script)
	}
}

// readmeSQL gathers the SQL of a Markdown file's examples: sql blocks and
// streamdb's psql here-documents of sh blocks, indented blocks included, without
// the lines that run until interrupted and Grafana's macros.
func readmeSQL(md string) string {
	var b strings.Builder
	var lang string
	inBlock, inHeredoc := false, false
	for line := range strings.Lines(md) {
		trimmed := strings.TrimSpace(line)
		switch {
		case !inBlock && strings.HasPrefix(trimmed, "```"):
			inBlock, lang = true, strings.TrimPrefix(trimmed, "```")
			continue
		case inBlock && trimmed == "```":
			inBlock, inHeredoc = false, false
			continue
		case !inBlock:
			continue
		}
		if lang == "sh" {
			if strings.HasPrefix(trimmed, "psql ") && strings.Contains(trimmed, "-p 6875") && strings.HasSuffix(trimmed, "<<'SQL'") {
				inHeredoc = true
				continue
			}
			if trimmed == "SQL" {
				inHeredoc = false
				continue
			}
			if !inHeredoc {
				continue
			}
		} else if lang != "sql" {
			continue
		}
		if strings.HasSuffix(trimmed, `\watch 1`) || strings.Contains(trimmed, "COPY (SUBSCRIBE") || strings.Contains(trimmed, "$__") {
			continue
		}
		b.WriteString(trimmed + "\n")
	}
	return b.String()
}
