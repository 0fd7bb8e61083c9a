// One showing for staff: sales, the seat map with the order behind each
// sold seat, orders by e-mail, refunds, the door PIN. The map follows the
// showing live (pushed changes, and a poll as the fallback).
'use strict';

const sid = location.pathname.split('/')[3];
const messages = document.getElementById('messages');
const REFRESH_MS = 10000;
let data = null;
let openOrder = new URLSearchParams(location.search).get('order');
// Seats chosen for a box-office sale, and the price chosen for each.
const deskSeats = new Set();
const deskPrices = new Map();
// A ticket being moved to another seat: its id, order and seat, and the
// free seat chosen for it on the map (null until one is).
let moving = null;

function seatNames(layout) {
  if (layout.slots) return [{ name: '', seats: layout.slots.map((s) => ({ name: s })) }];
  return (layout.rows || []).map((row) => ({
    name: row.name,
    seats: Array.from({ length: row.seats }, (_, i) => ({
      name: row.name + (i + 1),
      blocked: (row.blocked || []).includes(i + 1),
      aisle: (row.gaps_after || []).includes(i + 1),
      kind: (row.wheelchair || []).includes(i + 1) ? 'wheelchair space' : (row.companion || []).includes(i + 1) ? 'companion seat' : null,
    })),
  }));
}

// The seat the map's one tab stop is on (see `moveSeatCursor`).
let cursor = null;

function seatButton(seat) {
  const owner = data.owners[seat.name];
  const state = seat.blocked ? 'blocked' : data.availability.seats[seat.name] || 'sold';
  const sellable = state === 'available' && !seat.blocked;
  // While a ticket is being moved, a free seat is where it may go.
  const target = Boolean(moving) && moving.to === seat.name;
  const chosen = deskSeats.has(seat.name) || target;
  const kind = seat.kind ? `${seat.kind}, ` : '';
  const keptFor = allocatedTo.get(seat.name);
  const label = keptFor && !owner
    ? `Seat ${seat.name}, ${kind}kept for ${keptFor}`
    : owner
    ? `Seat ${seat.name}, ${kind}sold to ${owner.email || owner.name || 'the box office'}${owner.checked_in_at_ms ? ', admitted' : ''}`
    : moving && sellable
      ? `Seat ${seat.name}, ${kind}available: move seat ${moving.from} here`
      : `Seat ${seat.name}, ${kind}${seat.blocked ? 'house seat' : chosen ? 'chosen for the box office' : state}`;
  return el('button', {
    type: 'button',
    class: `seat ${chosen ? 'selected' : state}${owner ? ' owned' : ''}${seat.kind ? ' accessible' : ''}`,
    'data-seat': seat.name,
    'aria-label': label,
    'aria-pressed': sellable ? String(chosen) : null,
    'aria-disabled': owner || sellable ? null : 'true',
    tabindex: seat.name === cursor ? '0' : '-1',
    text: seat.blocked ? 'X' : state === 'held' ? 'H' : state === 'sold' ? 'S' : seat.name,
    onclick: () => {
      if (owner) return showOrder(owner.order_id);
      if (moving) return sellable ? chooseMoveTarget(seat.name) : undefined;
      if (sellable || chosen) toggleDeskSeat(seat.name);
    },
    onfocus: () => { cursor = seat.name; },
  });
}

function renderMap() {
  renderDeskZones();
  const map = document.getElementById('map');
  const rows = seatNames(data.showing.layout);
  const names = rows.flatMap((row) => row.seats.map((seat) => seat.name));
  if (!names.includes(cursor)) cursor = names[0];
  const hadFocus = map.contains(document.activeElement);
  map.replaceChildren(...rows.map((row) => {
    const cells = [el('span', { class: 'row-name', 'aria-hidden': 'true', text: row.name })];
    for (const seat of row.seats) {
      cells.push(el('span', { role: 'gridcell' }, [seatButton(seat)]));
      if (seat.aisle) cells.push(el('span', { class: 'aisle', 'aria-hidden': 'true' }));
    }
    return el('div', { class: 'row', role: 'row', 'aria-label': row.name ? `Row ${row.name}` : 'Seats' }, cells);
  }));
  // A redraw (the map follows every change) keeps the keyboard where it was.
  if (hadFocus) {
    const again = map.querySelector(`[data-seat="${CSS.escape(cursor)}"]`);
    if (again) again.focus();
  }
}

function moveCursor(event) {
  if (!data) return;
  const grid = seatNames(data.showing.layout).map((row) => row.seats.map((seat) => seat.name));
  const moved = moveSeatCursor(event, document.getElementById('map'), grid, cursor);
  if (moved) cursor = moved;
}

// The box office: seats chosen on the map are sold (cash, the cinema's own
// card terminal) or given (a comp, with its reason) at once.
function toggleDeskSeat(name) {
  if (deskSeats.has(name)) deskSeats.delete(name);
  else deskSeats.add(name);
  renderMap();
  renderDesk();
  const again = document.querySelector(`#map [data-seat="${CSS.escape(name)}"]`);
  if (again) again.focus();
}

// Best available at the counter: the showing's choice is put on the map
// as the box office's seats, for staff to adjust before they sell.
async function chooseBestAtDesk(event) {
  event.preventDefault();
  const count = Number(document.getElementById('desk-best-count').value);
  const accessible = document.getElementById('desk-best-accessible').checked;
  const out = document.getElementById('desk-best-messages');
  const { status, body } = await adminApi(`/api/admin/showings/${sid}/best?count=${count}&accessible=${accessible}`);
  if (status !== 200) {
    const why = body.error === 'no_adjacent_seats' ? `No ${count} seats side by side are left (at most ${body.largest_block} together).`
      : body.error === 'not_enough_seats' ? `Only ${body.available} seats are left.` : body.detail || 'No seats could be chosen.';
    return say(out, 'error', why);
  }
  deskSeats.clear();
  for (const seat of body.seats) deskSeats.add(seat);
  say(out, 'ok', `Chosen: ${seatsText(body.seats)}. Change them on the map, or sell.`);
  renderMap();
  renderDesk();
}

// General admission at the counter: each zone's places left, and a count
// of them added to the box office's sale (the showing picks which places,
// none of which has a seat).
function renderDeskZones() {
  const zones = data.showing.layout.zones || [];
  const form = document.getElementById('desk-zones');
  form.hidden = !zones.length;
  if (!zones.length) return;
  const select = document.getElementById('desk-zone');
  if (select.options.length !== zones.length) {
    select.replaceChildren(...zones.map((z) => el('option', { value: z.name, text: z.name })));
  }
  document.getElementById('desk-zones-left').textContent = zones.map((z) => {
    const free = Array.from({ length: z.capacity }, (_, i) => placeName(z.name, i + 1))
      .filter((name) => data.availability.seats[name] === 'available' && !deskSeats.has(name)).length;
    return `${z.name}: ${free} of ${z.capacity} places left`;
  }).join(' · ');
}

async function addZonePlaces(event) {
  event.preventDefault();
  const zone = document.getElementById('desk-zone').value;
  const count = Number(document.getElementById('desk-zone-count').value);
  const out = document.getElementById('desk-zones-messages');
  const { status, body } = await adminApi(`/api/admin/showings/${sid}/best?zone=${encodeURIComponent(zone)}&count=${count + [...deskSeats].filter((s) => zoneOf(s) === zone).length}`);
  if (status !== 200) {
    return say(out, 'error', body.error === 'zone_full' ? `Only ${body.available} places are left in ${zone}.` : body.detail || 'No places could be added.');
  }
  // The zone's first free places, those already in the sale among them.
  for (const place of body.seats) deskSeats.add(place);
  say(out, 'ok', `In the sale: ${seatsText([...deskSeats])}.`);
  renderMap();
  renderDesk();
}

function deskCategories() {
  const s = data.showing;
  return s.prices && s.prices.length ? s.prices : [{ id: 'standard', name: 'Standard', amount: s.price.amount }];
}

function deskPaid() {
  return document.querySelector('input[name=desk-paid]:checked').value;
}

function renderDesk() {
  const section = document.getElementById('desk');
  section.hidden = deskSeats.size === 0 && !document.getElementById('desk-tickets').childElementCount;
  const cur = data.showing.price.currency;
  const all = deskCategories();
  for (const seat of [...deskPrices.keys()]) if (!deskSeats.has(seat)) deskPrices.delete(seat);
  const comp = deskPaid() === 'comp';
  document.getElementById('desk-reason-box').hidden = !comp;
  document.getElementById('desk-seats').textContent = deskSeats.size ? `Seats: ${[...deskSeats].join(', ')}` : 'Choose available seats on the map.';
  document.getElementById('desk-prices').replaceChildren(...(all.length < 2 || comp ? [] : [...deskSeats].map((seat) => {
    const id = `desk-price-${seat}`;
    const select = el('select', { id, onchange: (event) => { deskPrices.set(seat, event.target.value); renderDesk(); } },
      all.map((c) => el('option', { value: c.id, text: `${c.name}, ${minor(c.amount, cur)}` })));
    select.value = deskPrices.get(seat) || all[0].id;
    return el('p', {}, [el('label', { for: id, text: zoneOf(seat) === null ? `Price for seat ${seat}` : `Price for a place in ${zoneOf(seat)} (${seat.slice(seat.indexOf(PLACE_MARK) + 1)})` }), select]);
  })));
  const total = comp ? 0 : [...deskSeats].reduce((sum, seat) => sum + (all.find((c) => c.id === deskPrices.get(seat)) || all[0]).amount, 0);
  // Added tax is worked out for the seats together when they are sold; the
  // sale's answer says what to take.
  const tax = data.tax;
  const plus = taxed(tax) && total > 0 ? (tax.inclusive ? ` including ${tax.name}` : ` plus ${tax.name}, worked out on selling`) : '';
  document.getElementById('desk-total').textContent = deskSeats.size ? `To take: ${minor(total, cur)}${plus}` : '';
  document.getElementById('desk-sell').disabled = deskSeats.size === 0;
  document.getElementById('desk-sell').textContent = comp ? 'Give these seats' : 'Sell';
}

async function sellAtDesk() {
  const out = document.getElementById('desk-messages');
  const paid = deskPaid();
  const seats = [...deskSeats];
  const prices = {};
  for (const seat of seats) if (deskPrices.get(seat) && deskPrices.get(seat) !== deskCategories()[0].id) prices[seat] = deskPrices.get(seat);
  const body = { seats, prices, paid, name: document.getElementById('desk-name').value, email: document.getElementById('desk-email').value };
  if (paid === 'comp') body.reason = document.getElementById('desk-reason').value;
  const code = document.getElementById('desk-code').value.trim();
  if (code) body.code = code;
  document.getElementById('desk-sell').disabled = true;
  const answer = await adminApi(`/api/admin/showings/${sid}/box-office`, { json: body });
  if (answer.status !== 201) {
    document.getElementById('desk-sell').disabled = false;
    return say(out, 'error', answer.body.detail || 'The seats could not be sold.');
  }
  deskSeats.clear();
  deskPrices.clear();
  for (const id of ['desk-name', 'desk-email', 'desk-reason', 'desk-code']) document.getElementById(id).value = '';
  const key = new URL(answer.body.order_page, location.href).searchParams.get('key');
  document.getElementById('desk-tickets').replaceChildren(
    el('p', {}, [el('a', { href: answer.body.order_page, target: '_blank', text: 'Open the order to print its tickets' })]),
    ...answer.body.tickets.map((t) => el('figure', { class: 'desk-ticket' }, [
      el('img', { src: `/tickets/${t.id}/qr.svg?key=${encodeURIComponent(key)}`, alt: `QR code of the ticket for ${ticketFor(t.seat)}`, width: '120', height: '120' }),
      el('figcaption', {}, [el('a', { href: t.page_url, target: '_blank', text: `${placeText(t.seat)}${t.price_name ? ` · ${t.price_name}` : ''}` })]),
    ])));
  const take = answer.body.amount.amount ? ` Take ${withTax(answer.body.amount, answer.body.tax)}.` : '';
  say(out, 'ok', `${paid === 'comp' ? 'Given' : 'Sold'}: ${seatsText(answer.body.tickets.map((t) => t.seat))}.${take}`);
  await Promise.all([load(), loadOrders(document.getElementById('search-email').value)]);
}

// Moving a sold ticket to a free seat: staff choose Move on the ticket in
// its order, then a free seat on the map, then confirm. The showing's
// object moves it in one decision; the buyer is mailed the new ticket.
function startMove(order, ticket) {
  moving = { ticket: ticket.id, from: ticket.seat, orderId: order.id, to: null };
  deskSeats.clear();
  renderDesk();
  document.getElementById('move-messages').replaceChildren();
  renderMove();
  renderMap();
  document.getElementById('move-heading').focus();
}

function renderMove() {
  document.getElementById('move').hidden = !moving;
  if (!moving) return;
  document.getElementById('move-state').textContent = moving.to
    ? `Move the ticket for seat ${moving.from} to seat ${moving.to}? A new ticket is issued and e-mailed to the buyer; the old one stops admitting.`
    : `Choose a free seat on the map for the ticket in seat ${moving.from}.`;
  const confirm = document.getElementById('move-confirm');
  confirm.hidden = !moving.to;
  confirm.textContent = moving.to ? `Move to ${moving.to}` : 'Move';
}

function chooseMoveTarget(name) {
  moving.to = moving.to === name ? null : name;
  renderMap();
  renderMove();
  const again = document.querySelector(`#map [data-seat="${CSS.escape(name)}"]`);
  if (again) again.focus();
}

function endMove() {
  moving = null;
  renderMove();
  renderMap();
}

async function moveTicket() {
  const out = document.getElementById('move-messages');
  const { ticket, from, to, orderId } = moving;
  const confirm = document.getElementById('move-confirm');
  confirm.disabled = true;
  const answer = await adminApi(`/api/admin/tickets/${encodeURIComponent(ticket)}/move`, { json: { seat: to } });
  confirm.disabled = false;
  if (answer.status === 409 && answer.body.error === 'seat_unavailable') {
    moving.to = null;
    renderMove();
    await load();
    return say(out, 'error', `Seat ${to} was taken meanwhile: choose another free seat.`);
  }
  if (answer.status !== 200) return say(out, 'error', answer.body.detail || 'The ticket could not be moved.');
  endMove();
  await Promise.all([load(), loadOrders(document.getElementById('search-email').value)]);
  await showOrder(orderId);
  say(document.getElementById('order-messages'), 'ok', `Moved: the ticket for seat ${from} is now for seat ${answer.body.seat} (ticket number ${answer.body.short_code}). The buyer is e-mailed the new ticket.`);
}

function renderTotals() {
  const t = data.totals, s = data.showing;
  const cur = s.price.currency;
  const box = (label, value) => el('div', {}, [el('strong', { text: value }), label]);
  document.getElementById('totals').replaceChildren(
    box('tickets sold', `${t.sold} of ${data.showing.seat_count}`),
    box('online: tickets', String(t.sold_online)),
    box('online: taken through Square', minor(t.taken, cur)),
    box('online: refunded', minor(t.refunded, cur)),
    ...(t.exchanged_in || t.exchanged_out ? [
      box('exchanged in from other showings', minor(t.exchanged_in, cur)),
      box('exchanged out to other showings', minor(t.exchanged_out, cur)),
    ] : []),
    box('box office: tickets', String(t.sold_at_desk)),
    box('box office: cash', minor(t.desk_cash, cur)),
    box('box office: card at the desk', minor(t.desk_card, cur)),
    box('box office: refunded', minor(t.desk_refunded, cur)),
    box('comps given', String(t.comps)),
    ...(t.sold_by_channels ? [
      box('other channels: tickets', String(t.sold_by_channels)),
      box('other channels: worth (taken by them)', minor(t.channel_value, cur)),
    ] : []),
    box('net', minor(t.taken - t.refunded + t.exchanged_in - t.exchanged_out + t.desk_cash + t.desk_card - t.desk_refunded, cur)),
    box('admitted at the door', String(t.admitted)),
    box('seats held right now', String(data.live_holds ?? 0)),
  );
}

async function load() {
  const { status, body } = await adminApi(`/api/admin/showings/${sid}`);
  if (status !== 200) return say(messages, 'error', body.detail || 'The showing could not be loaded.');
  data = body;
  const s = body.showing;
  document.title = `${s.title} · Admin`;
  document.getElementById('title').textContent = s.title;
  document.getElementById('subtitle').textContent = `${s.cancelled_at_ms ? 'CANCELLED · ' : ''}${when(s.starts_at_ms)} · ${money(s.price)} · up to ${s.max_seats_per_hold} seats a hold${s.admit_per_minute ? ` · waiting room admitting ${s.admit_per_minute.toLocaleString('en-US')} a minute` : ''}`;
  renderCancel(s);
  document.getElementById('pin-state').textContent = body.has_door_pin ? 'A door PIN is set.' : 'No door PIN is set yet: door staff cannot sign in to this showing with a PIN.';
  hasDoorPin = Boolean(body.has_door_pin);
  renderTotals();
  loadConflicts();
  // A seat chosen for the box office that someone else took is let go.
  const before = deskSeats.size;
  for (const seat of [...deskSeats]) if (body.availability.seats[seat] !== 'available') deskSeats.delete(seat);
  if (moving && moving.to && body.availability.seats[moving.to] !== 'available') {
    moving.to = null;
    renderMove();
  }
  await loadAllocations();
  await loadWaitlist();
  renderMap();
  if (before !== deskSeats.size) renderDesk();
}

// Seat → the channel an allocation keeps it for.
const allocatedTo = new Map();

async function loadAllocations() {
  const { status, body } = await adminApi(`/api/admin/showings/${sid}/allocations`);
  if (status !== 200) return;
  allocatedTo.clear();
  for (const a of body.allocations) for (const seat of a.seats) allocatedTo.set(seat, a.name);
  const list = document.getElementById('allocation-list');
  list.replaceChildren(...body.allocations.map((a) => {
    const countId = `issue-${a.id}`;
    return el('li', { class: 'allocation' }, [
      el('p', { text: `${a.name}: ${seatsText(a.seats)} · back on sale at ${when(a.release_at_ms)}` }),
      el('div', { class: 'best' }, [
        el('span', { class: 'best-count' }, [
          el('label', { for: countId, text: `Tickets to issue for ${a.name}` }),
          el('input', { id: countId, type: 'number', min: '1', max: String(Math.min(a.seats.length, data.showing.max_seats_per_hold)), value: '1', inputmode: 'numeric' }),
        ]),
        el('button', { type: 'button', class: 'secondary', text: 'Issue tickets', onclick: () => issueFrom(a, Number(document.getElementById(countId).value)) }),
        el('button', { type: 'button', class: 'secondary', text: `Release ${a.name}'s seats now`, onclick: () => releaseAllocation(a) }),
      ]),
    ]);
  }));
}

// The waiting list and how each offer stands.
async function loadWaitlist() {
  const { status, body } = await adminApi(`/api/admin/showings/${sid}/waitlist`);
  if (status !== 200) return;
  const seatWord = (n) => `${n} seat${n === 1 ? '' : 's'}`;
  const line = (e) => {
    const asked = `${e.email}, ${seatWord(e.seats)}, joined ${clockTime(e.joined_at_ms)}`;
    if (e.state === 'offered') return `${asked}: offered ${seatsText(e.offered_seats)} until ${clockTime(e.until_ms)}${e.claimed ? ', paying now' : ''}`;
    if (e.state === 'bought') return `${asked}: bought ${seatsText(e.offered_seats)}`;
    if (e.state === 'lapsed') return `${asked}: offered ${seatsText(e.offered_seats)}, not bought in time`;
    return `${asked}: waiting`;
  };
  document.getElementById('waitlist-empty').hidden = body.entries.length > 0;
  document.getElementById('waitlist-list').replaceChildren(...body.entries.map((e) => el('li', { text: line(e) })));
}

async function allocate(event) {
  event.preventDefault();
  const out = document.getElementById('allocate-messages');
  const seats = [...deskSeats];
  if (!seats.length) return say(out, 'error', 'Choose the seats on the map first.');
  const name = document.getElementById('allocate-name').value;
  const until = document.getElementById('allocate-until').value;
  const { status, body } = await adminApi(`/api/admin/showings/${sid}/allocations`, { json: { name, seats, release_at: until } });
  if (status !== 201) return say(out, 'error', body.error === 'seats_unavailable' ? `Taken already: ${seatsText(body.seats)}.` : body.detail || 'The seats could not be kept.');
  deskSeats.clear();
  say(out, 'ok', `Kept for ${body.name}: ${seatsText(body.seats)}, until ${when(body.release_at_ms)}.`);
  renderDesk();
  await load();
}

// A channel's tickets: the allocation's first seats, issued at once.
async function issueFrom(allocation, count) {
  const out = document.getElementById('allocate-messages');
  const seats = allocation.seats.slice(0, count);
  const answer = await adminApi(`/api/admin/showings/${sid}/box-office`, { json: { seats, paid: 'channel', allocation: allocation.id, name: allocation.name } });
  if (answer.status !== 201) return say(out, 'error', answer.body.detail || 'The tickets could not be issued.');
  say(out, 'ok', `Issued for ${allocation.name}: ${seatsText(answer.body.tickets.map((t) => t.seat))}.`);
  await load();
}

async function releaseAllocation(allocation) {
  const out = document.getElementById('allocate-messages');
  const { status, body } = await adminApi(`/api/admin/showings/${sid}/allocations/${allocation.id}/release`, { method: 'POST' });
  if (status !== 204) return say(out, 'error', body.detail || 'The allocation could not be released.');
  say(out, 'ok', `${allocation.name}'s seats are back on sale.`);
  await load();
}

// Door admissions that do not stand (door devices that were offline).
async function loadConflicts() {
  const { status, body } = await adminApi(`/api/admin/showings/${sid}/door-conflicts`);
  if (status !== 200) return;
  const list = body.conflicts || [];
  document.getElementById('conflicts').hidden = list.length === 0;
  document.getElementById('conflict-list').replaceChildren(...list.map((c) => {
    const how = c.offline ? 'offline' : 'online';
    const after = c.moved_to_seat ? `moved to seat ${c.moved_to_seat}` : 'refunded';
    const text = c.status === 'void'
      ? `${placeText(c.seat)}: admitted by ${c.device} at ${clockTime(c.scanned_at_ms, true)} (${how}) after the ticket was ${after}`
      : `${placeText(c.seat)}: admitted again by ${c.device} at ${clockTime(c.scanned_at_ms, true)} (${how}); ${c.admitted_by} admitted it first, at ${clockTime(c.admitted_at_ms, true)}`;
    return el('li', { text });
  }));
}

async function loadOrders(text) {
  const q = new URLSearchParams({ showing: sid });
  if (text) q.set('q', text);
  const { status, body } = await adminApi('/api/admin/orders?' + q);
  const out = document.getElementById('orders');
  if (status !== 200) return say(out, 'error', body.detail || 'Orders could not be loaded.');
  if (!body.orders.length) return out.replaceChildren(el('p', { class: 'muted', text: text ? `No order has an e-mail, name or order number containing “${text}”.` : 'No orders yet.' }));
  out.replaceChildren(table(['Order', 'E-mail', 'Name', 'Seats', 'Amount', 'Status', 'Ordered'], body.orders.map((o) => [
    el('button', { type: 'button', class: 'link', text: orderNumber(o.id), 'aria-label': `${orderNumber(o.id)}: open the order of ${o.email}, seats ${o.seats ? seatsText(o.seats.split(' ')) : 'none'}`, onclick: () => showOrder(o.id) }),
    o.email, o.name, o.seats ? seatsText(o.seats.split(' ')) : '', minor(o.amount, o.currency), ORDER_STATES[o.status] || o.status, when(o.created_at_ms)])));
}

function ticketChecks(tickets, idPrefix) {
  return el('div', { class: 'checks' }, tickets.map((t) => el('label', {}, [
    el('input', { type: 'checkbox', value: t.id, id: `${idPrefix}-${t.id}` }),
    `${placeText(t.seat)}${t.checked_in_at_ms ? ` (admitted ${clockTime(t.checked_in_at_ms)})` : ''}`,
  ])));
}

function checked(container) {
  return [...container.querySelectorAll('input[type=checkbox]:checked')].map((i) => i.value);
}

// A refund needs a second, explicit click that says what it will do.
function confirmButton(label, confirmLabel, action) {
  const button = el('button', { type: 'button', class: 'secondary', text: label });
  let armed = false;
  button.addEventListener('click', async () => {
    const text = typeof confirmLabel === 'function' ? confirmLabel() : confirmLabel;
    if (!text) return;
    if (!armed) { armed = true; button.className = 'danger'; button.textContent = text; return; }
    button.disabled = true;
    await action();
  });
  return button;
}

function renderCancel(s) {
  const form = document.getElementById('cancel-form');
  if (s.cancelled_at_ms) {
    form.hidden = true;
    document.getElementById('cancel-state').textContent = `Cancelled ${when(s.cancelled_at_ms)}${s.cancel_reason ? `: “${s.cancel_reason}”` : ''}. Paid orders are refunded and their buyers e-mailed; any left are refunded by the next sweep, within minutes.`;
    return;
  }
  document.getElementById('cancel-action').replaceChildren(confirmButton('Cancel showing', 'Confirm: cancel it and refund every order', cancelShowing));
}

async function cancelShowing() {
  const out = document.getElementById('cancel-messages');
  const reason = document.getElementById('cancel-reason').value;
  const { status, body } = await adminApi(`/api/admin/showings/${sid}/cancel`, { json: { reason } });
  if (status !== 200) {
    say(out, 'error', body.detail || 'The showing could not be cancelled.');
    return renderCancel(data.showing);
  }
  await Promise.all([load(), loadOrders(document.getElementById('search-email').value)]);
  const refused = body.refused.length ? ` Square refused ${body.refused.length} refund(s): open those orders to see why.` : '';
  const more = body.more ? ' More orders are refunded by the sweep within minutes.' : '';
  const desk = body.box_office.length
    ? ` ${body.box_office.length} box-office order(s) to settle at the desk: ${body.box_office.map((o) => `${o.name || 'a guest'} (${o.channel === 'comp' ? 'comp' : minor(o.amount, o.currency)})`).join(', ')}.`
    : '';
  say(out, body.refused.length ? 'error' : 'ok', `Cancelled. ${body.refunds.length} order(s) refunded and their buyers e-mailed.${more}${refused}${desk}`);
}

async function showOrder(orderId, keepFocus) {
  openOrder = orderId;
  const section = document.getElementById('order');
  const out = document.getElementById('order-messages');
  out.replaceChildren();
  const { status, body } = await adminApi(`/api/admin/orders/${encodeURIComponent(orderId)}`);
  if (status !== 200) { section.hidden = false; return say(out, 'error', body.detail || 'The order could not be loaded.'); }
  const o = body.order;
  // Tickets a refund already asked of Square covers are not offered again.
  const unsettled = body.refunds.filter((r) => r.status === 'requested' || r.status === 'PENDING');
  const covered = new Set(unsettled.flatMap((r) => (r.ticket_ids ? JSON.parse(r.ticket_ids) : [])));
  const live = body.tickets.filter((t) => t.status !== 'void' && !covered.has(t.id));
  // A moved ticket's replacement cost what it did: the order's tickets are those not moved.
  const sold = body.tickets.filter((t) => !t.moved_to_seat);
  const unit = sold.length ? o.amount / sold.length : 0;
  const movable = (t) => t.status === 'valid' && zoneOf(t.seat) === null && !t.checked_in_at_ms && !covered.has(t.id) && !(data && data.showing.cancelled_at_ms);
  const ticketStatus = (t) => t.moved_to_seat ? `moved to ${t.moved_to_seat}`
    : t.status === 'void' ? 'void (refunded)'
      : t.moved_from_seat ? `${t.status} (moved from ${t.moved_from_seat})` : t.status;
  const parts = [
    el('p', { text: `${o.name} · ${o.email}` }),
    el('p', { text: `${ORDER_STATES[o.status] || o.status} · ${minor(o.amount, o.currency)} · ordered ${when(o.created_at_ms)}${o.status_detail ? ' · ' + o.status_detail : ''}` }),
    table(['Seat', 'Ticket', 'Status', 'Admitted', 'Move'], body.tickets.map((t) => [unitText(t.seat), t.id, ticketStatus(t), t.checked_in_at_ms ? when(t.checked_in_at_ms) : '',
      movable(t) ? el('button', { type: 'button', class: 'secondary', text: `Move seat ${t.seat}`, 'aria-label': `Move seat ${t.seat} to another seat`, onclick: () => startMove(o, t) }) : '']), 'Tickets'),
  ];
  if (body.refunds.length) {
    parts.push(el('h3', { text: 'Refunds' }), el('ul', { id: 'refund-states' }, body.refunds.map((r) =>
      el('li', { text: refundLine(r, o) }))));
  }
  for (const r of body.refunds.filter((r) => r.ticket_ids === null)) {
    const box = ticketChecks(live, `rf-${r.id}`);
    parts.push(el('div', { class: 'card' }, [
      el('p', { text: `A refund of ${minor(r.amount, o.currency)} was made in the Square Dashboard. Which tickets does it cover? Leave all unticked to keep every ticket valid.` }),
      box,
      el('button', { type: 'button', class: 'secondary', text: 'Apply this refund to the ticked tickets', onclick: () => chooseRefundTickets(r.id, checked(box)) }),
    ]));
  }
  if (live.length && o.status !== 'pending') {
    const box = ticketChecks(live, 'refund');
    // A limited code's use stays spent after a refund unless staff give it back.
    const giveBack = body.code_limited
      ? el('label', { class: 'choice' }, [el('input', { type: 'checkbox', id: 'refund-code-use' }), `Give back this order's use of code ${o.discount_code}`])
      : '';
    parts.push(el('h3', { text: 'Refund' }), box, giveBack,
      el('p', {}, [
        confirmButton('Refund ticked tickets', () => {
          const n = checked(box).length;
          if (!n) { say(out, 'info', 'Tick the tickets to refund first.'); return null; }
          return `Confirm: refund ${n} ticket${n > 1 ? 's' : ''} (${minor(unit * n, o.currency)})`;
        }, () => refund(o.id, checked(box))),
        ' ',
        confirmButton('Refund whole order', `Confirm: refund all ${live.length} tickets (${minor(unit * live.length, o.currency)})`, () => refund(o.id, null)),
      ]));
  }
  const MAIL_KINDS = {
    tickets: 'Tickets', refund: 'Refund confirmation', lookup: 'Order links', cancelled: 'Showing cancelled', moved: 'New ticket (seat moved)',
    declined: 'Card declined', seat_lost: 'Seats lost', payment_cancelled: 'Payment cancelled',
    refund_failed: 'Refund failed', refund_rejected: 'Refund rejected',
  };
  parts.push(el('h3', { text: 'Messages' }),
    body.emails.length
      ? table(['Message', 'To', 'Status', 'Time'], body.emails.map((m) => [
        MAIL_KINDS[m.kind] || m.kind, m.to,
        m.status === 'failed' ? `failed: ${m.last_error || ''}` : m.status === 'queued' && m.tries ? `queued (tried ${m.tries}×: ${m.last_error || ''})` : m.status,
        when(m.sent_at_ms || m.queued_at_ms)]), 'Messages')
      : el('p', { class: 'muted', text: 'No message yet.' }),
    el('p', {}, [
      live.length && o.status === 'paid'
        ? el('button', { type: 'button', class: 'secondary', text: 'Resend tickets', onclick: () => resend(o.id) })
        : '',
      ' ',
      el('button', { type: 'button', class: 'secondary', text: 'Copy order link', onclick: () => copyLink(body.order_url) }),
    ]));
  if (body.events.length) {
    parts.push(el('details', {}, [el('summary', { text: 'History' }), el('ul', {}, body.events.map((e) => el('li', { text: `${when(e.at_ms)}: ${e.from_state || '—'} → ${e.to_state}${e.detail ? ' (' + e.detail + ')' : ''}` })))]));
  }
  document.getElementById('order-heading').textContent = `Order ${orderNumber(o.id)}`;
  document.getElementById('order-body').replaceChildren(...parts);
  const wasOpen = !section.hidden;
  section.hidden = false;
  if (!wasOpen || !keepFocus) document.getElementById('order-heading').focus();
  // While Square works on a refund, the panel follows it to its end.
  clearTimeout(refundWatch);
  if (unsettled.length) refundWatch = setTimeout(() => { if (openOrder === orderId) showOrder(orderId, true); }, 2000);
}

// A refund's state at Square, in words.
// A refund row in words: an exchange moves the tickets' worth to the new
// order (never through Square); a refund of an exchanged order's credit
// goes back through the old order's payment.
function refundLine(r, o) {
  const amount = minor(r.amount, o.currency);
  if (r.exchange_to) {
    const state = { requested: 'exchange under way', COMPLETED: 'exchanged', superseded: 'exchange did not go through' }[r.status] || r.status;
    return `${amount} moved to order ${orderNumber(r.exchange_to)}: ${state}, ${when(r.created_at_ms)}`;
  }
  const from = r.payment_id ? ' (of the credit, through the earlier order\'s payment)' : '';
  return `${amount}${from}: ${REFUND_STATES[r.status] || r.status}, ${when(r.created_at_ms)}`;
}

const REFUND_STATES = { requested: 'Refund pending (being asked of Square)', PENDING: 'Refund pending at Square', COMPLETED: 'Refunded', REJECTED: 'Refund refused by the bank', FAILED: 'Refund failed' };
let refundWatch = null;

async function resend(orderId) {
  const out = document.getElementById('order-messages');
  const { status, body } = await adminApi(`/api/admin/orders/${encodeURIComponent(orderId)}/resend`, { json: {} });
  if (status !== 202) return say(out, 'error', body.detail || 'The tickets could not be resent.');
  await showOrder(orderId);
  const sent = body.email && body.email.status === 'sent';
  say(document.getElementById('order-messages'), sent ? 'ok' : 'info', sent
    ? `Tickets sent again to ${body.email.to}.`
    : 'Tickets queued: they will be sent as soon as the mail service takes them.');
}

async function copyLink(path) {
  const out = document.getElementById('order-messages');
  const url = new URL(path, location.origin).href;
  try {
    await navigator.clipboard.writeText(url);
    say(out, 'ok', 'Order link copied: paste it into your reply to the buyer.');
  } catch {
    say(out, 'info', `Copy this link: ${url}`);
  }
}

async function refund(orderId, ticketIds) {
  const out = document.getElementById('order-messages');
  const giveBack = document.getElementById('refund-code-use');
  const ask = Object.assign(ticketIds ? { ticket_ids: ticketIds } : {}, giveBack && giveBack.checked ? { return_code_use: true } : {});
  const { status, body } = await adminApi(`/api/admin/orders/${encodeURIComponent(orderId)}/refund`, { json: ask });
  if (status !== 202) return say(out, 'error', body.detail || 'The refund failed.');
  await Promise.all([load(), loadOrders(document.getElementById('search-email').value)]);
  await showOrder(orderId);
  const amount = minor(body.amount, data.showing.price.currency);
  const said = {
    COMPLETED: `Refunded ${amount}. The tickets are void and the seats are back on sale.`,
    waiting: `Another refund of this order is still pending at Square, which makes one at a time: this refund of ${amount} will be asked for as soon as that one completes.`,
  };
  say(document.getElementById('order-messages'), 'ok', said[body.status]
    || `Refund of ${amount} asked of Square (${body.status}). The seats reopen when Square completes it.`);
}

async function chooseRefundTickets(refundId, ticketIds) {
  const { status, body } = await adminApi(`/api/admin/refunds/${encodeURIComponent(refundId)}/tickets`, { json: { ticket_ids: ticketIds } });
  if (status !== 200) return say(document.getElementById('order-messages'), 'error', body.detail || 'That could not be saved.');
  await Promise.all([load(), loadOrders(document.getElementById('search-email').value)]);
  await showOrder(openOrder);
  say(document.getElementById('order-messages'), 'ok', ticketIds.length ? `Saved: the refund covers ${ticketIds.length} ticket(s).` : 'Saved: every ticket stays valid.');
}

// What buyers of this showing may change themselves: whether they may
// cancel, until how long before the start, for what fee; the showing's own
// policy or the cinema's default. Read once (the poll does not redraw a
// form being filled in). The policy's exchange is not offered to buyers
// yet: it is sent back exactly as it was read.
let policyAnswer = null;
const POLICY_INPUTS = { 'cancel.until_minutes_before': 'policy-until', fixed: 'policy-fixed', percent: 'policy-percent' };

// 90 → "1 hour 30 min"; 120 → "2 hours".
function hoursText(minutes) {
  const hours = Math.floor(minutes / 60);
  const rest = minutes % 60;
  const whole = `${hours} hour${hours === 1 ? '' : 's'}`;
  return rest ? `${whole} ${rest} min` : whole;
}

function cutoffText(minutes) {
  if (minutes === 0) return 'until the start';
  if (minutes < 60) return `until ${minutes} minutes before the start`;
  return `until ${minutes} minutes (${hoursText(minutes)}) before the start`;
}

// A fee is "none", {"fixed": minor units} or {"percent": whole percent}.
function feeText(fee, currency) {
  if (fee && fee.fixed !== undefined) return `a fee of ${minor(fee.fixed, currency)} on each ticket`;
  if (fee && fee.percent !== undefined) return `a fee of ${fee.percent}% of each ticket's price`;
  return 'no fee';
}

function policyText(answer, currency) {
  const cancel = answer.policy && answer.policy.cancel;
  const rule = cancel
    ? `Buyers may cancel ${cutoffText(cancel.until_minutes_before)}, with ${feeText(cancel.fee, currency)}.`
    : 'Buyers may not cancel their tickets online.';
  return `${rule} ${answer.own ? 'This is the showing\'s own policy.' : 'This is the cinema\'s default: the showing has no policy of its own.'}`;
}

function feeKind() {
  return document.querySelector('input[name=policy-fee]:checked').value;
}

// Shows what the form's choices need: the cut-off and fee only when buyers
// may cancel, the amount of the kind of fee chosen, the cut-off in hours.
function syncPolicyFields() {
  const kind = feeKind();
  document.getElementById('policy-cancel-fields').hidden = !document.getElementById('policy-cancel').checked;
  document.getElementById('policy-fixed-box').hidden = kind !== 'fixed';
  document.getElementById('policy-percent-box').hidden = kind !== 'percent';
  const minutes = document.getElementById('policy-until').value.trim();
  document.getElementById('policy-until-hint').textContent = /^\d{1,9}$/.test(minutes)
    ? `That is ${cutoffText(Number(minutes))}. At most 43,200 minutes (30 days).`
    : 'At most 43,200 minutes (30 days); 0 lets buyers cancel until the start.';
}

function renderPolicy(answer) {
  const currency = data.showing.price.currency;
  policyAnswer = answer;
  document.getElementById('policy-state').textContent = policyText(answer, currency);
  document.getElementById('policy-fixed-label').textContent = `Fee per ticket, in ${currency}`;
  document.getElementById('policy-fixed-hint').textContent = `Like ${majorText(150, currency)}. A fee is never more than the ticket it is kept from.`;
  document.getElementById('policy-default').disabled = !answer.own;
  const cancel = answer.policy && answer.policy.cancel;
  document.getElementById('policy-cancel').checked = Boolean(cancel);
  if (cancel) {
    const fee = cancel.fee || 'none';
    const kind = fee.fixed !== undefined ? 'fixed' : fee.percent !== undefined ? 'percent' : 'none';
    document.getElementById('policy-until').value = String(cancel.until_minutes_before);
    document.querySelector(`input[name=policy-fee][value=${kind}]`).checked = true;
    document.getElementById('policy-fixed').value = kind === 'fixed' ? majorText(fee.fixed, currency) : '';
    document.getElementById('policy-percent').value = kind === 'percent' ? String(fee.percent) : '';
  }
  for (const id of Object.values(POLICY_INPUTS)) policyFieldError(document.getElementById(id), null);
  syncPolicyFields();
}

async function loadPolicy() {
  if (!data) return;
  const { status, body } = await adminApi(`/api/admin/showings/${sid}/policy`);
  if (status !== 200) return say(document.getElementById('policy-messages'), 'error', body.detail || 'What buyers may change could not be loaded.');
  renderPolicy(body);
}

// An error under its field (or none, with `message` null), read out with it.
function policyFieldError(input, message) {
  const note = document.getElementById(`${input.id}-error`);
  note.textContent = message || '';
  note.hidden = !message;
  if (message) input.setAttribute('aria-invalid', 'true');
  else input.removeAttribute('aria-invalid');
  input.setAttribute('aria-describedby', message ? `${input.id}-hint ${note.id}` : `${input.id}-hint`);
}

// The cancel rule as the form says it, in the currency's minor units
// (`{rule}`), or the field that does not read and why (`{input, message}`).
function cancelRuleFromForm() {
  const currency = data.showing.price.currency;
  const until = document.getElementById('policy-until');
  // Limits are the server's; here only what must be a number is checked.
  if (!/^\d{1,9}$/.test(until.value.trim())) return { input: until, message: 'Give a whole number of minutes, like 120 for two hours.' };
  const rule = { until_minutes_before: Number(until.value.trim()), fee: 'none' };
  if (feeKind() === 'fixed') {
    const input = document.getElementById('policy-fixed');
    const amount = toMinor(input.value, currency);
    if (amount === null) return { input, message: `Give the fee in ${currency}, like ${majorText(150, currency)}.` };
    rule.fee = { fixed: amount };
  } else if (feeKind() === 'percent') {
    const input = document.getElementById('policy-percent');
    const text = input.value.trim();
    if (!/^\d{1,3}$/.test(text) || Number(text) > 100) return { input, message: 'Give a whole percentage from 0 to 100.' };
    rule.fee = { percent: Number(text) };
  }
  return { rule };
}

// `policy` null is the cinema's default.
async function savePolicy(policy) {
  const out = document.getElementById('policy-messages');
  const { status, body } = await adminApi(`/api/admin/showings/${sid}/policy`, { method: 'PUT', json: policy });
  if (status === 200) {
    renderPolicy(body);
    return say(out, 'ok', `Saved. ${policyText(body, data.showing.price.currency)}`);
  }
  const feeInput = feeKind() === 'fixed' ? 'policy-fixed' : 'policy-percent';
  const id = body.field === 'cancel.fee' ? feeInput : POLICY_INPUTS[body.field];
  if (id) {
    policyFieldError(document.getElementById(id), body.detail);
    document.getElementById(id).focus();
  }
  say(out, 'error', `Not saved: ${body.detail || 'the policy could not be saved.'}`);
}

document.getElementById('policy-form').addEventListener('submit', (event) => {
  event.preventDefault();
  if (!policyAnswer) return;
  for (const id of Object.values(POLICY_INPUTS)) policyFieldError(document.getElementById(id), null);
  let cancel = null;
  if (document.getElementById('policy-cancel').checked) {
    const { rule, input, message } = cancelRuleFromForm();
    if (!rule) {
      policyFieldError(input, message);
      input.focus();
      return say(document.getElementById('policy-messages'), 'error', `Not saved: ${message}`);
    }
    cancel = rule;
  }
  const exchange = policyAnswer.policy ? policyAnswer.policy.exchange : null;
  savePolicy({ cancel, exchange: exchange === undefined ? null : exchange });
});
document.getElementById('policy-default').addEventListener('click', () => savePolicy(null));
document.getElementById('policy-form').addEventListener('input', (event) => {
  if (event.target.getAttribute('aria-invalid')) policyFieldError(event.target, null);
  syncPolicyFields();
});
document.getElementById('policy-form').addEventListener('change', syncPolicyFields);

document.getElementById('search-form').addEventListener('submit', (event) => {
  event.preventDefault();
  loadOrders(document.getElementById('search-email').value);
});

// The Worker draws the PIN and answers it once: it is shown here until the
// page is left, and stored only as a keyed hash.
let hasDoorPin = false;
document.getElementById('pin-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  if (hasDoorPin && !window.confirm('A new PIN signs out every door device of this showing: each must sign in again with it. Draw one?')) return;
  const { status, body } = await adminApi(`/api/admin/showings/${sid}/door-pin`, { method: 'POST' });
  if (status !== 200) return say(messages, 'error', body.detail || 'No PIN could be drawn.');
  const shown = document.getElementById('pin-drawn');
  shown.textContent = `Door PIN: ${body.pin}. Give it to door staff; it is not shown again.`;
  shown.hidden = false;
  load();
});

document.getElementById('signout').addEventListener('click', signOut);
document.getElementById('desk-sell').addEventListener('click', sellAtDesk);
document.getElementById('desk-best').addEventListener('submit', chooseBestAtDesk);
document.getElementById('desk-zones').addEventListener('submit', addZonePlaces);
document.getElementById('allocate-form').addEventListener('submit', allocate);
document.getElementById('move-confirm').addEventListener('click', moveTicket);
document.getElementById('move-cancel').addEventListener('click', endMove);
document.getElementById('desk-clear').addEventListener('click', () => {
  deskSeats.clear();
  document.getElementById('desk-tickets').replaceChildren();
  renderMap();
  renderDesk();
});
for (const radio of document.querySelectorAll('input[name=desk-paid]')) radio.addEventListener('change', renderDesk);

// Listened to from the start: the map is drawn (and may be focused) as
// soon as the showing loads, while its orders may still be loading, and a
// key pressed then must move the cursor too.
document.getElementById('map').addEventListener('keydown', moveCursor);

(async () => {
  if (!await requireSession()) return;
  document.getElementById('edit-link').href = `/admin/showings/${sid}/edit`;
  document.getElementById('csv-link').href = `/api/admin/showings/${sid}/tickets.csv`;
  document.getElementById('public-link').href = `/showings/${sid}`;
  await Promise.all([load().then(loadPolicy), loadOrders('')]);
  if (openOrder) showOrder(openOrder);
  followMap(sid, () => (data ? data.availability.version : -1), load);
  // Pushes tell of seat changes only; admissions at the door and the
  // orders behind the seats come with this poll.
  setInterval(load, REFRESH_MS);
})();
