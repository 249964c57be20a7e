\d orders
\d+ orders
\d+ big_orders
\d spend
\d nope
