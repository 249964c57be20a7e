-- Nexmark q6: average selling price by seller. For each auction's winning
-- bid, the average of the seller's last 10 winning prices (this one and
-- the 10 before it, by bid time).
--
-- Changes from the standard query: Flink's text (MAX(price) grouped by
-- auction, then AVG OVER ... ROWS 10 PRECEDING over the ungrouped
-- B.dateTime) is not valid SQL and Flink marks it unsupported. We use the
-- shape of RisingWave's q6_group_top1, the winning bid per auction by
-- ROW_NUMBER, but with the winner ordered by price DESCENDING (RisingWave's
-- orders ascending, which picks the lowest bid) and ties broken by
-- date_time, bidder and extra so the result is deterministic; the outer
-- window orders by date_time and auction for the same reason.
SELECT q.seller,
       avg(q.final) OVER (PARTITION BY q.seller ORDER BY q.date_time, q.auction
                          ROWS BETWEEN 10 PRECEDING AND CURRENT ROW) AS avg
FROM (
    SELECT a.seller, a.id AS auction, b.price AS final, b.date_time,
           row_number() OVER (PARTITION BY a.id ORDER BY b.price DESC, b.date_time, b.bidder, b.extra) AS rank
    FROM auction AS a, bid AS b
    WHERE a.id = b.auction
      AND b.date_time BETWEEN a.date_time AND a.expires
) AS q
WHERE q.rank <= 1
