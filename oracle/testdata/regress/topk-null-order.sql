-- ORDER BY … LIMIT over a column holding NULL and non-NULL values.
--
-- planner.Comparator (planner/lower.go), the order TopK uses, negated the
-- comparison a second time when the left value is the non-NULL one, so a
-- NULL and a non-NULL value each compare greater than the other. The
-- B-tree of the TopK state then takes the NULL row for an existing row:
-- the ad hoc query returns {-3, -3} instead of {-3, NULL}, and after the
-- update the view, which kept the bad state, returns {-3, -3} while the
-- query returns {4, 4} (PostgreSQL: {4, NULL}). NULLS FIRST is affected
-- the same way.
-- check postgres
CREATE TABLE t (a int);
CREATE MATERIALIZED VIEW v AS SELECT a FROM t ORDER BY a LIMIT 4;
CREATE MATERIALIZED VIEW w AS SELECT a FROM t ORDER BY a DESC NULLS LAST LIMIT 4;
-- tick 1
INSERT INTO t VALUES (-3), (NULL);
-- tick 2
UPDATE t SET a = a + 7;
