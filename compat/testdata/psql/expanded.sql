\x
SELECT * FROM orders ORDER BY id;
\x
SELECT customer, total, n FROM spend ORDER BY customer;
