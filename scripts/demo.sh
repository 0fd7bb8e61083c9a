#!/usr/bin/env bash
# Creates the demo: a 16-seat screening room with a few showings over the
# next days, through the admin API, unless showings already exist.
set -euo pipefail
BASE="$1"
TOKEN="$2"

if curl -fsS "$BASE/api/showings" | grep -q '"id"'; then
  echo "demo: showings already exist"
  exit 0
fi

create() {
  local title="$1" days="$2" time="$3"
  local starts
  starts="$(date -u -d "+$days days" +%Y-%m-%d)T${time}:00Z"
  curl -fsS -o /dev/null -X POST "$BASE/api/admin/showings" \
    -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' \
    -d "{\"title\": \"$title\", \"starts_at\": \"$starts\",
         \"price\": {\"amount\": 1200, \"currency\": \"USD\"},
         \"layout\": {\"rows\": [{\"name\": \"A\", \"seats\": 8}, {\"name\": \"B\", \"seats\": 8}]}}"
}

create "Paris, Texas" 1 "19:30"
create "Stalker" 2 "20:00"
create "Tokyo Story" 3 "18:00"
echo "demo: created three showings in a 16-seat room"
