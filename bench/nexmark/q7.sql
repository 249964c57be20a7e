-- Nexmark q7: highest bid. The bids carrying the highest price of their
-- 10-second tumbling window.
--
-- Changes from the standard query: TUMBLE(bid, date_time, 10 s) becomes a
-- GROUP BY on date_bin('10 s', date_time, epoch), with window_end =
-- window_start + 10 s; Flink's extra column is kept as in its version.
SELECT b.auction, b.price, b.bidder, b.date_time, b.extra
FROM bid AS b
JOIN (
    SELECT max(price) AS maxprice,
           date_bin(INTERVAL '10 seconds', date_time, TIMESTAMP '1970-01-01') + INTERVAL '10 seconds' AS date_time
    FROM bid
    GROUP BY date_bin(INTERVAL '10 seconds', date_time, TIMESTAMP '1970-01-01')
) AS b1 ON b.price = b1.maxprice
WHERE b.date_time BETWEEN b1.date_time - INTERVAL '10 seconds' AND b1.date_time
