-- A correlated WITH query referenced from a LATERAL subquery of its query.
--
-- The binder bound a WITH query once, against the scope around its WITH
-- clause, and used that plan wherever it was referenced: from a subquery
-- one level deeper, its reference to the enclosing row (a26.ts) pointed
-- one level short, at the LATERAL's left row. Decorrelation then read
-- column 2 of a row of 1 column: before the check in removeApply it
-- panicked on the coordinator and stopped the server; with it, creating
-- the view failed with XX000 (oracle seed 115246753). A WITH query
-- referenced levels deeper now has its outer references shifted by them.
-- check postgres
CREATE TABLE t1 (k int, ts int, p int);
CREATE MATERIALIZED VIEW v0 AS SELECT a26.k AS c0, x.k AS c1, x.k2 AS c2 FROM t1 AS a26 CROSS JOIN LATERAL (WITH w AS (SELECT a27.k FROM t1 AS a27 WHERE a27.ts = a26.ts) SELECT a29.k, a32.k2 FROM w AS a29, LATERAL (SELECT a31.k AS k2 FROM w AS a31 WHERE a31.k >= a29.k) AS a32) AS x;
CREATE MATERIALIZED VIEW v1 AS SELECT a26.k AS c0, (WITH w AS (SELECT a27.p FROM t1 AS a27 WHERE a27.ts = a26.ts) SELECT count(*) FROM w WHERE EXISTS (SELECT 1 FROM w AS w2 WHERE w2.p > w.p)) AS c1 FROM t1 AS a26;
-- tick 1
INSERT INTO t1 VALUES (1, 10, 5), (2, 10, 6), (3, 20, 7), (4, NULL, 1);
-- tick 2
UPDATE t1 SET ts = 20 WHERE k = 2;
INSERT INTO t1 VALUES (5, 10, 9);
-- tick 3
DELETE FROM t1 WHERE k = 1;
UPDATE t1 SET p = p + 3 WHERE ts = 20;
