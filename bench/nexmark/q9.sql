-- Nexmark q9: winning bids. Each auction with its highest bid made while
-- it was open; top-1 per group over a join.
--
-- Changes from the standard query: ties in price and time are further
-- broken by bidder and extra, so that exactly one row wins and the result
-- is deterministic (needed to compare it with a recomputation).
SELECT id, item_name, description, initial_bid, reserve, date_time, expires, seller, category,
       auction, bidder, price, bid_date_time
FROM (
    SELECT a.*, b.auction, b.bidder, b.price, b.date_time AS bid_date_time,
           row_number() OVER (PARTITION BY a.id ORDER BY b.price DESC, b.date_time, b.bidder, b.extra) AS rownum
    FROM auction AS a, bid AS b
    WHERE a.id = b.auction
      AND b.date_time BETWEEN a.date_time AND a.expires
) AS tmp
WHERE rownum <= 1
