// The live seat map: choose seats, hold them, pay. The map refreshes every
// few seconds so seats others take or release show up without reloading.
'use strict';

// The map is pushed over a WebSocket when it changes; polling stays as the
// fallback for networks that block WebSockets.
const REFRESH_MS = 8000;
const sid = location.pathname.split('/')[2];
const messages = document.getElementById('messages');
const chosen = new Set();
let showing = null;
let states = {};
let version = -1;
let hold = null;
let card = null;

function seatButton(name) {
  const state = states[name] || 'sold';
  const selected = chosen.has(name);
  const label = `Seat ${name}, ${selected ? 'chosen by you' : state}`;
  return el('button', {
    class: 'seat ' + (selected ? 'selected' : state),
    'data-seat': name,
    'aria-label': label,
    'aria-pressed': selected ? 'true' : 'false',
    'aria-disabled': state !== 'available' && !selected ? 'true' : null,
    text: state === 'held' && !selected ? 'H' : state === 'sold' ? 'S' : name,
    onclick: () => toggle(name),
  });
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
  return [{ name: '', seats: layout.slots, aisles: new Set() }];
}

function render() {
  const map = document.getElementById('map');
  map.replaceChildren(...rows().map((row) =>
    el('div', { class: 'row' }, [el('span', { class: 'row-name', 'aria-hidden': 'true', text: row.name }), ...row.seats.flatMap((name) => row.aisles.has(name)
      ? [seatButton(name), el('span', { class: 'aisle', 'aria-hidden': 'true' })]
      : [seatButton(name)])])));
  const list = [...chosen];
  document.getElementById('chosen').textContent = list.length ? `Chosen: ${list.join(', ')}` : 'No seats chosen.';
  document.getElementById('hold').disabled = !list.length || hold !== null;
}

function toggle(name) {
  if (hold) return say(messages, 'info', 'Your seats are held: pay for them or release them to choose again.');
  if (chosen.has(name)) chosen.delete(name);
  else if (states[name] !== 'available') return say(messages, 'info', `Seat ${name} is not available.`);
  else if (chosen.size >= showing.max_seats_per_hold) return say(messages, 'info', `You can hold up to ${showing.max_seats_per_hold} seats at a time.`);
  else chosen.add(name);
  render();
  const again = document.querySelector(`[data-seat="${CSS.escape(name)}"]`);
  if (again) again.focus();
}

const CODES = { a: 'available', h: 'held', s: 'sold' };

// The compact map: one letter per seat, in layout order.
function decode(codes) {
  const names = rows().flatMap((row) => row.seats);
  const out = {};
  names.forEach((name, i) => { out[name] = CODES[codes[i]] || 'sold'; });
  return out;
}

async function refresh() {
  const { status, body } = await api(`/api/showings/${sid}/seats?format=codes`);
  if (status !== 200 || body.version <= version) return;
  version = body.version;
  states = decode(body.codes);
  for (const name of [...chosen]) if (!hold && states[name] !== 'available') chosen.delete(name);
  render();
}

async function holdSeats() {
  const { status, body } = await api(`/api/showings/${sid}/holds`, { json: { seats: [...chosen] } });
  if (status === 201) {
    hold = body;
    say(messages, 'ok', `Held: ${body.seats.join(', ')}.`);
    await startPayment();
  } else if (status === 409 && body.error === 'seats_unavailable') {
    say(messages, 'error', `Sorry, ${body.seats.join(', ')} ${body.seats.length > 1 ? 'were' : 'was'} just taken. The map is up to date; choose again.`);
    for (const seat of body.seats) chosen.delete(seat);
    version = -1;
    if (body.availability) { states = decode(body.availability.codes); version = body.availability.version; }
  } else {
    say(messages, 'error', body.detail || 'The seats could not be held.');
  }
  render();
}

function tick() {
  if (!hold) return;
  const left = Math.max(0, hold.expires_at_ms - Date.now());
  const m = Math.floor(left / 60000), s = Math.floor(left / 1000) % 60;
  document.getElementById('countdown').textContent = `${m}:${String(s).padStart(2, '0')}`;
  if (left === 0) {
    say(messages, 'error', 'Your hold ran out and the seats went back on sale. Choose again.');
    endHold();
  }
}

function endHold() {
  hold = null;
  chosen.clear();
  document.getElementById('pay').hidden = true;
  refresh();
}

async function startPayment() {
  document.getElementById('pay').hidden = false;
  document.getElementById('total').textContent = `Total: ${money(hold.amount)}`;
  tick();
  if (!card) {
    const config = (await api('/api/config')).body;
    await new Promise((resolve, reject) => {
      const script = el('script', { src: config.square_sdk_url });
      script.onload = resolve;
      script.onerror = () => reject(new Error('The payment form could not be loaded.'));
      document.head.append(script);
    });
    const payments = window.Square.payments(config.square_application_id, config.square_location_id);
    card = await payments.card();
    await card.attach('#card-container');
  }
  document.getElementById('name').focus();
}

async function buy() {
  const button = document.getElementById('buy');
  button.disabled = true;
  try {
    const result = await card.tokenize();
    if (result.status !== 'OK') {
      const why = (result.errors || []).map((e) => e.message).join(' ');
      return say(messages, 'error', why || 'Check the card details.');
    }
    say(messages, 'info', 'Paying…');
    const { status, body } = await api(`/api/showings/${sid}/holds/${hold.hold_id}/checkout`, {
      json: { source_id: result.token, email: document.getElementById('email').value, name: document.getElementById('name').value },
    });
    if (body.order_url && (status === 201 || status === 202)) {
      location.href = '/orders/' + body.order_id + '?key=' + encodeURIComponent(body.access_key);
      return;
    }
    if (status === 402) say(messages, 'error', `Your card was declined (${body.code}). Nothing was charged; your seats are still held, so you can try another card.`);
    else if (status === 409 && body.error === 'seat_lost') { say(messages, 'error', `Your hold ran out during payment and ${body.seats_lost.join(', ')} went to another buyer. Your payment was cancelled: nothing was charged.`); endHold(); }
    else if (status === 410) { say(messages, 'error', 'Your hold expired. Choose your seats again.'); endHold(); }
    else say(messages, 'error', body.detail || 'The payment could not be completed.');
  } finally {
    button.disabled = false;
  }
}

async function release() {
  if (!hold) return;
  await api(`/api/showings/${sid}/holds/${hold.hold_id}`, { method: 'DELETE' });
  say(messages, 'info', 'Seats released.');
  endHold();
}

(async () => {
  const { status, body } = await api(`/api/showings/${sid}`);
  if (status !== 200) return say(messages, 'error', 'This showing does not exist.');
  showing = body.showing;
  document.title = `Seats for ${showing.title}`;
  document.getElementById('title').textContent = showing.title;
  document.getElementById('when').textContent = `${when(showing.starts_at_ms)} · ${money(showing.price)} a seat`;
  document.getElementById('limit').textContent = `Choose up to ${showing.max_seats_per_hold} seats; they are held for you for ${Math.round(showing.hold_ttl_ms / 60000)} minutes while you pay.`;
  states = body.availability.seats;
  version = body.availability.version;
  render();
  document.getElementById('hold').addEventListener('click', holdSeats);
  document.getElementById('buy').addEventListener('click', buy);
  document.getElementById('release').addEventListener('click', release);
  setInterval(refresh, REFRESH_MS);
  followMap(sid, () => version, refresh);
  setInterval(tick, 1000);
})();
