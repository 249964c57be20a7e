-- Nexmark q20: expand bid with auction. Bids joined with their auction, for
-- auctions in category 10; a join that emits wide rows.
--
-- Changes from the standard query: none (RisingWave's column list).
SELECT auction, bidder, price, channel, url, b.date_time AS bid_date_time,
       item_name, description, initial_bid, reserve, a.date_time AS auction_date_time, expires, seller, category
FROM bid AS b
JOIN auction AS a ON b.auction = a.id
WHERE a.category = 10
