-- Nexmark q19: auction top-10 price. The ten highest bids of every auction;
-- top-k per group.
--
-- Changes from the standard query: ties in price are broken by date_time,
-- bidder and extra so exactly ten rows qualify and the result (rank_number
-- included) is deterministic.
SELECT *
FROM (
    SELECT *,
           row_number() OVER (PARTITION BY auction ORDER BY price DESC, date_time, bidder, extra) AS rank_number
    FROM bid
) AS t
WHERE rank_number <= 10
