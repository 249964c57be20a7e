\copy orders (id, customer, amount, placed) from 'orders.csv' with (format csv, header)
SELECT * FROM orders ORDER BY id;
SELECT * FROM spend ORDER BY customer;
\copy (SELECT id, customer FROM orders WHERE amount > 100 ORDER BY id) to stdout with csv header
\copy orders from 'bad.tsv'
SELECT count(*) FROM orders;
