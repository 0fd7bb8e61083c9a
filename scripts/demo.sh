#!/usr/bin/env bash
# Creates the demo through the admin API, unless showings already exist: a
# 16-seat screen with a wheelchair space and its companion seat, three
# films, and a showing of each over the next days with adult, child and
# concession prices (and a free one-off preview).
set -euo pipefail
BASE="$1"
TOKEN="$2"

if curl -fsS "$BASE/api/showings" | grep -q '"id"'; then
  echo "demo: showings already exist"
  exit 0
fi

# POSTs JSON to an admin endpoint; prints the id it answers.
post() {
  curl -fsS -X POST "$BASE$1" \
    -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' -d "$2" |
    sed -E 's/.*"id":"([0-9a-f]+)".*/\1/'
}

screen="$(post /api/admin/screens '{"name": "Screen 1", "layout": {"rows": [
  {"name": "A", "seats": 8, "wheelchair": [1], "companion": [2]},
  {"name": "B", "seats": 8, "gaps_after": [4]}]}}')"

film() {
  post /api/admin/films "{\"title\": \"$1\", \"runtime_minutes\": $2, \"certificate\": \"$3\", \"synopsis\": \"$4\"}"
}

showing() {
  local film="$1" days="$2" time="$3" prices="$4"
  local starts
  starts="$(date -u -d "+$days days" +%Y-%m-%d)T${time}:00Z"
  post /api/admin/showings "{\"film_id\": \"$film\", \"screen_id\": \"$screen\",
    \"starts_at\": \"$starts\", \"currency\": \"USD\", \"prices\": $prices}" >/dev/null
}

FAMILY='[{"id": "adult", "name": "Adult", "amount": 1200}, {"id": "child", "name": "Child", "amount": 800}, {"id": "concession", "name": "Concession", "amount": 950}]'
FREE='[{"id": "free", "name": "Free", "amount": 0}]'

paris="$(film "Paris, Texas" 145 15 "A man walks out of the desert after four years and sets out to find his family.")"
stalker="$(film "Stalker" 161 PG "A guide leads a writer and a scientist into the Zone, where a room is said to grant wishes.")"
tokyo="$(film "Tokyo Story" 136 U "An elderly couple visit their grown children in Tokyo, who are too busy for them.")"
showing "$paris" 1 "19:30" "$FAMILY"
showing "$stalker" 2 "20:00" "$FAMILY"
showing "$tokyo" 3 "18:00" "$FAMILY"
showing "$tokyo" 4 "11:00" "$FREE"
echo "demo: created three films and four showings in Screen 1 (16 seats, a wheelchair space)"
