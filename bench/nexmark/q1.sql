-- Nexmark q1: currency conversion. Each bid's price converted from dollars
-- to euros; a stateless projection with arithmetic.
--
-- Changes from the standard (Flink/RisingWave) query: none. 0.908 * price
-- is numeric in PostgreSQL's typing, as DECIMAL is in Flink's.
SELECT auction, bidder, 0.908 * price AS price, date_time
FROM bid
