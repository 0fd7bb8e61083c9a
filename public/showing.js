// The live seat map: choose seats, hold them, pay. Seats others take or
// release show up without reloading.
'use strict';

// The map is pushed over a WebSocket when it changes; the page polls only
// while it has no socket open (a network that blocks WebSockets), every
// 10 s, as the benchmark's polling viewers do (`bench/src/clients.rs`).
const REFRESH_MS = 10000;
const sid = location.pathname.split('/')[2];
const messages = document.getElementById('messages');
// Messages about choosing and holding are drawn by the Hold button, those
// about paying by the Pay button: where the buyer is looking.
const holdMessages = document.getElementById('hold-messages');
const payMessages = document.getElementById('pay-messages');
const chosen = new Set();
// Seat → price category id, for a chosen seat not at the default price.
const priceOf = new Map();
let showing = null;
// The cinema's tax, as the showing's answer gives it.
let tax = null;
let states = {};
let version = -1;
let hold = null;
let card = null;
// Whether holds may be made now; zones' buttons go by it.
let salesOpen = true;
// Behind a waiting room: the admission token once the line reaches this
// buyer (sent with holds), and the place the page shows until then.
let admission = null;
const QUEUE_STORE = `queue:${sid}`;

// Whether this buyer is waiting in the showing's line.
function waiting() {
  return !document.getElementById('waiting').hidden;
}

// The live map, once: a socket to the showing's object, or a read every
// REFRESH_MS while none is open (an open one brings every change). A
// buyer waiting in line follows nothing: the line's answers say when the
// showing sells out, and the showing's object keeps its capacity for
// those choosing seats.
let following = false;
function follow() {
  if (following) return;
  following = true;
  const live = followMap(sid, () => version, refresh, applyPush);
  setInterval(() => { if (!live()) refresh(); }, REFRESH_MS);
}

// What the line last said of the seats (moving, standing still while
// every seat is held, or sold out): the map is read again when that
// changes, so the waiting list is offered (or withdrawn).
let lineSaid = 'moving';
// The wait counted down between the line's answers.
let countdown = null;

// Joins the showing's line (or asks where this buyer stands), and says so
// until the line reaches them; then the map is theirs to choose from.
async function waitInLine() {
  const box = document.getElementById('waiting');
  box.hidden = false;
  let kept = null;
  try { kept = localStorage.getItem(QUEUE_STORE); } catch (_) { kept = null; }
  const headers = kept ? {} : await Turnstile.headers();
  const { status, body } = await api(`/api/showings/${sid}/queue`, { json: kept ? { queue_token: kept } : {}, headers });
  if (status === 403 && body.error === 'bad_queue_token') {
    try { localStorage.removeItem(QUEUE_STORE); } catch (_) { /* nothing kept */ }
    return setTimeout(waitInLine, 1000);
  }
  if (status === 404 && body.error === 'no_waiting_room') {
    // Staff took the waiting room away: seats are chosen straight away.
    box.hidden = true;
    render();
    follow();
    return;
  }
  if (status !== 200) {
    document.getElementById('waiting-place').textContent = body.detail || 'The line could not be joined; trying again.';
    return setTimeout(waitInLine, 5000);
  }
  try { localStorage.setItem(QUEUE_STORE, body.queue_token); } catch (_) { /* private mode */ }
  const place = document.getElementById('waiting-place');
  const wait = document.getElementById('waiting-wait');
  clearInterval(countdown);
  if (body.admission) {
    admission = body.admission;
    box.hidden = true;
    say(messages, 'ok', 'It is your turn: choose your seats.');
    render();
    follow();
    refresh();
    return;
  }
  const said = body.sold_out ? 'sold out' : body.estimate_ms === null && body.place !== null ? 'still' : 'moving';
  if (said !== lineSaid) {
    lineSaid = said;
    refresh();
  }
  if (body.place === null) {
    place.textContent = `You are in the line with ${body.early} ${body.early === 1 ? 'person' : 'people'} who came before sales open.`;
    wait.textContent = `At ${clockTime(body.opens_at_ms)} everyone here is given a place at random; keep this page open.`;
    return setTimeout(waitInLine, body.ask_again_ms);
  }
  place.textContent = placeText(body.place, body.ahead);
  wait.textContent = body.estimate_ms !== null ? waitText(body.estimate_ms)
    : body.sold_out ? 'The showing is sold out for now: the line moves again if seats come back, and you can join the waiting list below.'
      : 'Every seat is held by buyers paying now: the line moves again as soon as one is free. Keep this page open.';
  // The line says when to ask again (as the cursor reaches this place,
  // and now and then for news); meanwhile the wait counts down here.
  if (body.estimate_ms !== null) countdown = countDown(body, place, wait);
  setTimeout(waitInLine, body.ask_again_ms);
}

function placeText(number, ahead) {
  return `You are number ${number} in line${ahead ? `: ${ahead} ahead of you` : ': you are next'}.`;
}

function waitText(ms) {
  return `About ${howLong(Math.max(ms, 1000))} to wait. Keep this page open: it moves by itself.`;
}

// While the line moves, its cursor admits one place each `estimate /
// (ahead + 1)`: the wait is counted down each second, and those ahead
// every ten (the place is announced, so not more often).
function countDown(body, place, wait) {
  const told = Date.now();
  let counted = told;
  return setInterval(() => {
    const left = Math.max(0, body.estimate_ms - (Date.now() - told));
    wait.textContent = waitText(left);
    if (Date.now() - counted < REFRESH_MS) return;
    counted = Date.now();
    place.textContent = placeText(body.place, Math.max(0, Math.ceil((body.ahead + 1) * left / body.estimate_ms) - 1));
  }, 1000);
}

// Changing showing: the buyer came from their order page to move some of
// its tickets here (`?exchange=<order>&key=<its key>&tickets=<ids>`). They
// choose as many seats, pay only what these cost beyond what the tickets
// were worth (or get the rest back), and land on their new order.
const params = new URLSearchParams(location.search);
const exchange = params.get('exchange') ? {
  order: params.get('exchange'),
  key: params.get('key') || '',
  tickets: (params.get('tickets') || '').split(',').filter(Boolean),
  worth: null,
} : null;

// What the exchanged tickets were worth, from their order: null if the
// order may not be exchanged now (the reason is said).
async function exchangeWorth() {
  const { status, body } = await api(`/api/orders/${exchange.order}?key=${encodeURIComponent(exchange.key)}`);
  const offer = status === 200 && body.changes && body.changes.exchange;
  if (!offer || !offer.open) {
    say(messages, 'error', 'These tickets can no longer be changed online. Your order is as it was.');
    return null;
  }
  const worth = offer.tickets.filter((t) => exchange.tickets.includes(t.id));
  if (worth.length !== exchange.tickets.length || !worth.length) {
    say(messages, 'error', 'Some of these tickets can no longer be changed. Go back to your order and choose again.');
    return null;
  }
  return { amount: worth.reduce((sum, t) => sum + t.worth, 0), currency: offer.currency };
}

// What the buyer pays now: these seats less what the old tickets were worth.
function toPay() {
  return exchange ? Math.max(0, hold.amount.amount - exchange.worth.amount) : hold.amount.amount;
}

// Wheelchair spaces and companion seats, by seat name, and whether the
// cinema sells them only at its box office.
function seatKinds() {
  const kinds = new Map();
  for (const row of showing.layout.rows || []) {
    for (const n of row.wheelchair || []) kinds.set(row.name + n, 'wheelchair space');
    for (const n of row.companion || []) kinds.set(row.name + n, 'companion seat');
  }
  return kinds;
}

function deskOnly(name) {
  return Boolean(showing.layout.wheelchair_at_desk_only) && seatKinds().has(name);
}

// The seat the map's one tab stop is on: arrow keys move it (a roving
// tabindex), so a 200-seat room is one Tab, not 200.
let cursor = null;

function seatButton(name) {
  const state = states[name] || 'sold';
  const selected = chosen.has(name);
  const kind = seatKinds().get(name);
  const atDesk = deskOnly(name) && state === 'available';
  const alone = name === stranded;
  const what = selected ? 'chosen by you' : atDesk ? 'sold at the box office' : alone ? 'available, would be left on its own'
    : state === 'available' ? 'available' : `${state}, not available`;
  const label = `Seat ${name}, ${kind ? `${kind}, ` : ''}${what}`;
  return el('button', {
    class: 'seat ' + (selected ? 'selected' : state) + (kind ? ' accessible' : '') + (atDesk ? ' desk-only' : '') + (alone ? ' stranded' : ''),
    'data-seat': name,
    'aria-label': label,
    'aria-pressed': selected ? 'true' : 'false',
    'aria-disabled': state !== 'available' && !selected ? 'true' : null,
    tabindex: name === cursor ? '0' : '-1',
    // The seat's name stays on every seat: its state is in its colour,
    // its pattern and its label.
    text: name,
    onclick: () => toggle(name),
    onfocus: () => { cursor = name; },
  });
}

function moveCursor(event) {
  const moved = moveSeatCursor(event, document.getElementById('map'), rows().map((row) => row.seats), cursor);
  if (moved) cursor = moved;
}

function rows() {
  const layout = showing.layout;
  if (layout.rows) {
    return layout.rows.map((row) => ({
      name: row.name,
      seats: Array.from({ length: row.seats }, (_, i) => row.name + (i + 1)),
      aisles: new Set((row.gaps_after || []).map((n) => row.name + n)),
    }));
  }
  if (layout.slots) return [{ name: '', seats: layout.slots, aisles: new Set() }];
  return [];
}

// General admission zones: places sold by count, after the seats in the
// showing's order of units.
function zones() {
  return (showing.layout.zones || []).map((zone) => ({
    name: zone.name,
    places: Array.from({ length: zone.capacity }, (_, i) => placeName(zone.name, i + 1)),
  }));
}

function unitNames() {
  return rows().flatMap((row) => row.seats).concat(zones().flatMap((zone) => zone.places));
}

// A count for each zone and its Hold button, with the places left now.
function renderZones() {
  const box = document.getElementById('zones');
  const all = zones();
  box.hidden = !all.length || exchange !== null;
  if (box.hidden) return;
  const list = document.getElementById('zone-list');
  for (const zone of all) {
    const free = zone.places.filter((name) => states[name] === 'available').length;
    const id = `zone-${zone.places[0]}`;
    let form = list.querySelector(`[data-zone="${CSS.escape(zone.name)}"]`);
    if (!form) {
      const countId = `${id}-count`;
      form = el('form', { class: 'zone', 'data-zone': zone.name, 'aria-labelledby': id }, [
        el('h3', { id, text: `${zone.name} · general admission` }),
        el('p', { class: 'zone-left', 'aria-live': 'polite' }),
        el('span', { class: 'best-count' }, [
          el('label', { for: countId, text: 'Places' }),
          el('select', { id: countId }, Array.from({ length: showing.max_seats_per_hold }, (_, n) => el('option', { value: String(n + 1), text: String(n + 1) }))),
        ]),
        el('button', { type: 'submit', class: 'secondary', text: `Hold places in ${zone.name}` }),
      ]);
      form.addEventListener('submit', (event) => holdZone(event, zone.name, Number(document.getElementById(countId).value)));
      list.append(form);
    }
    form.querySelector('.zone-left').textContent = free ? `${free} of ${zone.places.length} places left` : 'Sold out';
    form.querySelector('button').disabled = hold !== null || !free || !salesOpen || (Boolean(showing.admit_per_minute) && !admission);
  }
}

async function holdZone(event, zone, count) {
  event.preventDefault();
  if (hold) return say(holdMessages, 'info', 'Your places are held: pay for them or release them to choose again.');
  const pending = { attempt: { key: crypto.randomUUID(), zone, count } };
  remember(pending);
  chosen.clear();
  await requestHold(pending.attempt);
}

// The single-seat rule as the showing's object keeps it (see
// `ledger/src/seating.rs`), so the map can say before Hold which seat a
// choice would leave on its own. A seat sold only at the box office
// counts as an aisle here, as it does online there.
function strandedBy(seats) {
  if (!showing.layout.rows || showing.layout.allow_single_seats || !seats.length) return null;
  const free = (name) => states[name] === 'available' && !deskOnly(name);
  for (const row of rows()) {
    const taken = row.seats.filter((name) => seats.includes(name));
    if (!taken.length) continue;
    // The row's free runs, as lists of seat names.
    const runs = [];
    let run = [];
    for (const name of row.seats) {
      if (free(name)) run.push(name);
      else if (run.length) { runs.push(run); run = []; }
      if (row.aisles.has(name) && run.length) { runs.push(run); run = []; }
    }
    if (run.length) runs.push(run);
    let alone = null;
    for (const r of runs) {
      if (r.length < 2 || !r.some((name) => taken.includes(name))) continue;
      let piece = [];
      for (const name of [...r, null]) {
        if (name === null || taken.includes(name)) {
          if (piece.length === 1 && !alone) alone = piece[0];
          piece = [];
        } else piece.push(name);
      }
    }
    if (!alone) continue;
    const k = taken.length;
    const run0 = runs.find((r) => r.includes(taken[0]));
    const oneBlock = run0 && run0.indexOf(taken[0]) + k - 1 === run0.indexOf(taken[k - 1]);
    const avoidable = oneBlock
      ? runs.some((r) => r.length >= k && r.length - k !== 1)
      : runs.reduce((reach, r) => {
        const next = new Set(reach);
        for (const have of reach) {
          for (let j = 1; j <= r.length; j += 1) if (r.length < 2 || j !== r.length - 1) next.add(have + j);
        }
        return next;
      }, new Set([0])).has(k);
    if (avoidable) return alone;
  }
  return null;
}

let stranded = null;

function render() {
  const map = document.getElementById('map');
  const all = rows();
  const names = all.flatMap((row) => row.seats);
  // The tab stop starts on the first seat a buyer could choose.
  if (!names.includes(cursor)) cursor = names.find((name) => states[name] === 'available') || names[0];
  const hadFocus = map.contains(document.activeElement);
  stranded = hold ? null : strandedBy([...chosen]);
  const cell = (name) => el('span', { role: 'gridcell' }, [seatButton(name)]);
  map.replaceChildren(...all.map((row) =>
    el('div', { class: 'row', role: 'row', 'aria-label': row.name ? `Row ${row.name}` : 'Seats' }, [el('span', { class: 'row-name', 'aria-hidden': 'true', text: row.name }), ...row.seats.flatMap((name) => row.aisles.has(name)
      ? [cell(name), el('span', { class: 'aisle', 'aria-hidden': 'true' })]
      : [cell(name)])])));
  // A redraw keeps the keyboard where it was.
  if (hadFocus) {
    const again = map.querySelector(`[data-seat="${CSS.escape(cursor)}"]`);
    if (again) again.focus();
  }
  showScrollCue();
  // House seats are never on sale, so never "left"; a seat held by someone
  // else may come back, so it is not counted as left either.
  const left = names.filter((name) => states[name] === 'available' && !deskOnly(name)).length;
  const held = names.filter((name) => states[name] === 'held').length;
  const seatCount = showing.seat_count - zones().reduce((sum, zone) => sum + zone.places.length, 0);
  document.getElementById('left').textContent = !names.length ? ''
    : left > 0 || hold ? `${left} of ${seatCount} seats left`
      : held ? `No seat free now: ${held} held by buyers paying may come back on sale` : 'Sold out';
  renderZones();
  const list = [...chosen];
  document.getElementById('chosen').textContent = list.length ? `Chosen: ${seatsText(list)}.` : 'No seats chosen.';
  document.getElementById('stranded').textContent = stranded
    ? `These seats would leave seat ${stranded} on its own, where nobody can sit with anyone: choose it too, or seats that leave no single seat.`
    : '';
  const waiting = Boolean(showing.admit_per_minute) && !admission && !hold;
  document.getElementById('hold').disabled = !list.length || hold !== null || stranded !== null || waiting;
  const go = document.getElementById('best-go');
  if (go) go.disabled = waiting;
  const best = document.getElementById('best');
  if (best) best.hidden = hold !== null;
  offerWaitlist();
}

// Nothing to buy online now (no free seat, or fewer than the most a buyer
// may want): the waiting list is offered, unless this buyer holds seats.
function offerWaitlist() {
  const box = document.getElementById('waitlist');
  const names = unitNames();
  const free = names.filter((name) => states[name] === 'available' && !deskOnly(name)).length;
  box.hidden = !salesOpen || hold !== null || exchange !== null || offer !== null || !names.length || free > 0;
  // In the line, the map is read again when the line's answer says the
  // showing sold out: nothing free and nothing held that could come back.
  const held = names.some((name) => states[name] === 'held');
  if (!document.getElementById('waiting').hidden && !free && !held) {
    document.getElementById('waiting-wait').textContent = 'The showing is sold out for now: the line moves again if seats come back, and you can join the waiting list below.';
  }
}

async function joinWaitlist(event) {
  event.preventDefault();
  const status = document.getElementById('waitlist-status');
  const email = document.getElementById('waitlist-email').value.trim();
  const seats = Number(document.getElementById('waitlist-seats').value);
  const { status: code, body } = await api(`/api/showings/${sid}/waitlist`, { json: { email, seats }, headers: await Turnstile.headers() });
  Turnstile.reset();
  if (code === 200 || code === 201) {
    status.textContent = `You are number ${body.position} on the waiting list for ${body.seats} seat${body.seats === 1 ? '' : 's'}. If they come back, we e-mail ${email} a link to buy them.`;
  } else if (code === 409 && body.error === 'seats_available') {
    status.textContent = 'Seats have just come back: choose them on the map.';
    refresh().catch(() => {});
  } else {
    status.textContent = body.detail || 'You could not be put on the waiting list; try again.';
  }
}

// The link of a waiting list offer: `?offer=<entry>&key=<key>`.
const offer = params.get('offer') && params.get('key') ? { entry: params.get('offer'), key: params.get('key') } : null;

async function claimOffer() {
  const box = document.getElementById('offer-messages');
  const { status, body } = await api(`/api/showings/${sid}/offers/${encodeURIComponent(offer.entry)}/claim`, { json: { key: offer.key } });
  if (status === 201) {
    document.getElementById('offer').hidden = true;
    history.replaceState(null, '', location.pathname);
    adopt(body);
    remember({ hold: { hold_id: body.hold_id } });
    say(holdMessages, 'ok', `Held for you: ${seatsText(body.seats)}.`);
    render();
    return startPayment();
  }
  document.getElementById('offer-claim').hidden = true;
  const why = status === 404 ? 'This link is not valid for this showing.'
    : body.error === 'offer_ended' && body.state === 'claimed' ? 'These seats were already claimed with this link: pay for them in the window where you opened it.'
      : body.error === 'offer_ended' && body.state === 'bought' ? 'These seats have been bought with this link.'
        : body.error === 'offer_ended' ? 'This offer has ended and its seats have gone to the next person waiting.'
          : body.error === 'already_holding' ? `You already hold ${seatsText(body.held_seats)} for this showing: pay for them or release them first.`
            : body.detail || 'The offer could not be claimed.';
  say(box, 'error', why);
}

function toggle(name) {
  if (hold) return say(holdMessages, 'info', 'Your seats are held: pay for them or release them to choose again.');
  if (chosen.has(name)) chosen.delete(name);
  else if (states[name] !== 'available') return say(holdMessages, 'info', `Seat ${name} is not available.`);
  else if (deskOnly(name)) return say(holdMessages, 'info', `Seat ${name} is a ${seatKinds().get(name)}: the cinema sells these at its box office, so that the space suits you. Call or visit.`);
  else if (exchange && chosen.size >= exchange.tickets.length) return say(holdMessages, 'info', `You are changing ${exchange.tickets.length} ticket${exchange.tickets.length === 1 ? '' : 's'}: choose ${exchange.tickets.length} seat${exchange.tickets.length === 1 ? '' : 's'}.`);
  else if (chosen.size >= showing.max_seats_per_hold) return say(holdMessages, 'info', `You can hold up to ${showing.max_seats_per_hold} seats at a time.`);
  else chosen.add(name);
  cursor = name;
  render();
  renderChoices();
  const again = document.querySelector(`[data-seat="${CSS.escape(name)}"]`);
  if (again) again.focus();
}

// On a screen narrower than the room, says so, under the map.
function showScrollCue() {
  const box = document.getElementById('map-scroll');
  document.getElementById('map-more').hidden = box.scrollWidth <= box.clientWidth + 1;
}

const CODES = { a: 'available', h: 'held', s: 'sold' };

// The compact map: one letter per seat, in layout order.
function decode(codes) {
  const names = unitNames();
  const out = {};
  names.forEach((name, i) => { out[name] = CODES[codes[i]] || 'sold'; });
  return out;
}

async function refresh() {
  const { status, body } = await api(`/api/showings/${sid}/seats?format=codes`);
  if (status === 200 && body.version > version) show(body.version, decode(body.codes));
}

// A map pushed over the socket: the whole map, or the seats changed since
// the version this page shows. Answers false when it cannot be used (the
// page is at another version), and the page reads the map afresh.
function applyPush(push) {
  if (push.version <= version) return true;
  if (push.codes !== undefined) {
    show(push.version, decode(push.codes));
    return true;
  }
  if (push.since !== version || !Array.isArray(push.changes)) return false;
  const names = rows().flatMap((row) => row.seats);
  const next = { ...states };
  for (const [i, code] of push.changes) if (names[i]) next[names[i]] = CODES[code] || 'sold';
  show(push.version, next);
  return true;
}

function show(newVersion, newStates) {
  version = newVersion;
  states = newStates;
  // Seats this page is asking to hold (or whose answer was lost) are held
  // by this buyer, not taken by another: they stay chosen.
  const asking = hold || remembered().attempt;
  const lost = asking ? [] : [...chosen].filter((name) => states[name] !== 'available');
  for (const name of lost) chosen.delete(name);
  render();
  if (lost.length) {
    renderChoices();
    say(holdMessages, 'error', `${lost.join(', ')} ${lost.length > 1 ? 'were' : 'was'} just taken by another buyer, so ${lost.length > 1 ? 'they are' : 'it is'} no longer in your choice.`);
  }
}

// A price in words: "$8.00", or "free".
function priceText(amount) {
  return amount === 0 ? 'free' : money({ amount, currency: showing.price.currency });
}

// A showing's price categories; the first is the default.
function categories() {
  return showing.prices && showing.prices.length ? showing.prices : [{ id: 'standard', name: 'Standard', amount: showing.price.amount }];
}

function categoryOf(seat) {
  const all = categories();
  return all.find((c) => c.id === priceOf.get(seat)) || all[0];
}

// One price to choose for each chosen seat (when the showing has more
// than one), and what they come to. Drawn when the choice changes, not on
// every map refresh, so a buyer choosing is not interrupted.
function renderChoices() {
  for (const seat of [...priceOf.keys()]) if (!chosen.has(seat)) priceOf.delete(seat);
  const all = categories();
  const currency = showing.price.currency;
  const box = document.getElementById('choices');
  box.replaceChildren(...(all.length < 2 || hold ? [] : [...chosen].map((seat) => {
    const id = `price-${seat}`;
    const select = el('select', { id, onchange: (event) => { priceOf.set(seat, event.target.value); renderChoices(); document.getElementById(id).focus(); } },
      all.map((c) => el('option', { value: c.id, text: `${c.name}, ${priceText(c.amount)}` })));
    select.value = categoryOf(seat).id;
    return el('p', { class: 'choice' }, [el('label', { for: id, text: `Ticket for seat ${seat}` }), select]);
  })));
  const total = [...chosen].reduce((sum, seat) => sum + categoryOf(seat).amount, 0);
  // Added tax is worked out for the seats together once they are held.
  const plus = taxed(tax) && total > 0 ? (tax.inclusive ? ` including ${tax.name}` : ` plus ${tax.name}`) : '';
  document.getElementById('choice-total').textContent = chosen.size && !hold ? `Total: ${money({ amount: total, currency })}${plus}` : '';
}

// " (A1 Adult $12.00, A2 Child $8.00)" when the seats differ in price.
function priceLines(prices) {
  if (!prices || new Set(prices.map((p) => p.category)).size < 2) return '';
  return ` (${prices.map((p) => `${p.seat} ${p.name} ${money({ amount: p.amount_minor, currency: showing.price.currency })}`).join(', ')})`;
}

// The prices asked for with a hold: only seats not at the default.
function chosenPrices(seats) {
  const first = categories()[0].id;
  const out = {};
  for (const seat of seats) if (categoryOf(seat).id !== first) out[seat] = categoryOf(seat).id;
  return out;
}

// What this page has asked for and not yet seen the end of, kept in local
// storage so that a lost answer or a reload leads back to the same hold and
// order: `attempt` is a hold request and its Idempotency-Key, `hold` the
// hold it got, `payment` the card token and buyer sent to pay for it.
const STORE = exchange ? `showtime.exchange.${sid}.${exchange.order}` : `showtime.pending.${sid}`;
let paying = false;
let checking = false;

function remembered() {
  try { return JSON.parse(localStorage.getItem(STORE)) || {}; } catch (_) { return {}; }
}

function remember(pending) {
  try { localStorage.setItem(STORE, JSON.stringify(pending)); } catch (_) { /* private mode: nothing to keep */ }
}

function forget() {
  try { localStorage.removeItem(STORE); } catch (_) { /* nothing kept */ }
}

async function holdSeats() {
  const seats = [...chosen];
  const prices = chosenPrices(seats);
  let pending = remembered();
  // The same choice asked again keeps its key, so a hold whose answer was
  // lost is answered again rather than refused as a second hold.
  const same = pending.attempt && pending.attempt.seats.join() === seats.join()
    && JSON.stringify(pending.attempt.prices || {}) === JSON.stringify(prices);
  if (!same) {
    pending = { attempt: { key: crypto.randomUUID(), seats, prices } };
    remember(pending);
  }
  await requestHold(pending.attempt);
}

// Best available: the showing picks the best seats together, as many as
// the buyer counted in each price.
async function holdBest(event) {
  event.preventDefault();
  const all = categories();
  const counts = all.map((c) => Number(document.getElementById(`best-${c.id}`).value));
  const count = counts.reduce((sum, n) => sum + n, 0);
  if (!count) return say(holdMessages, 'info', 'Say how many seats you want first.');
  if (count > showing.max_seats_per_hold) return say(holdMessages, 'info', `You can hold up to ${showing.max_seats_per_hold} seats at a time.`);
  const prices = {};
  all.forEach((c, i) => { if (i > 0 && counts[i]) prices[c.id] = counts[i]; });
  const pending = { attempt: { key: crypto.randomUUID(), best: count, prices } };
  remember(pending);
  chosen.clear();
  await requestHold(pending.attempt);
}

// One count to choose a price (just "Seats" at one price), up to the most a
// hold may have.
function renderBest() {
  const all = categories();
  const box = document.getElementById('best-counts');
  box.replaceChildren(...all.map((c, i) => {
    const id = `best-${c.id}`;
    const select = el('select', { id }, Array.from({ length: showing.max_seats_per_hold + 1 }, (_, n) => el('option', { value: String(n), text: String(n) })));
    select.value = String(i === 0 ? Math.min(2, showing.max_seats_per_hold) : 0);
    return el('span', { class: 'best-count' }, [el('label', { for: id, text: all.length > 1 ? c.name : 'Seats' }), select]);
  }));
}

async function requestHold(attempt) {
  document.getElementById('hold').disabled = true;
  let answer;
  try {
    const body = attempt.zone ? { zone: attempt.zone, count: attempt.count }
      : attempt.best ? { best: attempt.best } : { seats: attempt.seats };
    if (attempt.prices && Object.keys(attempt.prices).length) body.prices = attempt.prices;
    // Behind a waiting room, the admission stands in for Turnstile.
    const headers = Object.assign({ 'idempotency-key': attempt.key },
      admission ? { 'x-admission': admission } : await Turnstile.headers());
    answer = await api(`/api/showings/${sid}/holds`, { json: body, headers });
    Turnstile.reset();
  } catch (_) {
    render();
    return say(holdMessages, 'error', 'The connection dropped before the answer came. Press "Hold these seats" again: your seats will not be held twice.');
  }
  const { status, body } = answer;
  if (status === 201) {
    adopt(body);
    remember({ hold: { hold_id: body.hold_id } });
    say(holdMessages, 'ok', `Held: ${seatsText(body.seats)}.`);
    render();
    return startPayment();
  }
  forget();
  if (status === 409 && body.error === 'seats_unavailable') {
    say(holdMessages, 'error', `Sorry, ${seatsText(body.seats)} ${body.seats.length > 1 ? 'were' : 'was'} just taken. The map is up to date; choose again.`);
    for (const seat of body.seats) chosen.delete(seat);
    renderChoices();
    // The map as the refusal saw it, unless the page already shows a later
    // one (a retried request is answered with its first refusal).
    const seen = body.availability;
    if (seen && seen.version > version) { states = decode(seen.codes); version = seen.version; }
    if (!seen) refresh().catch(() => {});
  } else if (status === 409 && body.error === 'leaves_single_seat') {
    say(holdMessages, 'error', `These seats would leave seat ${body.seat} on its own: choose it too, or seats that leave no single seat.`);
    const seen = body.availability;
    if (seen && seen.version > version) { states = decode(seen.codes); version = seen.version; }
  } else if (status === 409 && body.error === 'no_adjacent_seats') {
    const most = body.largest_block;
    say(holdMessages, 'error', `No ${attempt.best} seats side by side are left${most ? `: at most ${most} together` : ''}. Choose seats on the map, or fewer seats.`);
  } else if (status === 409 && body.error === 'not_enough_seats') {
    say(holdMessages, 'error', body.available ? `Only ${body.available} seat${body.available === 1 ? ' is' : 's are'} left to book online.` : 'No seats are left to book online.');
  } else if (status === 409 && body.error === 'zone_full') {
    say(holdMessages, 'error', body.available ? `Only ${body.available} place${body.available === 1 ? ' is' : 's are'} left in ${attempt.zone}: choose fewer.` : `${attempt.zone} is sold out.`);
    refresh().catch(() => {});
  } else if (status === 409 && body.error === 'showing_cancelled') {
    say(holdMessages, 'error', 'This showing has just been cancelled; nothing can be booked for it.');
    document.getElementById('hold').hidden = true;
  } else if (status === 409 && (body.error === 'sales_closed' || body.error === 'sales_not_open')) {
    const sales = body.error === 'sales_closed' ? { state: 'closed' } : { state: 'not_open', opens_at_ms: body.opens_at_ms };
    say(holdMessages, 'error', `${salesText(sales)}: no seats can be held for this showing now.`);
    document.getElementById('hold').hidden = true;
  } else if (status === 409 && body.error === 'already_holding') {
    say(holdMessages, 'error', `You already hold ${seatsText(body.held_seats)} for this showing in another tab or window: pay there, or choose again when that hold ends in ${clock(body.expires_in_ms)}.`);
  } else {
    say(holdMessages, 'error', body.detail || 'The seats could not be held.');
  }
  render();
}

// Takes a hold as the server describes it; the countdown runs from the
// server's "time left", so a wrong clock on this device does not matter.
function adopt(view) {
  hold = { hold_id: view.hold_id, seats: view.seats, amount: view.amount, prices: view.prices || [], tax: view.tax, deadline: Date.now() + (view.expires_in_ms || 0) };
  chosen.clear();
  for (const seat of view.seats) chosen.add(seat);
}

function clock(ms) {
  const m = Math.floor(ms / 60000), s = Math.floor(ms / 1000) % 60;
  return `${m}:${String(s).padStart(2, '0')}`;
}

async function tick() {
  if (!hold) return;
  const left = Math.max(0, hold.deadline - Date.now());
  document.getElementById('countdown').textContent = clock(left);
  if (left > 0 || paying || checking) return;
  // Time is up here; the server decides (paying may have extended it).
  checking = true;
  try {
    const { status, body } = await api(`/api/showings/${sid}/holds/${hold.hold_id}`);
    if (status === 200 && (body.state === 'held' || body.state === 'paying') && body.expires_in_ms > 0) adopt(body);
    else if (status === 200 && body.order_url) toOrder(body);
    else {
      say(holdMessages, 'error', 'Your hold ran out and the seats went back on sale. Choose again.', { focus: true });
      endHold();
    }
  } catch (_) {
    hold.deadline = Date.now() + 5000;
  } finally {
    checking = false;
  }
}

// The hold is over: the choice is cleared and the map drawn again at once
// (the seats the hold had are no longer "yours"), then read afresh.
function endHold() {
  hold = null;
  forget();
  chosen.clear();
  render();
  renderChoices();
  document.getElementById('pay').hidden = true;
  version = -1;
  refresh();
}

function toOrder(body) {
  forget();
  location.href = '/orders/' + body.order_id + '?key=' + encodeURIComponent(body.access_key);
}

// "Total: $6.00 ($6.00 off with SPRING)", the discount said where a code
// took something off.
function totalLine() {
  const off = hold.discount && hold.discount.amount > 0
    ? ` (${money({ amount: hold.discount.amount, currency: hold.amount.currency })} off with ${hold.discount.code})`
    : '';
  return `Total: ${withTax(hold.amount, hold.tax)}${off}${priceLines(hold.prices)}`;
}

// A discount code, applied to the hold: counted per e-mail address, so the
// address comes first. The hold comes back with the new total, which the
// card, the wallets' sheet and the order then use.
async function applyCode(event) {
  event.preventDefault();
  const message = document.getElementById('code-message');
  const code = document.getElementById('code').value.trim();
  const email = document.getElementById('email').value.trim();
  if (!code) return say(message, 'error', 'Type the code first.');
  if (!email) {
    document.getElementById('email').focus();
    return say(message, 'error', 'Write your e-mail address first: each code is counted per address.');
  }
  const button = document.getElementById('apply-code');
  button.disabled = true;
  try {
    const { status, body } = await api(`/api/showings/${sid}/holds/${hold.hold_id}/code`, { json: { code, email } });
    if (status === 200) {
      Object.assign(hold, { amount: body.amount, prices: body.prices, tax: body.tax, discount: body.discount });
      say(message, 'ok', `${body.discount.code} applied: ${money({ amount: body.discount.amount, currency: body.amount.currency })} off.`);
      return showTotal();
    }
    if (status === 410) {
      say(holdMessages, 'error', 'Your hold expired. Choose your seats again.', { focus: true });
      return endHold();
    }
    say(message, 'error', body.detail || 'That code could not be applied.');
  } catch (_) {
    say(message, 'error', 'The connection dropped; try the code again.');
  } finally {
    button.disabled = false;
  }
}

async function startPayment() {
  document.getElementById('pay').hidden = false;
  document.getElementById('total').textContent = totalLine();
  renderChoices();
  tick();
  if (exchange) return startExchange();
  // Focus moves to the form at once: moving it after the payment SDK has
  // loaded would pull a buyer already typing out of the field they are in.
  document.getElementById('name').focus();
  await showTotal();
}

// The hold's total, and how it is paid: free seats (or a code that took
// everything off) need no card, name and e-mail being enough.
async function showTotal() {
  document.getElementById('total').textContent = totalLine();
  const free = hold.amount.amount === 0;
  document.getElementById('card-container').hidden = free;
  document.getElementById('buy').textContent = free ? 'Get tickets' : 'Pay now';
  document.getElementById('pay-heading').textContent = free ? 'Your details' : 'Pay';
  if (free) {
    document.getElementById('wallets').hidden = true;
    return;
  }
  if (await attachCard()) await offerWallets();
}

// The change, said before anything moves: what the new seats cost, what
// the old tickets were worth, and what is paid or comes back. The tickets
// go to the order's own name and address; a card only for a difference.
async function startExchange() {
  const pay = toPay();
  const back = exchange.worth.amount - Math.min(exchange.worth.amount, hold.amount.amount);
  document.getElementById('buyer-fields').hidden = true;
  document.getElementById('code-form').hidden = true;
  document.getElementById('wallets').hidden = true;
  document.getElementById('pay-heading').textContent = 'Change to these seats';
  document.getElementById('total').textContent = `These seats: ${money(hold.amount)}. Your tickets were worth ${money(exchange.worth)}. `
    + (pay > 0 ? `To pay now: ${money({ amount: pay, currency: hold.amount.currency })}.`
      : back > 0 ? `${money({ amount: back, currency: hold.amount.currency })} comes back to your card.` : 'Nothing to pay.');
  document.getElementById('card-container').hidden = pay === 0;
  const button = document.getElementById('buy');
  button.textContent = pay > 0 ? `Pay ${money({ amount: pay, currency: hold.amount.currency })} and change` : 'Change to these seats';
  button.focus();
  if (pay > 0) await attachCard();
}

// The card form, once: false (and a message by the Pay button) if Square's
// SDK could not be loaded, which "Pay now" then tries again.
async function attachCard() {
  if (card) return true;
  try {
    await loadSquare();
    card = await squarePayments.card();
    await card.attach('#card-container');
    return true;
  } catch (_) {
    squareLoading = null;
    card = null;
    say(payMessages, 'error', 'The card form could not be loaded. Check your connection and press "Pay now" to try again: your seats stay held.', { focus: true });
    return false;
  }
}

// Square's payment SDK, fetched while the buyer is still choosing seats
// so that the card form is there the moment a hold is made.
let squareLoading = null;

function loadSquare() {
  squareLoading = squareLoading || (async () => {
    const config = (await api('/api/config')).body;
    await new Promise((resolve, reject) => {
      const script = el('script', { src: config.square_sdk_url });
      script.onload = resolve;
      script.onerror = () => { script.remove(); reject(new Error('The payment form could not be loaded.')); };
      document.head.append(script);
    });
    squarePayments = window.Square.payments(config.square_application_id, config.square_location_id);
    squareConfig = config;
  })();
  return squareLoading;
}

// Google Pay and Apple Pay, where Square's SDK offers them in this browser
// (Apple Pay also needs the site's domain registered with Square). Their
// sheet shows this hold's total; their token pays through the same
// checkout as a card's.
let squarePayments = null;
let squareConfig = null;
let wallets = {};

async function offerWallets() {
  const box = document.getElementById('wallets');
  const google = document.getElementById('google-pay-button');
  const apple = document.getElementById('apple-pay-button');
  google.replaceChildren();
  apple.hidden = true;
  box.hidden = true;
  wallets = {};
  if (!squareConfig.square_country || !squarePayments.paymentRequest) return;
  const request = squarePayments.paymentRequest({
    countryCode: squareConfig.square_country,
    currencyCode: hold.amount.currency,
    total: { amount: majorText(hold.amount.amount, hold.amount.currency), label: squareConfig.cinema_name || 'Tickets' },
  });
  try {
    wallets.google = await squarePayments.googlePay(request);
    await wallets.google.attach('#google-pay-button');
    box.hidden = false;
  } catch (_) { /* not offered in this browser */ }
  try {
    wallets.apple = await squarePayments.applePay(request);
    apple.hidden = false;
    box.hidden = false;
  } catch (_) { /* not offered in this browser */ }
}

// What Square's buyer verification is told of this payment: the amount,
// the buyer, and the cinema's country as the billing country (the form
// asks for no address; a local cinema's buyers mostly live there).
function verificationDetails(name, email) {
  const [givenName, ...family] = name.split(/\s+/);
  const billingContact = { givenName: givenName || '', familyName: family.join(' '), email };
  if (squareConfig && squareConfig.square_country) billingContact.countryCode = squareConfig.square_country;
  return {
    amount: majorText(toPay(), hold.amount.currency),
    currencyCode: hold.amount.currency,
    intent: 'CHARGE',
    customerInitiated: true,
    sellerKeyedIn: false,
    billingContact,
  };
}

async function walletPay(wallet) {
  if (!wallet || !hold) return;
  const email = document.getElementById('email').value.trim();
  const name = document.getElementById('name').value.trim();
  if (!buyerReady(name, email)) return;
  const result = await wallet.tokenize();
  if (result.status === 'Cancel') return say(payMessages, 'info', 'Payment cancelled: nothing was charged, and your seats are still held.');
  if (result.status !== 'OK') {
    return say(payMessages, 'error', (result.errors || []).map((e) => e.message).join(' ') || 'The wallet could not pay.', { focus: true });
  }
  // Square asks for buyer verification (3-D Secure) on every payment a
  // buyer makes, wallets included: a wallet's token is verified apart,
  // and the verification goes with it.
  let verification;
  try {
    verification = await squarePayments.verifyBuyer(result.token, verificationDetails(name, email));
  } catch (_) {
    return say(payMessages, 'error', 'Your bank could not check this payment, so nothing was charged. Your seats are still held: try again, or pay by card.', { focus: true });
  }
  const payment = { source_id: result.token, email, name };
  if (verification && verification.token) payment.verification_token = verification.token;
  remember(Object.assign(remembered(), { payment }));
  await pay(payment);
}

// "5 minutes", "1 minute", "45 seconds": a hold shorter than a minute (a
// showing set up through the API) is not "0 minutes".
function howLong(ms) {
  if (ms < 60000) {
    const seconds = Math.max(1, Math.round(ms / 1000));
    return `${seconds} second${seconds === 1 ? '' : 's'}`;
  }
  const minutes = Math.round(ms / 60000);
  return `${minutes} minute${minutes === 1 ? '' : 's'}`;
}

// The name and e-mail the tickets go to, checked before any card is
// touched: the first field that needs fixing is marked and focused, and
// the message says why by the Pay button.
function buyerReady(name, email) {
  const nameField = document.getElementById('name');
  const emailField = document.getElementById('email');
  const emailOk = /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email);
  nameField.setAttribute('aria-invalid', name ? 'false' : 'true');
  emailField.setAttribute('aria-invalid', emailOk ? 'false' : 'true');
  if (name && emailOk) return true;
  const problem = !name ? 'Give your name: the tickets are booked under it.'
    : !email ? 'Give your e-mail address: the tickets are sent there.'
    : `"${email}" is not an e-mail address: write it like name@example.com.`;
  say(payMessages, 'error', problem);
  (name ? emailField : nameField).focus();
  return false;
}

async function buy() {
  const button = document.getElementById('buy');
  button.disabled = true;
  try {
    const email = exchange ? '' : document.getElementById('email').value.trim();
    const name = exchange ? '' : document.getElementById('name').value.trim();
    if (!exchange && !buyerReady(name, email)) return;
    if (toPay() === 0) {
      const payment = exchange ? {} : { email, name };
      remember(Object.assign(remembered(), { payment }));
      return await pay(payment);
    }
    if (!(await attachCard())) return;
    // Buyer verification (3-D Secure): Square decides from these whether
    // the card's bank must check the buyer, and shows its check itself.
    const result = await card.tokenize(verificationDetails(name, email));
    if (result.status === 'Cancel') {
      return say(payMessages, 'error', 'The check by your bank was cancelled, so nothing was paid. Your seats are still held: press "Pay now" to try again.', { focus: true });
    }
    if (result.status !== 'OK') {
      const why = (result.errors || []).map((e) => e.message).join(' ');
      return say(payMessages, 'error', `Check the card details: ${why || 'the card form did not accept them'}.`.replace('..', '.'), { focus: true });
    }
    const payment = exchange ? { source_id: result.token } : { source_id: result.token, email, name };
    remember(Object.assign(remembered(), { payment }));
    await pay(payment);
  } finally {
    button.disabled = false;
  }
}

// Sends the checkout. The same hold and card token always find the same
// order on the server, so sending it again after a lost answer can neither
// charge twice nor make a second order.
async function pay(payment) {
  say(payMessages, 'info', exchange ? 'Changing your tickets…' : hold.amount.amount === 0 ? 'Issuing your tickets…' : 'Paying…');
  paying = true;
  let answer;
  try {
    if (exchange) {
      // The order's own key stands for the buyer: no Turnstile check.
      const change = { tickets: exchange.tickets, showing_id: sid, hold: hold.hold_id, source_id: payment.source_id || '' };
      answer = await api(`/api/orders/${exchange.order}/exchange?key=${encodeURIComponent(exchange.key)}`, { json: change });
    } else {
      // Free seats have no card to pay with: the Turnstile check guards them.
      const headers = payment.source_id ? {} : await Turnstile.headers();
      try {
        answer = await api(`/api/showings/${sid}/holds/${hold.hold_id}/checkout`, { json: payment, headers });
      } finally {
        // A token is spent once sent, answered or not: a retry gets a new one.
        if (!payment.source_id) Turnstile.reset();
      }
    }
  } catch (_) {
    say(payMessages, 'error', 'The connection dropped while paying. Checking again in a moment; you will not be charged twice.', { focus: true });
    setTimeout(recover, 3000);
    return;
  } finally {
    paying = false;
  }
  const { status, body } = answer;
  if (body.order_url && (status === 201 || status === 202)) return toOrder(body);
  // The token was used: another try needs the card form again.
  const pending = remembered();
  delete pending.payment;
  remember(pending);
  if (status === 402 && body.code === 'CARD_DECLINED_VERIFICATION_REQUIRED') {
    say(payMessages, 'error', 'Your bank needs to check this payment and the check did not happen. Nothing was charged; your seats are still held, so you can try again.', { focus: true, detail: `Code from the card processor: ${body.code}` });
    await followHold();
  } else if (status === 402 && body.error === 'payment_failed') {
    say(payMessages, 'error', 'The payment could not be made. Nothing was charged; your seats are still held while their time lasts, so you can try again.', { focus: true, detail: `Code: ${body.code}` });
    await followHold();
  } else if (status === 402) {
    say(payMessages, 'error', 'Your card was declined. Nothing was charged; your seats are still held, so you can try again or use another card.', { focus: true, detail: `Code from the card processor: ${body.code}` });
    await followHold();
  } else if (status === 409 && body.error === 'seat_lost') {
    say(holdMessages, 'error', `Your hold ran out during payment and ${body.seats_lost.join(', ')} went to another buyer. Your payment was cancelled: nothing was charged.`, { focus: true });
    endHold();
  } else if (status === 410) {
    say(holdMessages, 'error', 'Your hold expired. Choose your seats again.', { focus: true });
    endHold();
  } else {
    say(payMessages, 'error', body.detail || 'The payment could not be completed.', { focus: true });
    await followHold();
  }
}

// Reads the hold again: paying extends it once, and the countdown follows.
async function followHold() {
  if (!hold) return;
  try {
    const { status, body } = await api(`/api/showings/${sid}/holds/${hold.hold_id}`);
    if (status === 200 && body.expires_in_ms > 0) adopt(body);
  } catch (_) { /* the countdown keeps its last value */ }
}

// Picks up where this page (or the one before a reload) left off.
async function recover() {
  const pending = remembered();
  if (pending.attempt) {
    // A replayed answer may be old: the hold's time left is read afresh.
    await requestHold(pending.attempt);
    return followHold();
  }
  if (!pending.hold) return;
  let answer;
  try {
    answer = await api(`/api/showings/${sid}/holds/${pending.hold.hold_id}`);
  } catch (_) {
    say(holdMessages, 'error', 'No connection. Trying again…');
    setTimeout(recover, 3000);
    return;
  }
  const { status, body } = answer;
  if (status === 200 && body.order_url) return toOrder(body);
  if (status === 200 && (body.state === 'held' || body.state === 'paying') && body.expires_in_ms > 0) {
    adopt(body);
    render();
    if (pending.payment) return pay(pending.payment);
    say(holdMessages, 'ok', `Your seats are still held: ${seatsText(body.seats)}.`);
    return startPayment();
  }
  forget();
  if (status === 200) say(holdMessages, 'info', `Your earlier hold of ${seatsText(body.seats)} has ended. Choose again.`);
}

async function release() {
  if (!hold) return;
  await api(`/api/showings/${sid}/holds/${hold.hold_id}`, { method: 'DELETE' });
  say(holdMessages, 'info', 'Seats released.');
  endHold();
}

(async () => {
  const { status, body } = await api(`/api/showings/${sid}`);
  if (status !== 200) return say(messages, 'error', 'This showing does not exist.');
  showing = body.showing;
  tax = body.tax;
  // The layout by its version: it never changes, so the browser keeps it;
  // who holds what came with the showing, and comes again on its own.
  const layout = await api(`/api/layouts/${encodeURIComponent(showing.layout_version)}`);
  if (layout.status !== 200) return say(messages, 'error', 'The seat map could not be loaded; reload the page.');
  showing.layout = layout.body;
  document.title = `Seats for ${showing.title}`;
  document.getElementById('title').textContent = showing.title;
  const priceWords = categories().length > 1
    ? categories().map((c) => `${c.name} ${priceText(c.amount)}`).join(', ')
    : showing.price.amount === 0 ? 'Free' : `${money(showing.price)} a seat`;
  const taxNote = taxWords(tax);
  document.getElementById('when').textContent = `${when(showing.starts_at_ms)} · ${priceWords}${taxNote ? ` (${taxNote})` : ''}`;
  document.getElementById('limit').textContent = `Choose up to ${showing.max_seats_per_hold} seats; they are held for you for ${howLong(showing.hold_ttl_ms)} while you pay.`;
  states = body.availability.seats;
  version = body.availability.version;
  salesOpen = body.sales.state === 'open' && !showing.cancelled_at_ms;
  if (!rows().length) {
    // General admission only: no map, no seats to choose.
    for (const id of ['map-section', 'hold', 'chosen-line']) document.getElementById(id).hidden = true;
  }
  render();
  if (showing.cancelled_at_ms) {
    document.getElementById('hold').hidden = true;
    document.getElementById('limit').textContent = '';
    const why = showing.cancel_reason ? ` ${showing.cancel_reason}` : '';
    forget();
    return say(messages, 'error', `This showing is cancelled; nothing can be booked for it.${why} Anyone who paid is refunded in full and has been e-mailed.`);
  }
  if (exchange) {
    exchange.worth = await exchangeWorth();
    if (!exchange.worth) {
      document.getElementById('hold').hidden = true;
      return;
    }
    const n = exchange.tickets.length;
    document.getElementById('limit').textContent = `Choose ${n} seat${n === 1 ? '' : 's'}; they are held for you for ${howLong(showing.hold_ttl_ms)} while you confirm.`;
    say(messages, 'info', `Changing ${n} ticket${n === 1 ? '' : 's'} worth ${money(exchange.worth)}: choose ${n} seat${n === 1 ? '' : 's'} for this showing. Until you confirm, your tickets stay as they are.`);
  }
  if (body.sales.state !== 'open') {
    // A hold made before sales closed can still be paid for: recovery
    // below brings it back.
    document.getElementById('hold').hidden = true;
    document.getElementById('limit').textContent = '';
    say(messages, 'info', `${salesText(body.sales)}: no seats can be held for this showing now.`);
  }
  if (!exchange) Turnstile.mount(document.getElementById('turnstile'), 'buy');
  if (showing.admit_per_minute && !exchange && !offer && body.sales.state !== 'closed') {
    document.getElementById('waiting').hidden = false;
    waitInLine();
  }
  const counts = document.getElementById('waitlist-seats');
  counts.replaceChildren(...Array.from({ length: showing.max_seats_per_hold }, (_, n) => el('option', { value: String(n + 1), text: String(n + 1) })));
  document.getElementById('waitlist-form').addEventListener('submit', joinWaitlist);
  if (offer) {
    document.getElementById('offer').hidden = false;
    document.getElementById('offer-claim').addEventListener('click', claimOffer);
  }
  document.getElementById('hold').addEventListener('click', holdSeats);
  if (showing.layout.rows && !exchange && body.sales.state === 'open') {
    renderBest();
    document.getElementById('best').addEventListener('submit', holdBest);
  } else {
    document.getElementById('best').remove();
  }
  document.getElementById('map').addEventListener('keydown', moveCursor);
  window.addEventListener('resize', showScrollCue);
  if (categories().some((c) => c.amount > 0)) loadSquare().catch(() => { squareLoading = null; });
  document.getElementById('buy').addEventListener('click', buy);
  document.getElementById('code-form').addEventListener('submit', applyCode);
  document.getElementById('release').addEventListener('click', release);
  document.getElementById('google-pay-button').addEventListener('click', () => walletPay(wallets.google));
  document.getElementById('apple-pay-button').addEventListener('click', () => walletPay(wallets.apple));
  if (!waiting()) follow();
  setInterval(tick, 1000);
  await recover();
})();
