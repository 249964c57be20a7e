-- A DISTINCT aggregate over equal values written differently.
--
-- The DISTINCT counter (planner/scalar/agg.go) gave the accumulator the
-- first form of a value it saw (18 - 10.2 = 7.8) and, when the value's
-- last row went, retracted the form of that row (18 - 10.20 = 7.80): a
-- numeric sum counts its terms' scales to know its result's, and the
-- count of scale 1 stayed behind, so the view's later sum 6.72 + -2.83
-- showed as 3.9 instead of 3.89. The counter now keeps each form and
-- gives the accumulator the least, whatever the order rows came in.
-- check postgres
CREATE TABLE t0 (k int NOT NULL, a int, PRIMARY KEY (k));
CREATE TABLE t1 (n numeric);
CREATE MATERIALIZED VIEW v AS SELECT a, sum(DISTINCT (t0.k - t1.n)) AS s FROM t0 CROSS JOIN t1 GROUP BY a;
-- tick 1
INSERT INTO t1 VALUES (10.2);
INSERT INTO t0 VALUES (18, 8);
INSERT INTO t1 VALUES (10.20);
-- tick 2
DELETE FROM t1;
INSERT INTO t1 VALUES (-1.72), (7.83);
DELETE FROM t0 WHERE a = 8;
INSERT INTO t0 VALUES (5, 8);
