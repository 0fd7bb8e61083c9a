-- A showing's seat count is the seats it can sell: house seats are in its
-- layout but were counted too, so the dashboard and the showing's page
-- disagreed. Rows of a layout name their house seats in "blocked".
UPDATE showings
SET seat_count = seat_count - (
  SELECT COALESCE(SUM(json_array_length(r.value, '$.blocked')), 0)
  FROM json_each(showings.layout_json, '$.rows') AS r
)
WHERE json_type(layout_json, '$.rows') = 'array'
  AND seat_count > (
    SELECT COALESCE(SUM(json_array_length(r.value, '$.blocked')), 0)
    FROM json_each(showings.layout_json, '$.rows') AS r
  );
