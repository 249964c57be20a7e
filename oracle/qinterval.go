package oracle

import "fmt"

// intervalQualified draws an interval written with an SQL-standard field
// qualifier, as a literal or a cast: a bare number counts the
// qualifier's last field (INTERVAL '3' MONTH is three months), the fields
// right of it are dropped (… '1 day 02:03' HOUR keeps whole hours), and
// SECOND(p) rounds. Casting text reads it as an interval first, so
// CAST(CAST('3' AS text) AS INTERVAL MONTH) is three seconds truncated
// to nothing. Every form is small enough that date and timestamp
// arithmetic with it cannot overflow.
func (g *qgen) intervalQualified() string {
	n := func(lo, hi int) int { return g.r.between(lo, hi) }
	switch g.r.weighted(10, 3, 3, 3, 3, 3, 3, 3, 3, 3) {
	case 0:
		unit := pick(g.r, []string{"YEAR", "MONTH", "DAY", "HOUR", "MINUTE", "SECOND"})
		return fmt.Sprintf("INTERVAL '%d' %s", n(-3, 90), unit)
	case 1:
		return fmt.Sprintf("INTERVAL '%d-%d' YEAR TO MONTH", n(0, 2), n(0, 11))
	case 2:
		return fmt.Sprintf("INTERVAL '%d %d' DAY TO HOUR", n(0, 3), n(0, 23))
	case 3:
		return fmt.Sprintf("INTERVAL '%d %d:%02d' DAY TO MINUTE", n(0, 3), n(0, 23), n(0, 59))
	case 4:
		return fmt.Sprintf("INTERVAL '%d:%02d' %s", n(0, 30), n(0, 59), pick(g.r, []string{"HOUR TO MINUTE", "MINUTE TO SECOND", "HOUR TO SECOND"}))
	case 5:
		p := n(0, 3)
		return fmt.Sprintf("INTERVAL '%d.%04d' SECOND(%d)", n(0, 90), n(0, 9999), p)
	case 6:
		return fmt.Sprintf("INTERVAL '%d %d:%02d:%02d.%d' DAY TO SECOND(%d)", n(0, 2), n(0, 23), n(0, 59), n(0, 59), n(0, 999), n(0, 2))
	case 7:
		// Fields right of the qualifier's last one are dropped.
		unit := pick(g.r, []string{"YEAR", "MONTH", "DAY", "HOUR", "MINUTE", "DAY TO HOUR", "HOUR TO MINUTE"})
		return fmt.Sprintf("INTERVAL '%d years %d months %d days %d hours %d minutes %d seconds' %s", n(0, 1), n(0, 13), n(0, 40), n(0, 30), n(0, 70), n(0, 70), unit)
	case 8:
		unit := pick(g.r, []string{"YEAR", "MONTH", "DAY", "HOUR", "MINUTE", "SECOND(1)"})
		return fmt.Sprintf("CAST('%d' AS INTERVAL %s)", n(0, 40), unit)
	}
	unit := pick(g.r, []string{"YEAR", "MONTH", "DAY", "HOUR", "MINUTE", "DAY TO HOUR"})
	if g.r.chance(0.5) {
		return fmt.Sprintf("CAST(CAST('%d' AS text) AS INTERVAL %s)", n(0, 90000), unit)
	}
	return fmt.Sprintf("CAST(INTERVAL '%d days %d hours %d minutes' AS INTERVAL %s)", n(0, 40), n(0, 30), n(0, 70), unit)
}
