// Creating or editing a showing: title, time, price, limits, door PIN and
// the layout (rows with house seats and aisles, or a list of named places),
// with a preview of the map buyers will see.
'use strict';

const parts = location.pathname.split('/');
const sid = parts[4] === 'edit' ? parts[3] : null;
const messages = document.getElementById('messages');
const rowsBody = document.getElementById('rows');

// "1, 3-5" → [1, 3, 4, 5]; anything else is reported, not guessed.
function numbers(text, what) {
  const out = [];
  for (const part of text.split(',').map((p) => p.trim()).filter(Boolean)) {
    const m = /^(\d+)(?:\s*-\s*(\d+))?$/.exec(part);
    if (!m) throw new Error(`${what}: “${part}” is not a seat number or range such as 3-5`);
    const from = Number(m[1]), to = Number(m[2] || m[1]);
    if (to - from > 1000) throw new Error(`${what}: the range ${part} is too long`);
    for (let n = from; n <= to; n++) out.push(n);
  }
  return [...new Set(out)].sort((a, b) => a - b);
}

function rowInput(cls, label, value, attrs) {
  return el('td', {}, [el('input', Object.assign({ class: cls, 'aria-label': label, value: value ?? '', oninput: preview }, attrs || {}))]);
}

function addRow(row) {
  const n = rowsBody.children.length + 1;
  const tr = el('tr', {}, [
    rowInput('row-label', `Row ${n} name`, row.name, { type: 'text', maxlength: '8' }),
    rowInput('row-seats', `Row ${n} seats`, row.seats, { type: 'number', min: '1', max: '500' }),
    rowInput('row-blocked', `Row ${n} house seats`, (row.blocked || []).join(', '), { type: 'text' }),
    rowInput('row-gaps', `Row ${n} aisle after seats`, (row.gaps_after || []).join(', '), { type: 'text' }),
    rowInput('row-wheelchair', `Row ${n} wheelchair spaces`, (row.wheelchair || []).join(', '), { type: 'text' }),
    rowInput('row-companion', `Row ${n} companion seats`, (row.companion || []).join(', '), { type: 'text' }),
    el('td', {}, [el('button', { type: 'button', class: 'link', text: 'Remove', 'aria-label': `Remove row ${n}`, onclick: () => { tr.remove(); preview(); } })]),
  ]);
  rowsBody.append(tr);
}

const pricesBody = document.getElementById('more-prices');

// Another price a buyer may choose per seat.
function addPrice(category) {
  const n = pricesBody.children.length + 2;
  const tr = el('tr', {}, [
    rowInput('price-extra-name', `Name of price ${n}`, category.name, { type: 'text', maxlength: '60' }),
    rowInput('price-extra-amount', `Price ${n}`, category.amount, { type: 'text', inputmode: 'decimal', autocomplete: 'off' }),
    el('td', {}, [el('button', { type: 'button', class: 'link', text: 'Remove', 'aria-label': `Remove price ${n}`, onclick: () => tr.remove() })]),
  ]);
  pricesBody.append(tr);
}

// A price's id from its name: "Child (under 12)" is "child-under-12".
function priceId(name, taken) {
  const base = name.normalize('NFKD').replace(/[\u0300-\u036f]/g, '').toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '').slice(0, 24) || 'price';
  let id = base;
  for (let n = 2; taken.has(id); n += 1) id = `${base}-${n}`;
  taken.add(id);
  return id;
}

// Every price in minor units, the default first.
function prices() {
  const first = price();
  const taken = new Set();
  const name = document.getElementById('price-name').value.trim() || 'Standard';
  const all = [{ id: priceId(name, taken), name, amount: first.amount }];
  for (const tr of pricesBody.children) {
    const extraName = tr.querySelector('.price-extra-name').value.trim();
    const text = tr.querySelector('.price-extra-amount').value;
    if (!extraName && !text.trim()) continue;
    if (!extraName) throw new Error('Give each price a name.');
    const amount = toMinor(text, first.currency);
    if (amount === null) throw new Error(`Give the price "${extraName}" in ${first.currency}, like ${majorText(950, first.currency)}, or 0 for free.`);
    all.push({ id: priceId(extraName, taken), name: extraName, amount });
  }
  return { currency: first.currency, prices: all };
}

function readRows() {
  return [...rowsBody.children].map((tr) => {
    const name = tr.querySelector('.row-label').value.trim();
    const row = { name, seats: Number(tr.querySelector('.row-seats').value) };
    const blocked = numbers(tr.querySelector('.row-blocked').value, `Row ${name} house seats`);
    const gaps = numbers(tr.querySelector('.row-gaps').value, `Row ${name} aisles`);
    const wheelchair = numbers(tr.querySelector('.row-wheelchair').value, `Row ${name} wheelchair spaces`);
    const companion = numbers(tr.querySelector('.row-companion').value, `Row ${name} companion seats`);
    if (blocked.length) row.blocked = blocked;
    if (gaps.length) row.gaps_after = gaps;
    if (wheelchair.length) row.wheelchair = wheelchair;
    if (companion.length) row.companion = companion;
    return row;
  });
}

function kind() {
  return document.querySelector('input[name=kind]:checked').value;
}

// General admission areas, one a line as "Floor: 200".
function readZones() {
  return document.getElementById('zones').value.split('\n').map((line) => line.trim()).filter(Boolean).map((line) => {
    const m = /^(.+?)\s*:\s*(\d+)$/.exec(line);
    if (!m) throw new Error(`"${line}": write an area as its name and places, like Floor: 200`);
    return { name: m[1], capacity: Number(m[2]) };
  });
}

function layout() {
  if (kind() === 'slots') {
    return { slots: document.getElementById('slots').value.split('\n').map((s) => s.trim()).filter(Boolean) };
  }
  if (kind() === 'zones') return { zones: readZones() };
  const rows = { rows: readRows() };
  const zones = readZones();
  if (zones.length) rows.zones = zones;
  if (document.getElementById('wheelchair-desk-only').checked) rows.wheelchair_at_desk_only = true;
  const best = document.getElementById('best-seat').value.trim();
  if (best) rows.best_seat = best;
  if (document.getElementById('allow-single-seats').checked) rows.allow_single_seats = true;
  return rows;
}

// Films and screens kept by the cinema, offered in the editor.
let screens = [];

async function loadCatalog() {
  const [films, saved] = await Promise.all([adminApi('/api/admin/films'), adminApi('/api/admin/screens')]);
  const filmSelect = document.getElementById('film');
  for (const f of films.body.films || []) filmSelect.append(el('option', { value: f.id, text: f.title }));
  screens = saved.body.screens || [];
  const screenSelect = document.getElementById('screen');
  for (const s of screens) screenSelect.append(el('option', { value: s.id, text: s.name }));
}

// A screen chosen: its seats fill the layout, to use or adjust.
function useScreen() {
  const screen = screens.find((s) => s.id === document.getElementById('screen').value);
  if (!screen) return;
  showLayout(screen.layout);
}

function showLayout(saved) {
  document.getElementById('zones').value = (saved.zones || []).map((z) => `${z.name}: ${z.capacity}`).join('\n');
  if (saved.slots) {
    document.querySelector('input[name=kind][value=slots]').checked = true;
    document.getElementById('slots').value = saved.slots.join('\n');
  } else if (!saved.rows) {
    document.querySelector('input[name=kind][value=zones]').checked = true;
  } else {
    document.querySelector('input[name=kind][value=rows]').checked = true;
    rowsBody.replaceChildren();
    saved.rows.forEach(addRow);
    document.getElementById('wheelchair-desk-only').checked = Boolean(saved.wheelchair_at_desk_only);
    document.getElementById('best-seat').value = saved.best_seat || '';
    document.getElementById('allow-single-seats').checked = Boolean(saved.allow_single_seats);
  }
  preview();
}

async function saveScreen() {
  const out = document.getElementById('screen-messages');
  const name = window.prompt('Name of the screen (Screen 1, Studio…)');
  if (!name) return;
  let saved;
  try { saved = layout(); } catch (e) { return say(out, 'error', e.message); }
  const made = await adminApi('/api/admin/screens', { json: { name, layout: saved } });
  if (made.status !== 201) return say(out, 'error', made.body.detail || 'The screen could not be saved.');
  screens.push({ id: made.body.id, name, layout: saved });
  const select = document.getElementById('screen');
  select.append(el('option', { value: made.body.id, text: name }));
  select.value = made.body.id;
  say(out, 'ok', `Saved as ${name}: choose it for the next showing in this screen.`);
}

function toggleHouseSeat(rowIndex, number) {
  const input = rowsBody.children[rowIndex].querySelector('.row-blocked');
  const set = new Set(numbers(input.value, 'house seats'));
  if (set.has(number)) set.delete(number); else set.add(number);
  input.value = [...set].sort((a, b) => a - b).join(', ');
  preview();
  const again = document.querySelector(`#preview [data-seat="${CSS.escape(rowsBody.children[rowIndex].querySelector('.row-label').value.trim() + number)}"]`);
  if (again) again.focus();
}

function preview() {
  document.getElementById('rows-editor').hidden = kind() !== 'rows';
  document.getElementById('slots-editor').hidden = kind() !== 'slots';
  document.getElementById('zones-editor').hidden = kind() === 'slots';
  if (kind() !== 'rows') return;
  let rows;
  try { rows = readRows(); } catch (e) { document.getElementById('seat-count').textContent = e.message; return; }
  let count = 0;
  const drawn = rows.slice(0, 200).map((row, r) => {
    const cells = [el('span', { class: 'row-name', 'aria-hidden': 'true', text: row.name })];
    const seats = Math.min(Number.isFinite(row.seats) ? row.seats : 0, 500);
    for (let n = 1; n <= seats; n++) {
      const house = (row.blocked || []).includes(n);
      if (!house) count++;
      cells.push(el('button', {
        type: 'button', class: 'seat ' + (house ? 'blocked' : 'available'), 'data-seat': row.name + n,
        'aria-label': `Seat ${row.name}${n}, ${house ? 'house seat' : 'for sale'}`, 'aria-pressed': house ? 'true' : 'false',
        text: house ? 'X' : row.name + n, onclick: () => toggleHouseSeat(r, n),
      }));
      if ((row.gaps_after || []).includes(n)) cells.push(el('span', { class: 'aisle', 'aria-hidden': 'true' }));
    }
    return el('div', { class: 'row' }, cells);
  });
  document.getElementById('preview').replaceChildren(...drawn);
  // General admission areas count too, when they read right.
  let places = 0;
  try { places = readZones().reduce((sum, z) => sum + z.capacity, 0); } catch (_) { places = 0; }
  document.getElementById('seat-count').textContent = places
    ? `${count} seats and ${places} general admission places for sale.`
    : `${count} seats for sale.`;
}

async function loadExisting() {
  const { status, body } = await adminApi(`/api/admin/showings/${sid}`);
  if (status !== 200) return say(messages, 'error', body.detail || 'The showing could not be loaded.');
  const s = body.showing;
  document.getElementById('heading').textContent = `Edit ${s.title}`;
  document.getElementById('save').textContent = 'Save changes';
  document.getElementById('title').value = s.title;
  document.getElementById('starts').value = localInput(s.starts_at_ms);
  document.getElementById('currency').value = s.price.currency;
  document.getElementById('price').value = majorText(s.price.amount, s.price.currency);
  document.getElementById('price-name').value = s.prices[0].name;
  pricesBody.replaceChildren();
  for (const c of s.prices.slice(1)) addPrice({ name: c.name, amount: majorText(c.amount, s.price.currency) });
  document.getElementById('max-seats').value = s.max_seats_per_hold;
  document.getElementById('hold-minutes').value = s.hold_ttl_ms / 60000;
  document.getElementById('pay-minutes').value = (body.payment_cap_ms || s.hold_ttl_ms) / 60000;
  for (const [input, field] of WINDOW_FIELDS) {
    const ms = s.windows[`${field}_ms`];
    document.getElementById(input).value = ms === null || ms === undefined ? '' : localInput(ms);
  }
  document.getElementById('rush-on').checked = Boolean(s.admit_per_minute);
  document.getElementById('rush-rate').value = s.admit_per_minute || '';
  suggestRate();
  document.getElementById('film').value = s.film_id || '';
  document.getElementById('screen').value = s.screen_id || '';
  showLayout(s.layout);
  if (Object.keys(body.owners).length) {
    document.getElementById('layout-note').textContent = 'Seats have been sold, so the layout is fixed; title, time, price and limits can still change.';
  }
  preview();
}

// The price as typed, in the currency's minor units: "9.50" USD is 950,
// "1500" JPY is 1500.
function price() {
  const currency = document.getElementById('currency').value.trim().toUpperCase();
  const amount = toMinor(document.getElementById('price').value, currency);
  const digits = minorDigits(currency);
  if (amount === null) {
    throw new Error(`Give the price in ${currency} with at most ${digits} decimal${digits === 1 ? '' : 's'}, like ${digits ? '9.' + '5'.padEnd(digits, '0') : '1500'}.`);
  }
  return { amount, currency };
}

// The optional sales and door times: input id and API field.
const WINDOW_FIELDS = [['sales-open', 'sales_open_at'], ['sales-close', 'sales_close_at'], ['door-close', 'door_close_at']];

// Form errors: each told next to its field, all at once, with a list at
// the top that leads to each; a field's error goes as soon as it is fixed.
// `checks` holds, per field in error, the check that fails it.
const checks = new Map();

function fieldError(input, message) {
  const cell = input.closest('td') || input.parentElement;
  let note = cell.querySelector('.field-error');
  if (!note) {
    note = el('p', { class: 'field-error', id: `error-${Math.random().toString(36).slice(2, 10)}` });
    cell.append(note);
  }
  note.textContent = message;
  input.setAttribute('aria-invalid', 'true');
  input.setAttribute('aria-describedby', note.id);
}

function clearFieldError(input) {
  const cell = input.closest('td') || input.parentElement;
  const note = cell.querySelector('.field-error');
  if (note) note.remove();
  input.removeAttribute('aria-invalid');
  input.removeAttribute('aria-describedby');
  checks.delete(input);
}

function clearFieldErrors() {
  for (const input of [...checks.keys()]) clearFieldError(input);
  for (const input of document.querySelectorAll('#showing-form [aria-invalid="true"]')) clearFieldError(input);
}

// The message of a check: what it throws, or null when it passes.
function failure(check) {
  try { check(); return null; } catch (e) { return e.message; }
}

// Runs every check and shows every failure; true when all pass.
function showProblems(list) {
  clearFieldErrors();
  const failed = [];
  for (const [input, check] of list) {
    const message = failure(check);
    if (message === null || checks.has(input)) continue;
    checks.set(input, check);
    fieldError(input, message);
    failed.push([input, message]);
  }
  if (failed.length) summarize(failed);
  return failed.length === 0;
}

function summarize(failed) {
  const box = say(messages, 'error', `${failed.length === 1 ? 'One field needs' : `${failed.length} fields need`} fixing:`);
  box.append(el('ul', {}, failed.map(([input, message]) => el('li', {}, [
    el('button', { type: 'button', class: 'link', text: message, onclick: () => input.focus() })]))));
  box.focus();
}

// A field fixed loses its error at once; one still wrong says why now.
document.getElementById('showing-form').addEventListener('input', (event) => {
  const check = checks.get(event.target);
  if (!check) return;
  const message = failure(check);
  if (message === null) clearFieldError(event.target); else fieldError(event.target, message);
  if (!checks.size) messages.replaceChildren();
});

function whole(input, low, high, what) {
  return () => {
    const n = Number(input.value);
    if (!Number.isInteger(n) || n < low || n > high) throw new Error(`${what}: a whole number from ${low} to ${high}.`);
  };
}

// Every field's check, in the form's order.
function fieldChecks() {
  const field = (id) => document.getElementById(id);
  const list = [
    [field('title'), () => { if (!field('title').value.trim()) throw new Error('Give the showing a title.'); }],
    [field('starts'), () => { if (!field('starts').value) throw new Error('Choose when the showing starts.'); }],
    [field('currency'), () => { if (!/^[A-Za-z]{3}$/.test(field('currency').value.trim())) throw new Error('A currency is three letters, like USD, GBP or EUR.'); }],
    [field('price'), price],
    [field('max-seats'), whole(field('max-seats'), 1, 10, 'Most seats in one hold')],
    [field('hold-minutes'), whole(field('hold-minutes'), 1, 30, 'Minutes a hold lasts')],
    [field('pay-minutes'), () => {
      whole(field('pay-minutes'), 1, 60, 'Minutes allowed to finish paying')();
      if (Number(field('pay-minutes').value) < Number(field('hold-minutes').value)) throw new Error('Allow at least as long to pay as a hold lasts.');
    }],
  ];
  for (const tr of pricesBody.children) {
    const nameInput = tr.querySelector('.price-extra-name');
    const amountInput = tr.querySelector('.price-extra-amount');
    const used = () => nameInput.value.trim() || amountInput.value.trim();
    list.push([nameInput, () => { if (used() && !nameInput.value.trim()) throw new Error('Give this price a name.'); }]);
    list.push([amountInput, () => {
      const currency = field('currency').value.trim().toUpperCase();
      if (used() && toMinor(amountInput.value, currency) === null) throw new Error(`Give this price in ${currency}, like ${majorText(950, currency)}, or 0 for free.`);
    }]);
  }
  if (kind() === 'slots') {
    list.push([field('slots'), () => { if (!layout().slots.length) throw new Error('List at least one place, one per line.'); }]);
    return list;
  }
  list.push([field('zones'), () => { if (!readZones().length && kind() === 'zones') throw new Error('List at least one area, like Floor: 200.'); }]);
  if (kind() === 'zones') return list;
  for (const tr of rowsBody.children) {
    const label = tr.querySelector('.row-label');
    const seats = tr.querySelector('.row-seats');
    list.push([label, () => { if (!label.value.trim()) throw new Error('Give the row a name, like A.'); }]);
    list.push([seats, whole(seats, 1, 500, 'Seats in the row')]);
    for (const [cls, what] of [['.row-blocked', 'House seats'], ['.row-gaps', 'Aisles'], ['.row-wheelchair', 'Wheelchair spaces'], ['.row-companion', 'Companion seats']]) {
      const input = tr.querySelector(cls);
      list.push([input, () => numbers(input.value, what)]);
    }
  }
  if (!rowsBody.children.length) list.push([document.getElementById('add-row'), () => { throw new Error('Add at least one row.'); }]);
  return list;
}

// The server's refusal names its field ("title: …"): shown by that field.
const SERVER_FIELDS = {
  title: 'title', starts_at: 'starts', price: 'price', prices: 'price', currency: 'currency',
  max_seats_per_hold: 'max-seats', hold_ttl_ms: 'hold-minutes', payment_cap_ms: 'pay-minutes',
  sales_open_at: 'sales-open', sales_close_at: 'sales-close', door_close_at: 'door-close',
};

function refused(detail, fallback) {
  const text = detail || fallback;
  const input = document.getElementById(SERVER_FIELDS[text.split(':')[0]] || '');
  if (!input) return say(messages, 'error', text);
  const message = text.slice(text.indexOf(':') + 1).trim();
  clearFieldErrors();
  // Any change to the field is taken as the fix; the server checks again.
  checks.set(input, () => {});
  fieldError(input, message);
  summarize([[input, message]]);
}

// Staff type the cinema's local time; the server reads it in the cinema's
// zone. A time the clocks pass twice comes back with both readings to
// choose from; `chosen` holds the reading chosen for each such field.
async function save(event, chosen = {}) {
  if (event) event.preventDefault();
  if (!showProblems(fieldChecks())) return;
  let body;
  try {
    const starts = document.getElementById('starts').value;
    body = {
      title: document.getElementById('title').value,
      starts_at: chosen.starts_at || starts,
      film_id: document.getElementById('film').value || null,
      screen_id: document.getElementById('screen').value || null,
      ...prices(),
      layout: layout(),
      max_seats_per_hold: Number(document.getElementById('max-seats').value),
      hold_ttl_ms: Math.round(Number(document.getElementById('hold-minutes').value) * 60000),
      payment_cap_ms: Math.round(Number(document.getElementById('pay-minutes').value) * 60000),
    };
    for (const [input, field] of WINDOW_FIELDS) body[field] = chosen[field] || document.getElementById(input).value || null;
    if (document.getElementById('rush-on').checked) {
      const rate = document.getElementById('rush-rate').value.trim();
      body.waiting_room = rate ? { admit_per_minute: Number(rate) } : {};
    }
  } catch (e) {
    return say(messages, 'error', e.message);
  }
  const days = [...document.querySelectorAll('input[name=repeat-day]:checked')].map((c) => c.value);
  if (!sid && days.length) return saveRecurring(body, days);
  const saved = sid
    ? await adminApi(`/api/admin/showings/${sid}`, { method: 'PUT', json: body })
    : await adminApi('/api/admin/showings', { json: body });
  if (saved.status === 400 && saved.body.choices) return chooseOffset(saved.body, chosen);
  if (saved.status !== 200 && saved.status !== 201) return refused(saved.body.detail, 'The showing could not be saved.');
  location.href = `/admin/showings/${saved.body.id}`;
}

// The refusal names the field ("sales_close_at: …") whose time is doubled.
// A new showing repeated on chosen weekdays until a date: one request
// makes them all, each with its own seats.
async function saveRecurring(body, days) {
  const until = document.getElementById('repeat-until').value;
  if (!until) return say(messages, 'error', 'Choose the date the showings repeat until.');
  const [from, at] = body.starts_at.split('T');
  const recurring = Object.assign({}, body, { repeat: { at, weekdays: days, from, until } });
  for (const field of ['starts_at', 'sales_open_at', 'sales_close_at', 'door_close_at']) delete recurring[field];
  const made = await adminApi('/api/admin/showings/recurring', { json: recurring });
  if (made.status !== 201) return say(messages, 'error', made.body.detail || 'The showings could not be made.');
  const skipped = made.body.skipped.map((s) => `${s.local.replace('T', ' ')}: ${s.reason}`);
  if (!skipped.length) { location.href = '/admin'; return; }
  messages.replaceChildren(el('div', { class: 'message info', role: 'status' }, [
    el('p', { text: `${made.body.created.length} showings made. Not made: ${skipped.join('; ')}.` }),
    el('a', { href: '/admin', text: 'See the showings' }),
  ]));
}

function chooseOffset(body, chosen) {
  const [earlier, later] = body.choices;
  const field = body.detail.split(':')[0];
  const pick = (reading) => save(null, Object.assign({}, chosen, { [field]: reading }));
  const which = field === 'starts_at' ? 'this time' : `the time for ${field.replace(/_/g, ' ')}`;
  messages.replaceChildren(el('div', { class: 'message error', role: 'alert' }, [
    el('p', { text: `The clocks go back that night, so ${which} happens twice. Which one?` }),
    el('button', { type: 'button', class: 'secondary', text: `The first (${earlier.slice(-6)})`, onclick: () => pick(earlier) }),
    ' ',
    el('button', { type: 'button', class: 'secondary', text: `The second (${later.slice(-6)})`, onclick: () => pick(later) }),
  ]));
  messages.querySelector('button').focus();
}

document.getElementById('zone').textContent = VENUE_ZONE;
document.getElementById('screen').addEventListener('change', useScreen);
document.getElementById('save-screen').addEventListener('click', saveScreen);
document.getElementById('film').addEventListener('change', (event) => {
  const chosen = event.target.selectedOptions[0];
  if (event.target.value && !document.getElementById('title').value.trim()) document.getElementById('title').value = chosen.textContent;
});
document.getElementById('add-price').addEventListener('click', () => {
  addPrice({ name: '', amount: '' });
  pricesBody.lastElementChild.querySelector('.price-extra-name').focus();
});
// The rate a waiting room takes unless staff set one, with the numbers it
// comes from: it follows the minutes allowed to pay (how long a buyer
// admitted stays).
async function suggestRate() {
  const minutes = Number(document.getElementById('pay-minutes').value);
  if (!(minutes >= 1 && minutes <= 60)) return;
  const { status, body } = await adminApi(`/api/admin/waiting-room-rate?payment_cap_ms=${Math.round(minutes * 60000)}`);
  if (status !== 200) return;
  const n = (x) => x.toLocaleString('en-US');
  const i = body.inputs;
  document.getElementById('rush-suggested').textContent = n(body.admit_per_minute);
  document.getElementById('rush-why').textContent = `Suggested: a showing's seats take about ${n(i.object_requests_per_second)} requests a second as measured; keeping ${i.headroom_percent}% of that free, with ${i.requests_per_buyer} requests from each buyer over the ${i.minutes_per_buyer} minutes they may take to pay, ${n(body.admit_per_minute)} a minute keeps about ${n(body.buyers_at_once)} buyers choosing at once (${n(body.requests_per_second)} requests a second).`;
}

document.getElementById('pay-minutes').addEventListener('change', suggestRate);

document.getElementById('add-row').addEventListener('click', () => {
  const last = rowsBody.lastElementChild;
  const prev = last ? last.querySelector('.row-label').value.trim() : '';
  const next = /^[A-Y]$/.test(prev) ? String.fromCharCode(prev.charCodeAt(0) + 1) : '';
  addRow({ name: next, seats: last ? Number(last.querySelector('.row-seats').value) || 10 : 10 });
  preview();
  rowsBody.lastElementChild.querySelector('.row-label').focus();
});
for (const radio of document.querySelectorAll('input[name=kind]')) radio.addEventListener('change', preview);
document.getElementById('zones').addEventListener('input', preview);
document.getElementById('showing-form').addEventListener('submit', save);
document.getElementById('signout').addEventListener('click', signOut);

(async () => {
  if (!await requireSession()) return;
  await loadCatalog();
  api('/api/config').then(({ body }) => {
    document.getElementById('sales-close-default').textContent = body.sales_close_minutes;
    document.getElementById('door-close-default').textContent = body.door_close_minutes;
  });
  suggestRate();
  if (sid) {
    document.getElementById('repeat-box').hidden = true;
    return loadExisting();
  }
  for (const name of ['A', 'B', 'C']) addRow({ name, seats: 10, gaps_after: [] });
  preview();
})();
