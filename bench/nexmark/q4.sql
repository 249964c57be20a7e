-- Nexmark q4: average price per category. The winning (highest) bid of
-- each auction, averaged per category; a join under two levels of
-- aggregation, MAX included, so retractions of a maximum must be handled.
--
-- Changes from the standard query: none (RisingWave's text).
SELECT q.category, avg(q.final) AS avg
FROM (
    SELECT max(b.price) AS final, a.category
    FROM auction AS a, bid AS b
    WHERE a.id = b.auction
      AND b.date_time BETWEEN a.date_time AND a.expires
    GROUP BY a.id, a.category
) AS q
GROUP BY q.category
