CREATE TABLE orders (id int PRIMARY KEY, customer text NOT NULL, amount numeric(10,2), placed date DEFAULT '2024-01-01');
INSERT INTO orders (id, customer, amount) VALUES (1, 'ada', 12.50), (2, 'bob', 3.99), (3, 'ada', 7.25);
SELECT * FROM orders ORDER BY id;
CREATE MATERIALIZED VIEW spend AS SELECT customer, sum(amount) AS total, count(*) AS n FROM orders GROUP BY customer;
BEGIN;
UPDATE orders SET amount = amount * 2 WHERE customer = 'ada';
DELETE FROM orders WHERE id = 2;
COMMIT;
SELECT * FROM spend ORDER BY customer;
INSERT INTO orders VALUES (1, 'dup', 1);
SELECT 1/0;
SHOW TABLES;
SET TIME ZONE 'Europe/Berlin';
SELECT '2024-06-01 12:00:00+00'::timestamptz AS berlin;
\x
SELECT * FROM orders WHERE id = 3;
\x
CREATE SOURCE gen FROM LOAD GENERATOR COUNTER;
\d
\d orders
\d gen
\dt+ orders
\dm+
\du
SELECT table_name, table_type FROM information_schema.tables WHERE table_schema = 'public' ORDER BY 1;
SELECT quote_ident('time'), quote_ident('value');
