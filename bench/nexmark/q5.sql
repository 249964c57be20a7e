-- Nexmark q5: hot items. For every hopping window (10 s long, every 2 s),
-- the auctions with the most bids.
--
-- Changes from the standard query: streamdb and PostgreSQL have no
-- HOP(...) table function. A bid belongs to the five windows that start at
-- date_bin('2 s', date_time) minus 0, 2, 4, 6 and 8 seconds, so the hop is
-- a cross join with VALUES (0)..(4); window_end is dropped because it is
-- window_start + 10 s. The two copies of the windowed count are written
-- once as a CTE.
WITH auction_bids AS (
    SELECT b.auction,
           date_bin(INTERVAL '2 seconds', b.date_time, TIMESTAMP '1970-01-01') - h.k * INTERVAL '2 seconds' AS starttime,
           count(*) AS num
    FROM bid AS b
    CROSS JOIN (VALUES (0), (1), (2), (3), (4)) AS h(k)
    GROUP BY 1, 2
)
SELECT ab.auction, ab.num
FROM auction_bids AS ab
JOIN (
    SELECT starttime, max(num) AS maxn
    FROM auction_bids
    GROUP BY starttime
) AS mb ON ab.starttime = mb.starttime AND ab.num >= mb.maxn
