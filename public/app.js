// Small helpers shared by the pages. No framework: the pages are plain
// HTML filled in from the JSON API.
'use strict';

async function api(path, options) {
  const opts = Object.assign({ credentials: 'same-origin', headers: {} }, options || {});
  if (opts.json !== undefined) {
    opts.method = opts.method || 'POST';
    opts.headers['content-type'] = 'application/json';
    opts.body = JSON.stringify(opts.json);
    delete opts.json;
  }
  const resp = await fetch(path, opts);
  const text = await resp.text();
  let body = null;
  try { body = text ? JSON.parse(text) : null; } catch (_) { body = { detail: text }; }
  return { status: resp.status, body: body || {} };
}

// Cloudflare Turnstile, when the cinema turned it on (the config names a
// site key): one widget in a box of the page, and its token sent with the
// request it guards, after which it is reset for the next. Without a site
// key there is no widget and no token. The widget's action names what the
// page does ('buy' or 'lookup'); the server takes a token only for its own.
const Turnstile = {
  id: null,
  loaded: null,
  token: '',
  waiting: [],
  async mount(box, action) {
    const config = (await api('/api/config')).body;
    if (!config.turnstile_site_key) return;
    this.loaded = new Promise((resolve, reject) => {
      const script = el('script', { src: config.turnstile_script_url });
      script.addEventListener('load', () => {
        this.id = window.turnstile.render(box, {
          sitekey: config.turnstile_site_key,
          action,
          'refresh-expired': 'auto',
          callback: (token) => { this.token = token; for (const wake of this.waiting.splice(0)) wake(); },
          'expired-callback': () => { this.token = ''; },
        });
        resolve();
      });
      script.addEventListener('error', () => reject(new Error('Turnstile could not load')));
      document.head.append(script);
    });
  },
  // The headers for one guarded request: waits a little for the widget's
  // check to finish; sends none if it has not (the server then says so).
  async headers() {
    if (!this.loaded) return {};
    try { await this.loaded; } catch (_) { return {}; }
    if (!this.token) await new Promise((wake) => { this.waiting.push(wake); setTimeout(wake, 10000); });
    const token = this.token;
    this.token = '';
    return token ? { 'x-turnstile-token': token } : {};
  },
  reset() {
    if (this.id !== null) window.turnstile.reset(this.id);
  },
};

function el(tag, attrs, children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (key === 'text') node.textContent = value;
    else if (key.startsWith('on')) node.addEventListener(key.slice(2), value);
    else if (value !== false && value !== null && value !== undefined) node.setAttribute(key, value);
  }
  for (const child of children || []) node.append(child);
  return node;
}

// Amounts are integers in the currency's minor units. How many decimals
// each currency has comes from the server's table (ISO 4217), written into
// every page: two unless listed.
const MINOR_UNITS = Object.fromEntries(
  ((document.querySelector('meta[name="minor-units"]') || {}).content || '')
    .split(',').filter(Boolean).map((pair) => { const [code, digits] = pair.split(':'); return [code, Number(digits)]; }));

function minorDigits(currency) {
  return currency in MINOR_UNITS ? MINOR_UNITS[currency] : 2;
}

// 150000 JPY → "150000"; 1250 GBP → "12.50": exact, no floating point.
function majorText(amount, currency) {
  const digits = minorDigits(currency);
  if (!digits) return String(amount);
  const text = String(amount).padStart(digits + 1, '0');
  return `${text.slice(0, -digits)}.${text.slice(-digits)}`;
}

// 2000 → "20 %", 875 → "8.75 %", 550 → "5.5 %": a rate in hundredths of
// a percent, in words, without floating point (the space does not break).
function rateText(bps) {
  const fraction = String(bps % 100).padStart(2, '0').replace(/0$/, '');
  return `${Math.floor(bps / 100)}${bps % 100 ? `.${fraction}` : ''}\u00a0%`;
}

// Whether the cinema taxes tickets at all (`tax` as the showing's answer
// gives it).
function taxed(tax) {
  return Boolean(tax) && (tax.rate_bps > 0 || Object.values(tax.by_category || {}).some((r) => r > 0));
}

// "20 % " when every ticket is taxed at the one rate; '' when some price
// categories have another (each ticket then names its own once held).
function taxRate(tax) {
  const one = Object.values(tax.by_category || {}).every((r) => r === tax.rate_bps);
  return tax.rate_bps && one ? `${rateText(tax.rate_bps)} ` : '';
}

// What a page says of the tax in its prices: "prices include 20 % VAT",
// "plus 8.75 % Sales tax", or '' when there is none.
function taxWords(tax) {
  if (!taxed(tax)) return '';
  const rate = taxRate(tax);
  return tax.inclusive ? `prices include ${rate}${tax.name}` : `plus ${rate}${tax.name}`;
}

// The same as a sentence: "All prices include 20 % VAT.", "8.75 % Sales
// tax is added to every price."
function taxSentence(tax) {
  if (!taxed(tax)) return '';
  const rate = taxRate(tax);
  return tax.inclusive ? `All prices include ${rate}${tax.name}.` : `${rate}${tax.name} is added to every price.`;
}

// An amount with the tax in it (`tax` an order's or hold's tax line):
// "£32.00 including £4.00 VAT", "$34.80 ($32.00 + $2.80 Sales tax)".
function withTax(amount, tax) {
  if (!tax || !tax.amount) return money(amount);
  const part = money({ amount: tax.amount, currency: amount.currency });
  if (tax.inclusive) return `${money(amount)} including ${part} ${tax.name}`;
  const net = money({ amount: amount.amount - tax.amount, currency: amount.currency });
  return `${money(amount)} (${net} + ${part} ${tax.name})`;
}

// "12.50" GBP → 1250; "1500" JPY → 1500. `null` for anything else,
// including more decimals than the currency has.
function toMinor(text, currency) {
  const digits = minorDigits(currency);
  const match = /^(\d{1,9})(?:\.(\d+))?$/.exec(String(text).trim());
  if (!match || (match[2] || '').length > digits) return null;
  return Number(match[1]) * 10 ** digits + Number((match[2] || '').padEnd(digits, '0') || 0);
}

function money(amount) {
  const digits = minorDigits(amount.currency);
  return new Intl.NumberFormat(undefined, { style: 'currency', currency: amount.currency, minimumFractionDigits: digits, maximumFractionDigits: digits })
    .format(majorText(amount.amount, amount.currency));
}

// Every time is shown in the cinema's time zone (which the server writes
// into each page), whatever the zone of the device reading it.
const VENUE_ZONE = (document.querySelector('meta[name="venue-time-zone"]') || {}).content || 'UTC';

// The zone's abbreviation at that moment (GMT or BST, EST or EDT). A
// browser knows most only in the locale of their country, so a few English
// locales are asked before settling for an offset like "GMT+2".
function zoneName(ms) {
  let fallback = '';
  for (const locale of [undefined, 'en-US', 'en-GB', 'en-AU', 'en-NZ', 'en-IN', 'en-CA', 'en-IE']) {
    const part = new Intl.DateTimeFormat(locale, { timeZone: VENUE_ZONE, timeZoneName: 'short' })
      .formatToParts(ms).find((p) => p.type === 'timeZoneName');
    const name = part ? part.value : '';
    if (name && !/^(GMT|UTC)[+\-\u2212]/.test(name)) return name;
    fallback = fallback || name;
  }
  return fallback;
}

function localParts(ms, options) {
  return new Intl.DateTimeFormat(undefined, Object.assign({ timeZone: VENUE_ZONE }, options)).format(ms);
}

// A date and time: "Sat 14 Mar, 19:30 GMT".
function when(ms) {
  return `${localParts(ms, { weekday: 'short', day: 'numeric', month: 'short', hour: '2-digit', minute: '2-digit' })} ${zoneName(ms)}`;
}

// A time of day: "19:30 GMT", or with `seconds` "19:30:05 GMT" (for scans
// that may be seconds apart).
function clockTime(ms, seconds) {
  const parts = { hour: '2-digit', minute: '2-digit' };
  if (seconds) parts.second = '2-digit';
  return `${localParts(ms, parts)} ${zoneName(ms)}`;
}

// A listed showing's prices in words: "$12.00", "from $8.00", "Free".
function pricesText(showing) {
  const amounts = (showing.prices || []).map((p) => p.amount);
  if (!amounts.length) amounts.push(showing.price.amount);
  const low = Math.min(...amounts);
  const high = Math.max(...amounts);
  if (high === 0) return 'Free';
  const currency = showing.price.currency;
  return low === high ? money({ amount: low, currency }) : `from ${low === 0 ? 'free' : money({ amount: low, currency })}`;
}

// Where a showing's sales stand, in words; '' while it is on sale.
function salesText(sales) {
  if (!sales || sales.state === 'open') return '';
  if (sales.state === 'not_open') return `On sale ${when(sales.opens_at_ms)}`;
  return 'Sales closed';
}

// The cinema's local time as a datetime-local input wants it.
function localInput(ms) {
  const parts = {};
  for (const p of new Intl.DateTimeFormat('en-CA', { timeZone: VENUE_ZONE, year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).formatToParts(ms)) parts[p.type] = p.value;
  return `${parts.year}-${parts.month}-${parts.day}T${parts.hour}:${parts.minute}`;
}

// An order's number as its buyer's receipt and its staff see it: the part
// of its id after the showing's (which every order of a showing shares),
// "35E61-BEF24"; its tickets' numbers start with it.
// A general admission place is named by its zone, this mark and a number
// (`ledger::place_name`): its ticket is for the zone and has no seat.
const PLACE_MARK = '\u00a7';
function zoneOf(unit) {
  const at = unit.indexOf(PLACE_MARK);
  return at < 0 ? null : unit.slice(0, at);
}
function placeName(zone, number) {
  return `${zone}${PLACE_MARK}${number}`;
}

// "Seat A1", or "Floor, general admission".
function placeText(unit) {
  const zone = zoneOf(unit);
  return zone === null ? `Seat ${unit}` : `${zone}, general admission`;
}

// "seat A1", or "Floor (general admission)": what a ticket is for.
function ticketFor(unit) {
  const zone = zoneOf(unit);
  return zone === null ? `seat ${unit}` : `${zone} (general admission)`;
}

// "A1", or "Floor (general admission)": for a table's seat column.
function unitText(unit) {
  const zone = zoneOf(unit);
  return zone === null ? unit : `${zone} (general admission)`;
}

// Seats as one line, places counted by zone: "A1, A2, 3 × Floor (general admission)".
function seatsText(units) {
  const seats = [];
  const zones = new Map();
  for (const unit of units) {
    const zone = zoneOf(unit);
    if (zone === null) seats.push(unit);
    else zones.set(zone, (zones.get(zone) || 0) + 1);
  }
  for (const [zone, n] of zones) seats.push(`${n} × ${unitText(placeName(zone, 1))}`);
  return seats.join(', ');
}

function orderNumber(id) {
  const digits = String(id).slice(16, 26).toUpperCase();
  return `${digits.slice(0, 5)}-${digits.slice(5)}`;
}

// Shows one message in `container`, replacing the one before: an error as
// an alert, anything else as a status, so that both are announced.
// `detail` is small print under the words (a payment processor's code);
// `focus` moves the keyboard to the message, for one the buyer must act on.
function say(container, kind, text, { detail, focus } = {}) {
  const node = el('div', { class: 'message ' + kind, role: kind === 'error' ? 'alert' : 'status', tabindex: '-1' },
    [text, detail ? el('small', { text: detail }) : '']);
  container.replaceChildren(node);
  if (focus) {
    // Centred, so that the button it is about shows too.
    node.focus({ preventScroll: true });
    node.scrollIntoView({ block: 'center' });
  }
  return node;
}

// A seat map's keyboard: the map is one tab stop (a roving tabindex) on
// the seat `cursor`, and arrow keys move it along a row and between rows
// (to the nearest seat by position; rows may differ in length), Home and
// End to a row's ends. `grid` is the seat names, row by row, and each seat
// button carries `data-seat`. Answers the seat moved to, now focused and
// the tab stop, or null.
function moveSeatCursor(event, map, grid, cursor) {
  const r = grid.findIndex((seats) => seats.includes(cursor));
  if (r < 0) return null;
  const c = grid[r].indexOf(cursor);
  const to = {
    ArrowLeft: [r, c - 1], ArrowRight: [r, c + 1], Home: [r, 0], End: [r, grid[r].length - 1],
    ArrowUp: [r - 1, c], ArrowDown: [r + 1, c],
  }[event.key];
  if (!to) return null;
  event.preventDefault();
  const [row, col] = to;
  if (row < 0 || row >= grid.length || col < 0) return null;
  const name = grid[row][Math.min(col, grid[row].length - 1)];
  const next = map.querySelector(`[data-seat="${CSS.escape(name)}"]`);
  if (!next) return null;
  for (const seat of map.querySelectorAll('.seat[tabindex="0"]')) seat.tabIndex = -1;
  next.tabIndex = 0;
  next.focus();
  return name;
}

// Follows a showing's seat map live. The showing's object pushes the map
// over a WebSocket: the whole map when the socket opens, then at most once
// a second (less often with over 500 watchers) the seats changed since the
// last push (`{version, since, changes}`) or the whole map again
// (`{version, codes}`). `apply` takes a
// push and answers false when it cannot use it (the page shows another
// version); then, or with no `apply`, `refresh` reads the map afresh, at
// most once a second, and since that map may be up to a second old, a page
// still behind what was pushed (`current` is the version it shows) asks
// again a second later. Every 30 s the page sends "ping" (the runtime
// answers "pong" without waking the object); a socket silent for 75 s, or
// closed, is opened again after 5 s (longer after each failure in a row, up
// to a minute). Answers a function telling whether the socket is open, for
// pages that poll only without one.
const PING_MS = 30000;
const SILENT_MS = 75000;
function followMap(sid, current, refresh, apply) {
  let wanted = 0, pending = null, last = 0, gap = 1000, socket = null, heard = 0, failures = 0;
  function want(announced) {
    wanted = Math.max(wanted, announced);
    if (pending) return;
    pending = setTimeout(async () => {
      pending = null;
      last = Date.now();
      const before = current();
      try {
        await refresh();
      } catch (_) {
        // A network blip while the socket stayed open: tried again below.
      }
      // Still behind: read again, a second on; a read that brought nothing
      // new (no network, a signed-out staff page) waits twice as long each
      // time, up to 30 s, so a page never hammers nor stays stale.
      gap = current() > before ? 1000 : Math.min(30000, gap * 2);
      if (current() < wanted) want(wanted);
    }, Math.max(0, last + gap - Date.now()));
  }
  function connect() {
    const scheme = location.protocol === 'https:' ? 'wss' : 'ws';
    socket = new WebSocket(`${scheme}://${location.host}/api/showings/${sid}/live`);
    heard = Date.now();
    socket.onmessage = (event) => {
      heard = Date.now();
      if (event.data === 'pong') return;
      window.liveMessages = (window.liveMessages || 0) + 1;
      const push = JSON.parse(event.data);
      if (apply && apply(push)) return;
      if (push.version > current()) want(push.version);
    };
    socket.onopen = () => { failures = 0; };
    // Each failure in a row doubles the wait (a showing refusing more
    // watchers, or a server away), up to a minute.
    socket.onclose = () => {
      socket = null;
      setTimeout(connect, Math.min(60000, 5000 * 2 ** failures));
      failures += 1;
    };
    window.liveMap = socket;
  }
  setInterval(() => {
    if (!socket || socket.readyState !== WebSocket.OPEN) return;
    if (Date.now() - heard > SILENT_MS) socket.close();
    else socket.send('ping');
  }, PING_MS);
  connect();
  return () => socket !== null && socket.readyState === WebSocket.OPEN;
}
