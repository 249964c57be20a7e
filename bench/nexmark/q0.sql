-- Nexmark q0: pass-through. Every bid, projected to the standard columns;
-- measures the cost of ingesting and storing events.
--
-- Changes from the standard (Flink/RisingWave) query: none.
SELECT auction, bidder, price, date_time
FROM bid
