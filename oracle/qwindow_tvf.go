package oracle

import (
	"fmt"
	"strings"
)

// The window table functions join the oracle like every other operator,
// with one twist: a view that reads TUMBLE, HOP or SESSION is compared
// not with its own query run ad hoc (which runs the same planning of the
// window) but with its reference, the same query with each window
// written as the standard SQL PostgreSQL also runs: date_bin for TUMBLE,
// generate_series for HOP, lag and a running sum for SESSION. So the
// check is incremental == batch and window == formulation at once, and
// PostgreSQL, the third opinion, runs the formulation.

// windowItem is a window table function in FROM and its formulation,
// both under the same alias.
type windowItem struct {
	sql, ref string
}

// windowFrom generates a window over a table with a timestamp column ts,
// or returns false when t has none. Times in generated data are half
// hours over five days, so windows of hours and a day see several rows.
func (g *qgen) windowFrom(t *Table, a string) (item, bool) {
	var cols []string
	hasTS := false
	for _, c := range t.Cols {
		cols = append(cols, c.Name)
		hasTS = hasTS || c.Name == "ts" && c.Type == tTimestamp
	}
	if !hasTS {
		return item{}, false
	}
	list := strings.Join(cols, ", ")
	hours := func(h int) string { return fmt.Sprintf("INTERVAL '%d hours'", h) }
	var w windowItem
	switch g.r.weighted(40, 35, 25) {
	case 0:
		size := pick(g.r, []int{1, 2, 3, 24})
		offset := ""
		origin := "TIMESTAMP 'epoch'"
		if g.r.chance(0.3) {
			offset = ", INTERVAL '30 minutes'"
			origin += " + INTERVAL '30 minutes'"
		}
		w.sql = fmt.Sprintf("TUMBLE(%s, ts, %s%s) AS %s", t.Name, hours(size), offset, a)
		bin := fmt.Sprintf("date_bin(%s, ts, %s)", hours(size), origin)
		w.ref = fmt.Sprintf("(SELECT %s, %s AS window_start, %s + %s AS window_end FROM %s WHERE ts IS NOT NULL) AS %s",
			list, bin, bin, hours(size), t.Name, a)
	case 1:
		hop := pick(g.r, []int{1, 2})
		size := hop * g.r.between(2, 3)
		if g.r.chance(0.3) {
			size = hop + 1
		}
		w.sql = fmt.Sprintf("HOP(%s, ts, %s, %s) AS %s", t.Name, hours(hop), hours(size), a)
		w.ref = fmt.Sprintf("(SELECT %s, s AS window_start, s + %s AS window_end FROM %s, "+
			"generate_series(date_bin(%s, ts - %s, TIMESTAMP 'epoch') + %s, ts, %s) AS s WHERE ts IS NOT NULL) AS %s",
			list, hours(size), t.Name, hours(hop), hours(size), hours(hop), hours(hop), a)
	default:
		gap := pick(g.r, []int{1, 2, 5})
		key, part := "", ""
		for _, c := range t.Cols {
			if c.Name == "k" || c.Name == "s" {
				key, part = ", "+c.Name, "PARTITION BY "+c.Name+" "
				break
			}
		}
		w.sql = fmt.Sprintf("SESSION(%s, ts, %s%s) AS %s", t.Name, hours(gap), key, a)
		w.ref = fmt.Sprintf("(SELECT %s, min(ts) OVER (%s) AS window_start, max(ts) OVER (%s) + %s AS window_end FROM "+
			"(SELECT %s, sum(starts) OVER (%sORDER BY ts ROWS UNBOUNDED PRECEDING) AS sid FROM "+
			"(SELECT %s, CASE WHEN lag(ts) OVER (%sORDER BY ts) > ts - %s THEN 0 ELSE 1 END AS starts FROM %s WHERE ts IS NOT NULL) AS x) AS y) AS %s",
			list, sessionPart(part), sessionPart(part), hours(gap),
			list, part, list, part, hours(gap), t.Name, a)
	}
	g.windows = append(g.windows, w)
	it := item{sql: w.sql}
	for _, c := range t.Cols {
		it.cols = append(it.cols, col{ref: a + "." + c.Name, name: c.Name, typ: c.Type})
	}
	it.cols = append(it.cols, col{ref: a + ".window_start", name: "window_start", typ: tTimestamp},
		col{ref: a + ".window_end", name: "window_end", typ: tTimestamp})
	return it, true
}

// sessionPart is the window of a session's rows: its partition and its
// number.
func sessionPart(part string) string {
	if part == "" {
		return "PARTITION BY sid"
	}
	return part + ", sid"
}

// reference returns q with every window of the view written as its
// formulation, "" when it has none.
func (g *qgen) reference(q string) string {
	if len(g.windows) == 0 {
		return ""
	}
	for _, w := range g.windows {
		q = strings.Replace(q, w.sql, w.ref, 1)
	}
	return q
}
