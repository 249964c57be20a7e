-- Nexmark q18: find last bid. Each bidder's latest bid on each auction;
-- deduplication by ROW_NUMBER.
--
-- Changes from the standard query: ties in date_time are broken by extra,
-- price and url (RisingWave adds extra too), so exactly one row wins and the
-- result is deterministic.
SELECT auction, bidder, price, channel, url, date_time, extra
FROM (
    SELECT *,
           row_number() OVER (PARTITION BY bidder, auction ORDER BY date_time DESC, extra, price, url) AS rank_number
    FROM bid
) AS t
WHERE rank_number <= 1
