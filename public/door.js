// The door scanner: a camera (BarcodeDetector where the browser has it,
// otherwise the jsQR decoder served with the page), a handheld scanner that
// types the code and presses Enter, or typing. Each scan shows one large,
// unmistakable result and the running count.
//
// It works without a network too. At sign-in, and every minute while
// online, it downloads the showing's manifest (the public keys that check
// ticket codes, and every ticket with its seat, status and check-in) and
// keeps it in IndexedDB; a service worker (door-sw.js) keeps the page.
// Offline, a scan is checked here: the code's Ed25519 signature (Web
// Crypto), the showing, the ticket's status in the manifest, and this
// device's own admissions. Offline scans wait in IndexedDB and are sent
// when the network is back (POST /api/door/sync), where a ticket's first
// admission recorded stands and any other is listed as a conflict.
//
// The PIN (or staff door token) typed at sign-in is sent once, for a door
// session, and never kept: the tab keeps the session alone.
'use strict';

let showingId = null;
// The door session the Worker gave at sign-in: scans and syncs go with
// it, so wrong PINs guessed elsewhere do not stop a device already at the
// door. It names this device: `device`, drawn by the Worker.
let session = null;
let device = null;
// Whether the Worker refused this device's session (staff drew a new PIN,
// or the door token changed): nothing more is sent with it, scans are
// judged here and wait to be sent, and the page says to sign in again.
let refusal = null;
const refusals = {
  wrong: 'the server no longer takes this sign-in (was a new PIN drawn?): scans are checked on this device; sign out and in again to send them',
};
// Notes what an answer says of the session: refused, or taken.
function noteSignIn(reply) {
  if (!reply) return;
  if (reply.status === 401) refusal = 'wrong';
  else if (reply.status === 200) refusal = null;
}
let manifest = null;
// The showings the door lists (or, offline, those this device keeps).
let listedShowings = [];
let ticketsById = new Map();
let ticketsByShort = new Map();
let offlineSince = null;
// Scans are checked one after another, in the order they came: a fast
// handheld scanner never has a scan dropped.
let queue = Promise.resolve();
const resultBox = document.getElementById('result');
const REFRESH_MS = 60000;
// While the Worker cannot be reached, it is tried this often: a browser
// that never saw the network go (Wi-Fi up, the internet down; a page
// opened offline) fires no "online" when it comes back.
const RETRY_MS = 5000;
const SYNC_BATCH = 200;
// How long a check-in may take before the scan is judged here instead (a
// queue at the door cannot wait for a network that is half there), and
// how long a sync or a ticket list may take.
const CHECK_TIMEOUT_MS = 4000;
const FETCH_TIMEOUT_MS = 20000;
// The longest text kept of a scan that is not a ticket (a real code is
// about 150 characters), so a batch of them is never too large to send.
const MAX_CODE = 512;
// Why the Worker last refused the scans waiting, shown until one is taken.
let syncRefused = null;

// The Worker's clock less this device's, measured with each ticket list
// and kept across reloads. Scans are dated, and the door's close judged,
// by the Worker's time: a device whose clock runs behind would otherwise
// win a "first admission" it did not make, or admit after the door closed.
// Within a second it is taken as right (the measure is no finer).
let clockOffset = Number(localStorage.getItem('door-clock-offset')) || 0;
function workerNow() {
  return Date.now() + clockOffset;
}
function measureClock(sentAt, generatedAt) {
  const offset = Math.round(generatedAt - (sentAt + Date.now()) / 2);
  clockOffset = Math.abs(offset) > 1000 ? offset : 0;
  localStorage.setItem('door-clock-offset', String(clockOffset));
}

// IndexedDB: `manifests` by showing id, `queue` (scans not yet sent) by
// scan id, `admitted` (this device's admissions) by ticket id.
const store = {
  db: null,
  open() {
    this.db = this.db || new Promise((resolve, reject) => {
      const req = indexedDB.open('door', 1);
      req.onupgradeneeded = () => {
        req.result.createObjectStore('manifests', { keyPath: 'showing.id' });
        req.result.createObjectStore('queue', { keyPath: 'id' });
        req.result.createObjectStore('admitted', { keyPath: 'ticket_id' });
      };
      req.onsuccess = () => resolve(req.result);
      req.onerror = () => reject(req.error);
    });
    return this.db;
  },
  // `names` is one store or several written together: all or nothing.
  async run(names, mode, work) {
    const db = await this.open();
    return new Promise((resolve, reject) => {
      const tx = db.transaction(names, mode);
      const req = work(Array.isArray(names) ? tx : tx.objectStore(names));
      tx.oncomplete = () => resolve(req && req.result);
      tx.onerror = () => reject(tx.error);
      tx.onabort = () => reject(tx.error || new Error('aborted'));
    });
  },
  get(name, key) { return this.run(name, 'readonly', (s) => s.get(key)); },
  all(name) { return this.run(name, 'readonly', (s) => s.getAll()); },
  put(name, value) { return this.run(name, 'readwrite', (s) => s.put(value)); },
  delete(name, key) { return this.run(name, 'readwrite', (s) => s.delete(key)); },
};

function headers() {
  return session ? { 'x-door-session': session } : {};
}

// How a PIN or door token typed at sign-in is sent: a PIN is digits only.
function credentialHeaders(given) {
  return /^\d{1,12}$/.test(given) ? { 'x-door-pin': given } : { authorization: 'Bearer ' + given };
}

// A request to the Worker, or null when the network (or the Worker) could
// not be reached within `timeoutMs`: the caller then works offline.
async function reach(path, options, timeoutMs = FETCH_TIMEOUT_MS) {
  if (!navigator.onLine) return null;
  try {
    const signal = AbortSignal.timeout ? AbortSignal.timeout(timeoutMs) : undefined;
    const reply = await api(path, Object.assign({ headers: headers(), signal }, options || {}));
    if (reply.status >= 502) return null;
    goneOnline();
    return reply;
  } catch (_) {
    return null;
  }
}

function goneOnline() {
  if (offlineSince !== null) {
    offlineSince = null;
    syncQueue();
  }
  showState();
}

function goneOffline() {
  if (offlineSince === null) offlineSince = Date.now();
  showState();
}

// Scans not yet sent: this showing's, and those of other showings (made
// before this device signed into another one).
async function waitingScans() {
  const all = await store.all('queue');
  const here = all.filter((q) => q.showing_id === showingId).length;
  return { here, elsewhere: all.length - here };
}

async function showState() {
  const { here: waiting, elsewhere } = await waitingScans();
  const parts = [offlineSince === null ? 'Online' : `Offline since ${clockTime(offlineSince)}: scans are checked on this device`];
  parts.push(waiting ? `${waiting} scan${waiting === 1 ? '' : 's'} waiting to be sent` : 'no scans waiting');
  if (waiting && syncRefused) parts.push(`the server refused them: ${syncRefused}`);
  if (refusal) parts.push(refusals[refusal]);
  if (elsewhere) parts.push(`${elsewhere} scan${elsewhere === 1 ? '' : 's'} of another showing waiting: sign in to it to send them`);
  if (manifest) parts.push(`ticket list from ${clockTime(manifest.generated_at_ms)}`);
  const state = document.getElementById('state');
  state.textContent = parts.join(' · ');
  state.classList.toggle('offline', offlineSince !== null);
  if (manifest && manifest.codes_check_offline === false) {
    state.textContent += ' · tickets from this cinema cannot be checked offline yet (its ticket key is an old kind)';
  }
}

function useManifest(body) {
  manifest = body;
  ticketsById = new Map((body.tickets || []).map((t) => [t.id, t]));
  ticketsByShort = new Map();
  for (const t of body.tickets || []) {
    // Kept as typing is read: no dashes, upper case. A manifest kept from
    // before it listed short codes finds tickets by whole id until the
    // next one arrives.
    const short = t.short_code ? t.short_code.replace(/-/g, '').toUpperCase() : null;
    // Two tickets with one short code: neither is picked by it.
    if (short) ticketsByShort.set(short, ticketsByShort.has(short) ? null : t);
  }
  document.getElementById('showing-name').textContent = `${body.showing.title}, ${when(body.showing.starts_at_ms)}`;
  showConflicts(body.conflicts || []);
}

async function refreshManifest() {
  const sentAt = Date.now();
  const reply = await reach(`/api/door/showings/${showingId}/manifest`, { method: 'GET' });
  if (!reply) { goneOffline(); return null; }
  noteSignIn(reply);
  if (reply.status === 200) measureClock(sentAt, reply.body.generated_at_ms);
  // Lists can arrive out of order (a slow one overtaken): the newest stays.
  const older = manifest && manifest.showing.id === showingId
    && reply.status === 200 && reply.body.generated_at_ms < manifest.generated_at_ms;
  if (reply.status === 200 && !older) {
    await store.put('manifests', reply.body);
    useManifest(reply.body);
    showCount();
    showState();
  }
  return reply;
}

function showConflicts(conflicts) {
  const box = document.getElementById('conflicts');
  box.hidden = conflicts.length === 0;
  box.querySelector('ul').replaceChildren(...conflicts.map((c) => {
    const how = c.offline ? 'offline' : 'online';
    const made = `${placeText(c.seat)}: admitted by ${c.device} at ${clockTime(c.scanned_at_ms, true)} (${how})`;
    let why = `but ${c.admitted_by} admitted it first, at ${clockTime(c.admitted_at_ms, true)}`;
    if (c.moved_to_seat) why = `but the ticket was moved to seat ${c.moved_to_seat}`;
    else if (c.status === 'void') why = 'but the ticket was refunded';
    else if (c.cancelled) why = 'but the showing was cancelled';
    return el('li', { text: `${made}, ${why}` });
  }));
}

async function showCount(counts) {
  let admitted;
  let sold;
  if (counts) {
    ({ admitted, sold } = counts);
  } else if (manifest) {
    // From the manifest, with this device's admissions not yet in it.
    const valid = manifest.tickets.filter((t) => t.status === 'valid');
    const mine = (await store.all('admitted')).filter((a) => a.showing_id === showingId);
    const inList = new Set(valid.filter((t) => t.checked_in_at_ms).map((t) => t.id));
    admitted = inList.size + mine.filter((a) => !inList.has(a.ticket_id)).length;
    sold = valid.length;
  } else {
    return;
  }
  document.getElementById('count').textContent = `Admitted ${admitted} of ${sold} sold`;
}

function bytes(base64url) {
  const text = base64url.replace(/-/g, '+').replace(/_/g, '/');
  const binary = atob(text + '='.repeat((4 - (text.length % 4)) % 4));
  return Uint8Array.from(binary, (c) => c.charCodeAt(0));
}

// The ticket a code names, if its Ed25519 signature checks with one of the
// manifest's public keys (src/ticket_code.rs makes them); null otherwise,
// and for older (v1) codes, which only the server can check.
async function verifyHere(code) {
  const parts = code.split('.');
  if (parts.length !== 6 || parts[0] !== 'v2') return null;
  const key = (manifest.keys || []).find((k) => k.id === parts[1]);
  if (!key) return null;
  try {
    const publicKey = await crypto.subtle.importKey('raw', bytes(key.key), { name: 'Ed25519' }, false, ['verify']);
    const signed = new TextEncoder().encode(parts.slice(0, 5).join('.'));
    if (!(await crypto.subtle.verify({ name: 'Ed25519' }, publicKey, bytes(parts[5]), signed))) return null;
    return { showing_id: parts[2], ticket_id: parts[3], seat: new TextDecoder().decode(bytes(parts[4])) };
  } catch (_) {
    return null;
  }
}

// The listed ticket a typed number names: a short code, however spaced,
// or a whole ticket id. `undefined` if none, `null` if two share it.
function typedHere(code) {
  const whole = ticketsById.get(code.toLowerCase());
  if (whole) return whole;
  return ticketsByShort.get(code.replace(/[\s-]/g, '').toUpperCase());
}

// The ticket a code names by this device's lists: its signed code checked
// here, or a typed number. `undefined` if none, `null` if two tickets share
// the number. A ticket found by a typed number is queued by its whole id
// (`queued`), which the Worker accepts from a door.
async function identify(code) {
  if (!manifest) return undefined;
  const signed = await verifyHere(code);
  if (signed) return signed;
  const typed = typedHere(code);
  if (typed === null) return null;
  if (typed) return { showing_id: showingId, ticket_id: typed.id, seat: typed.seat, queued: typed.id };
  return undefined;
}

// A scan checked on this device (`ticket` as `identify` found it): what
// the door is told, and what the sync reports the device answered.
async function checkHere(code, ticket, now) {
  const closes = manifest && manifest.showing.door_close_at_ms;
  if (closes && now > closes && !manifest.showing.cancelled) return { result: 'door_closed', seat: ticket && ticket.seat, door_close_at_ms: closes };
  if (ticket === null) return { result: 'ambiguous' };
  if (!ticket) return { result: 'invalid', old: code.startsWith('v1.') };
  return Object.assign(await judgeHere(ticket, now), { queued: ticket.queued });
}

// What the door says of a ticket this device found, by its own lists. An
// admission is written by the caller, with its scan, in one transaction.
async function judgeHere(ticket, now) {
  const seat = ticket.seat;
  if (ticket.showing_id !== showingId) return { result: 'wrong_showing', seat };
  if (manifest.showing.cancelled) return { result: 'cancelled', seat };
  if (now > manifest.showing.door_close_at_ms) return { result: 'door_closed', seat, door_close_at_ms: manifest.showing.door_close_at_ms };
  const listed = ticketsById.get(ticket.ticket_id);
  // A ticket staff moved to another seat is void, and names that seat.
  if (listed && listed.status === 'void') return listed.moved_to_seat ? { result: 'moved', seat, moved_to_seat: listed.moved_to_seat } : { result: 'void', seat };
  const mine = await store.get('admitted', ticket.ticket_id);
  if (mine) return { result: 'already_scanned', here: true, seat, at_ms: mine.at_ms };
  if (listed && listed.checked_in_at_ms) return { result: 'already_scanned', seat, at_ms: listed.checked_in_at_ms };
  // A signed code not in the list was sold after the list was fetched.
  return { result: 'admitted', seat, unlisted: !listed, ticket_id: ticket.ticket_id };
}

const outcomes = {
  admitted: (r) => ['admitted', 'Admitted', `${placeText(r.seat)}${r.unlisted ? ' (sold after the ticket list was fetched)' : ''}`],
  already_checked_in: (r) => ['warn', `Already scanned at ${clockTime(r.checked_in_at_ms)}`, placeText(r.seat)],
  already_scanned: (r) => ['warn', `Already scanned${r.here ? ' here' : ''} at ${clockTime(r.at_ms)}`, placeText(r.seat)],
  void: (r) => ['refused', 'Refunded: not valid', placeText(r.seat)],
  moved: (r) => ['refused', `Moved to seat ${r.moved_to_seat}`, `This ticket for seat ${r.seat} was replaced: the holder's new ticket is for seat ${r.moved_to_seat}`],
  wrong_showing: (r) => ['refused', 'Wrong showing', `${placeText(r.seat)} is for another showing`],
  cancelled: (r) => ['refused', 'Showing cancelled', `${placeText(r.seat)}: no admission; its tickets are being refunded`],
  door_closed: (r) => ['refused', 'Door closed', `Admission ended at ${clockTime(r.door_close_at_ms)}`],
  invalid: (r) => ['refused', 'Invalid ticket', r.old ? 'An older code: it can only be checked online' : 'Not one of ours, or altered'],
  ambiguous: () => ['warn', 'Two tickets share this number', 'Scan its QR code, or type the whole ticket id under it'],
};

function show(answer, offline) {
  const [kind, title, detail] = (outcomes[answer.result] || outcomes.invalid)(answer);
  const lines = [title, el('small', { text: detail })];
  if (offline) lines.push(el('small', { class: 'mark', text: 'Checked offline' }));
  resultBox.replaceChildren(el('div', { class: 'result ' + kind, role: 'status' }, lines));
}

function check(code) {
  queue = queue.then(() => checkNow(code)).catch(() => {
    resultBox.replaceChildren(el('div', { class: 'result refused', role: 'status', text: 'Not checked: scan again' }));
  });
  return queue;
}

async function checkNow(code) {
  code = code.trim();
  if (!code) return;
  const ticket = await identify(code);
  // Offline, a scan is judged here at once (the retry finds the network
  // again). Online, the Worker judges it, once it has this device's
  // offline scans: while any wait, a ticket this device admitted is turned
  // away here, since the Worker may not know it was.
  // The scan's id goes with the check-in, and the scan is queued under it
  // if the answer does not come: an admission whose answer was lost is
  // then recorded once, at the time the Worker made it.
  const id = `${device}-${workerNow()}-${Math.random().toString(36).slice(2, 8)}`;
  let reply = null;
  let asked = false;
  if (offlineSince === null && refusal !== 'wrong') {
    if ((await waitingScans()).here && !syncRefused && !refusal) await syncQueue();
    const unsent = (await waitingScans()).here > 0;
    const mine = unsent && ticket && await store.get('admitted', ticket.ticket_id);
    if (!mine) {
      asked = true;
      reply = await reach('/api/door/checkin', { json: { code, showing_id: showingId, device, scan_id: id } }, CHECK_TIMEOUT_MS);
    }
  }
  noteSignIn(reply);
  if (reply && (reply.status === 401 || reply.status === 429)) {
    // Refused, not unreachable: the door goes on with its own lists, and
    // the scan waits until the sign-in is taken again.
    reply = null;
    asked = false;
  }
  if (reply && reply.status === 200) {
    if (reply.body.result === 'admitted') {
      await store.put('admitted', { ticket_id: reply.body.ticket_id, showing_id: showingId, at_ms: reply.body.checked_in_at_ms });
    }
    // What the Worker just said of a listed ticket holds should the
    // network go before the next list comes.
    const listed = ticketsById.get(reply.body.ticket_id);
    if (listed && reply.body.result === 'void') listed.status = 'void';
    if (listed && reply.body.result === 'moved') Object.assign(listed, { status: 'void', moved_to_seat: reply.body.moved_to_seat });
    if (listed && reply.body.result === 'already_checked_in') listed.checked_in_at_ms = reply.body.checked_in_at_ms;
    show(reply.body, false);
    showCount(reply.body);
    return;
  }
  if (asked) goneOffline();
  const now = workerNow();
  const answer = await checkHere(code, ticket, now);
  // Kept with the sign-in it was made under, so it is sent as that
  // device's, dated within that session, even if staff sign in again.
  const scan = { id, showing_id: showingId, code: (answer.queued || code).slice(0, MAX_CODE), at_ms: now, result: answer.result === 'ambiguous' ? 'invalid' : answer.result, session, device };
  // The admission and its scan together: a crash between them would leave
  // a ticket turned away here that the Worker never hears was admitted.
  await store.run(['admitted', 'queue'], 'readwrite', (tx) => {
    if (answer.result === 'admitted') tx.objectStore('admitted').put({ ticket_id: answer.ticket_id, showing_id: showingId, at_ms: now });
    tx.objectStore('queue').put(scan);
  });
  show(answer, true);
  showCount();
  showState();
}

// Door staff find a ticket by its buyer's name or its seat in the ticket
// list this device keeps (so it works offline too), or by the buyer's
// whole e-mail address, which the list does not carry, asked of the
// Worker; and admit it with the same one-write check-in as a scan, by
// its ticket id.
const MAX_FOUND = 20;

async function findTickets(text) {
  const wanted = text.trim().toLowerCase();
  const list = document.getElementById('found');
  const said = document.getElementById('found-count');
  if (!manifest || !wanted) { list.replaceChildren(); said.textContent = ''; return; }
  let found;
  if (wanted.includes('@')) {
    const reply = await reach(`/api/door/showings/${showingId}/find`, { json: { email: wanted } });
    if (!reply || reply.status !== 200) {
      list.replaceChildren();
      said.textContent = reply ? (reply.body.detail || `Not found (status ${reply.status}).`)
        : 'Finding a buyer by e-mail needs the network: try their name or seat.';
      return;
    }
    found = reply.body.tickets;
  } else {
    found = manifest.tickets.filter((t) => t.seat.toLowerCase() === wanted || (t.name || '').toLowerCase().includes(wanted));
  }
  const mine = new Set((await store.all('admitted')).filter((a) => a.showing_id === showingId).map((a) => a.ticket_id));
  said.textContent = found.length > MAX_FOUND ? `${found.length} tickets match: the first ${MAX_FOUND} are shown; type more to narrow it.`
    : `${found.length} ticket${found.length === 1 ? '' : 's'} match.`;
  list.replaceChildren(...found.slice(0, MAX_FOUND).map((t) => {
    const state = t.moved_to_seat ? `moved to seat ${t.moved_to_seat}` : t.status === 'void' ? 'refunded' : mine.has(t.id) || t.checked_in_at_ms ? 'admitted' : 'not yet admitted';
    return el('li', {}, [
      `${placeText(t.seat)} · ${t.name || 'no name'} · ${state} `,
      t.status === 'void' ? '' : el('button', { type: 'button', class: 'secondary', text: zoneOf(t.seat) === null ? `Admit seat ${t.seat}` : `Admit (${zoneOf(t.seat)})`, onclick: async () => {
        await check(t.id);
        resultBox.scrollIntoView({ block: 'center' });
        await findTickets(document.getElementById('find-text').value);
      } }),
    ]);
  }));
}

// An hour after a showing's door closed (`forget_at_ms` in its list), the
// device forgets its ticket list (buyers' names) and its admissions,
// online or not, whether or not its scans were all sent: those stay
// queued, and are sent when the device signs into that showing again.
const KEEP_AFTER_CLOSE_MS = 3600 * 1000;
async function forgetPast() {
  const now = workerNow();
  const past = (await store.all('manifests')).map((m) => m.showing)
    .filter((s) => (s.forget_at_ms || s.door_close_at_ms + KEEP_AFTER_CLOSE_MS) <= now);
  if (!past.length) return;
  const gone = new Set(past.map((s) => s.id));
  const admitted = (await store.all('admitted')).filter((a) => gone.has(a.showing_id));
  await store.run(['manifests', 'admitted'], 'readwrite', (tx) => {
    for (const s of past) tx.objectStore('manifests').delete(s.id);
    for (const a of admitted) tx.objectStore('admitted').delete(a.ticket_id);
  });
  if (manifest && gone.has(manifest.showing.id)) {
    useManifest(Object.assign({}, manifest, { tickets: [], keys: [], conflicts: [] }));
    showState();
  }
}

// Sends the scans made offline, a batch at a time; each is removed once
// the Worker has recorded it (sending one twice records it once).
let syncing = null;
function syncQueue() {
  // A sign-in the Worker no longer takes sends nothing more.
  if (refusal === 'wrong') return Promise.resolve();
  syncing = syncing || (async () => {
    try {
      for (;;) {
        const queued = (await store.all('queue')).filter((q) => q.showing_id === showingId);
        if (!queued.length) break;
        // One sign-in's scans a batch, sent under that sign-in.
        const under = queued[0].session || session;
        const earlier = under !== session;
        const waiting = queued.filter((q) => (q.session || session) === under).slice(0, SYNC_BATCH);
        const scans = waiting.map(({ id, code, at_ms, result }) => ({ id, code, at_ms, result }));
        const json = { showing_id: showingId, device: earlier ? waiting[0].device : device, scans };
        const reply = await reach('/api/door/sync', { json, headers: { 'x-door-session': under } });
        if (!reply) { goneOffline(); break; }
        if (earlier && (reply.status === 401 || reply.status === 403)) {
          // That sign-in has ended (a new PIN was drawn): its scans go
          // with this one, dated within it.
          await store.run('queue', 'readwrite', (q) => { for (const scan of waiting) q.put(Object.assign({}, scan, { session, device })); });
          continue;
        }
        noteSignIn(reply);
        // Refused for the sign-in: kept until it is taken again.
        if (reply.status === 401 || reply.status === 429) break;
        if (reply.status !== 200) {
          // Kept, and tried again with the next sync; the door is told.
          syncRefused = (reply.body && reply.body.detail) || `status ${reply.status}`;
          break;
        }
        syncRefused = null;
        await store.run('queue', 'readwrite', (q) => { for (const scan of waiting) q.delete(scan.id); });
        const tooOld = (reply.body.scans || []).filter((o) => o.outcome === 'too_old').length;
        if (tooOld) say(document.getElementById('clock-warning'), 'error', `${tooOld} scan${tooOld === 1 ? ' was' : 's were'} dated more than 48 hours before being sent and not recorded: check this device's date and time.`);
        showConflicts(reply.body.conflicts || []);
        showCount(reply.body);
      }
    } finally {
      syncing = null;
      showState();
    }
  })();
  return syncing;
}

let scanning = false;
async function startScanning() {
  // A second sign-in (pressed twice, or while a reload's was restoring)
  // starts no second set of timers.
  if (scanning) return;
  scanning = true;
  document.getElementById('signin').hidden = true;
  document.getElementById('scanner').hidden = false;
  document.getElementById('device').textContent = device;
  showCount();
  showState();
  document.getElementById('code').focus();
  await syncQueue();
  // The queue first, then the list, so the list fetched includes what the
  // queue changed. One round at a time: a round that hangs on a half-there
  // network is not joined by another every few seconds.
  let round = null;
  const catchUp = () => {
    // A sign-in the Worker no longer takes sends nothing more.
    if (refusal === 'wrong') return Promise.resolve();
    round = round || (async () => {
      try {
        await syncQueue();
        await refreshManifest();
      } finally {
        round = null;
      }
    })();
    return round;
  };
  setInterval(() => { if (navigator.onLine) catchUp(); }, REFRESH_MS);
  // Also while the Worker refuses the scans waiting: they stay first in line.
  setInterval(() => { if ((offlineSince !== null || syncRefused) && navigator.onLine) catchUp(); }, RETRY_MS);
  window.addEventListener('online', catchUp);
}

// Keeps the door session (never the PIN or token) for a reload of this tab.
function keepSignIn() {
  sessionStorage.setItem('door-signin', JSON.stringify({ showingId, session, device }));
}

// A door session for `given` (a PIN or the staff door token), or why not.
async function askSession(chosen, given) {
  const issued = await reach(`/api/door/showings/${chosen}/session`, { method: 'POST', headers: credentialHeaders(given) });
  if (!issued) return 'No network: sign in once with a network to fetch this showing\'s tickets.';
  if (issued.status === 429) return 'Too many wrong PINs from this network. Wait ten minutes, or use the staff door token.';
  if (issued.status === 409) return 'This showing\'s door closed over two days ago.';
  if (issued.status !== 200) return 'Wrong PIN or token for this showing.';
  session = issued.body.session;
  device = issued.body.device;
  keepSignIn();
  return null;
}

// What the page knows of a showing whose ticket list the Worker no
// longer hands out (its door closed): enough to send the scans waiting.
function closedShowing(chosen, body) {
  const listed = listedShowings.find((s) => s.id === chosen) || { id: chosen, title: 'This showing', starts_at_ms: body.door_close_at_ms };
  const showing = Object.assign({}, listed, { door_close_at_ms: body.door_close_at_ms || listed.door_close_at_ms });
  return { showing, tickets: [], keys: [], conflicts: [], generated_at_ms: workerNow() };
}

// Signs in with the PIN or token `given`, or goes on with the session a
// reload of this tab kept (`kept`).
async function signIn(chosen, given, kept) {
  showingId = chosen;
  session = kept ? kept.session : null;
  device = kept ? kept.device : null;
  refusal = null;
  const error = document.getElementById('signin-error');
  if (!session) {
    const refused = await askSession(chosen, given);
    if (refused) { error.textContent = refused; return; }
  }
  const reply = await refreshManifest();
  if (reply && reply.status === 401) {
    // The kept session ended (a new PIN was drawn): sign in afresh.
    sessionStorage.removeItem('door-signin');
    session = null;
    error.textContent = 'This sign-in has ended (was a new PIN drawn?): sign in again.';
    return;
  }
  if (reply && reply.status === 409 && reply.body.error === 'door_not_open') {
    error.textContent = `This showing's ticket list opens at ${clockTime(reply.body.opens_at_ms)}.`;
    return;
  }
  if (!reply || reply.status !== 200) {
    const keptList = await store.get('manifests', chosen);
    if (keptList) useManifest(keptList);
    else if (reply && reply.status === 409) useManifest(closedShowing(chosen, reply.body));
    else { error.textContent = 'No network: sign in once with a network to fetch this showing\'s tickets.'; return; }
  }
  error.textContent = '';
  await startScanning();
}

async function scanWithCamera() {
  const video = document.getElementById('video');
  const stream = await navigator.mediaDevices.getUserMedia({ video: { facingMode: 'environment' } });
  video.srcObject = stream;
  video.hidden = false;
  await video.play();
  const detector = 'BarcodeDetector' in window ? new window.BarcodeDetector({ formats: ['qr_code'] }) : null;
  const canvas = document.createElement('canvas');
  let last = '';
  let lastSeen = 0;
  const SAME_CODE_MS = 1500;
  const frame = async () => {
    let text = null;
    if (detector) {
      const found = await detector.detect(video).catch(() => []);
      text = found.length ? found[0].rawValue : null;
    } else if (video.videoWidth) {
      canvas.width = video.videoWidth;
      canvas.height = video.videoHeight;
      const ctx = canvas.getContext('2d');
      ctx.drawImage(video, 0, 0);
      const found = window.jsQR(ctx.getImageData(0, 0, canvas.width, canvas.height).data, canvas.width, canvas.height);
      text = found ? found.data : null;
    }
    // A code held up stays in view for many frames and is checked once;
    // one shown again after it was out of view a moment is checked again
    // (a second person with a copy is turned away, not passed over).
    const now = Date.now();
    if (text && (text !== last || now - lastSeen > SAME_CODE_MS)) { last = text; lastSeen = now; await check(text); }
    else if (text) lastSeen = now;
    requestAnimationFrame(frame);
  };
  frame();
}

(async () => {
  if ('serviceWorker' in navigator) navigator.serviceWorker.register('/door-sw.js', { scope: '/door' }).catch(() => {});
  window.addEventListener('offline', goneOffline);
  const select = document.getElementById('showing');
  // Today's showings: from six hours before each one starts to six after,
  // so a device reloaded after the start still finds it. Offline, the
  // showings whose tickets this device keeps.
  let listed = null;
  window.setInterval(forgetPast, REFRESH_MS);
  try {
    const reply = await api('/api/door/showings');
    if (reply.status === 200) listed = reply.body.showings;
  } catch (_) { /* offline */ }
  await forgetPast();
  if (!listed) {
    offlineSince = Date.now();
    listed = (await store.all('manifests')).map((m) => m.showing);
  }
  listedShowings = listed;
  for (const s of listed) {
    const closes = `door closes ${clockTime(s.door_close_at_ms)}`;
    select.append(el('option', { value: s.id, text: `${s.title}, ${when(s.starts_at_ms)}${s.cancelled ? ' (cancelled)' : `, ${closes}`}` }));
  }
  document.getElementById('signin').addEventListener('submit', (event) => {
    event.preventDefault();
    const pin = document.getElementById('pin');
    const given = pin.value;
    // The PIN is sent once and not kept, not even in the form.
    pin.value = '';
    signIn(select.value, given, null);
  });
  document.getElementById('signout').addEventListener('click', async () => {
    // Scans not yet sent go only with this showing's sign-in: try first.
    if (showingId) await syncQueue();
    const { here } = await waitingScans();
    if (here && !window.confirm(`${here} scan${here === 1 ? ' is' : 's are'} not sent yet. They are kept on this device and sent when it signs into this showing again. Sign out?`)) return;
    sessionStorage.removeItem('door-signin');
    window.location.reload();
  });
  document.getElementById('find').addEventListener('submit', (event) => {
    event.preventDefault();
    findTickets(document.getElementById('find-text').value);
  });
  document.getElementById('manual').addEventListener('submit', async (event) => {
    event.preventDefault();
    // Cleared at once, so the next scan can be typed while this one is checked.
    const input = document.getElementById('code');
    const value = input.value;
    input.value = '';
    input.focus();
    await check(value);
  });
  document.getElementById('camera').addEventListener('click', () =>
    scanWithCamera().catch(() => resultBox.replaceChildren(el('div', { class: 'message error', role: 'alert', text: 'The camera could not be opened; type or scan the code instead.' }))));
  // A reload (with or without a network) goes on where this tab was.
  const before = JSON.parse(sessionStorage.getItem('door-signin') || 'null');
  // A sign-in kept before devices were named by their session is dropped.
  if (before && !(before.session && before.device)) sessionStorage.removeItem('door-signin');
  else if (before) await signIn(before.showingId, null, before);
})();
