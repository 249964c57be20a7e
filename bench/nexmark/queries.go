package main

import (
	"embed"
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"
)

//go:embed *.sql
var queryFiles embed.FS

// query is one Nexmark query: the SELECT that becomes the materialized
// view (and the ad hoc recomputation, and PostgreSQL's materialized view),
// with the header comment that explains its dialect changes.
type query struct {
	Name  string // "q0".."q20", the view's name too
	Num   int
	Notes string // the header comment, without the "--" markers
	SQL   string // the SELECT, without comments or a trailing semicolon
}

// loadQueries reads every bench/nexmark/*.sql file, in query number order.
func loadQueries() ([]query, error) {
	entries, err := queryFiles.ReadDir(".")
	if err != nil {
		return nil, err
	}
	var qs []query
	for _, e := range entries {
		b, err := queryFiles.ReadFile(e.Name())
		if err != nil {
			return nil, err
		}
		q, err := parseQueryFile(e.Name(), string(b))
		if err != nil {
			return nil, err
		}
		qs = append(qs, q)
	}
	slices.SortFunc(qs, func(a, b query) int { return a.Num - b.Num })
	return qs, nil
}

// parseQueryFile splits a query file into its leading "--" comment block
// and the statement after it.
func parseQueryFile(file, text string) (query, error) {
	name := strings.TrimSuffix(path.Base(file), ".sql")
	num, err := strconv.Atoi(strings.TrimPrefix(name, "q"))
	if err != nil || !strings.HasPrefix(name, "q") {
		return query{}, fmt.Errorf("%s: query files are named q<number>.sql", file)
	}
	var notes, body []string
	inHeader := true
	for line := range strings.Lines(text) {
		line = strings.TrimRight(line, "\r\n")
		if inHeader && strings.HasPrefix(line, "--") {
			notes = append(notes, strings.TrimSpace(strings.TrimPrefix(line, "--")))
			continue
		}
		inHeader = false
		body = append(body, line)
	}
	sql := strings.TrimSuffix(strings.TrimSpace(strings.Join(body, "\n")), ";")
	switch {
	case len(notes) == 0:
		return query{}, fmt.Errorf("%s: missing the header comment that explains the query and its dialect changes", file)
	case sql == "":
		return query{}, fmt.Errorf("%s: no statement after the header", file)
	case strings.Contains(sql, ";"):
		return query{}, fmt.Errorf("%s: one statement per file", file)
	}
	return query{Name: name, Num: num, Notes: strings.TrimSpace(strings.Join(notes, "\n")), SQL: sql}, nil
}

// selectQueries keeps the queries named in the comma-separated list names,
// or all of them when names is empty.
func selectQueries(all []query, names string) ([]query, error) {
	if strings.TrimSpace(names) == "" {
		return all, nil
	}
	var out []query
	for _, n := range strings.Split(names, ",") {
		n = strings.TrimSpace(n)
		i := slices.IndexFunc(all, func(q query) bool { return q.Name == n })
		if i < 0 {
			return nil, fmt.Errorf("unknown query %q", n)
		}
		out = append(out, all[i])
	}
	return out, nil
}
