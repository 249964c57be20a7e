-- A subquery as the left operand of IN (SELECT …).
--
-- semiJoins (planner/decorrelate.go) turned the IN into a semi join and
-- put its left operand, a subquery, into the join condition as it was,
-- where no later stage removes it: creating the view failed with XX000
-- "cannot compile expression node *planner.Subquery" (oracle seed
-- 349711877). Such an IN now goes through an Apply, its operand's first.
-- check postgres
CREATE TABLE t0 (k int, a int, s text);
CREATE TABLE t1 (a int NOT NULL, b bigint NOT NULL, s text, PRIMARY KEY (a, b));
CREATE MATERIALIZED VIEW v0 AS SELECT a25.s AS c0 FROM t1 AS a25 WHERE ((SELECT lower(CAST(a36.b AS text)) AS c0 FROM t1 AS a36 WHERE a36.a < a25.a ORDER BY c0 LIMIT 1) IN (SELECT substr(a37.s, 1, 2) AS c0 FROM t0 AS a37));
CREATE MATERIALIZED VIEW v1 AS SELECT a25.a AS c0, (SELECT max(a36.s) FROM t1 AS a36 WHERE a36.b = a25.b) IN (SELECT a37.s FROM t0 AS a37 WHERE a37.k > 0) AS c1 FROM t1 AS a25;
-- tick 1
INSERT INTO t1 VALUES (1, 1::bigint, 'x'), (2, 2::bigint, 'y'), (3, 1::bigint, NULL), (4, 4::bigint, 'z');
INSERT INTO t0 VALUES (1, 1, '1'), (2, 2, 'x'), (0, 3, 'y'), (5, 5, NULL);
-- tick 2
UPDATE t0 SET k = k + 1 WHERE s = 'y';
DELETE FROM t1 WHERE a = 1;
-- tick 3
INSERT INTO t1 VALUES (0, 2::bigint, 'q');
UPDATE t0 SET s = '2' WHERE k = 1;
