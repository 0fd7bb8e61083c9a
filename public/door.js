// The door scanner: a camera (BarcodeDetector where the browser has it,
// otherwise the jsQR decoder served with the page), a handheld scanner that
// types the code and presses Enter, or typing. Each scan shows one large,
// unmistakable result and the running count.
'use strict';

let showingId = null;
let credential = null;
// Scans are checked one after another, in the order they came: a fast
// handheld scanner never has a scan dropped.
let queue = Promise.resolve();
const resultBox = document.getElementById('result');

function headers() {
  return /^\d{4,12}$/.test(credential) ? { 'x-door-pin': credential } : { authorization: 'Bearer ' + credential };
}

const outcomes = {
  admitted: (r) => ['admitted', 'Admitted', `Seat ${r.seat}`],
  already_checked_in: (r) => ['warn', `Already scanned at ${clockTime(r.checked_in_at_ms)}`, `Seat ${r.seat}`],
  void: (r) => ['refused', 'Refunded: not valid', `Seat ${r.seat}`],
  wrong_showing: (r) => ['refused', 'Wrong showing', `Seat ${r.seat} is for another showing`],
  door_closed: (r) => ['refused', 'Door closed', `Admission ended at ${clockTime(r.door_close_at_ms)}`],
  invalid: () => ['refused', 'Invalid ticket', 'Not one of ours, or altered'],
};

function check(code) {
  queue = queue.then(() => checkNow(code)).catch(() => {
    resultBox.replaceChildren(el('div', { class: 'result refused', role: 'status', text: 'No connection: scan again' }));
  });
  return queue;
}

async function checkNow(code) {
  if (!code.trim()) return;
  {
    const { status, body } = await api('/api/door/checkin', {
      json: { code: code.trim(), showing_id: showingId, device: navigator.userAgent.slice(0, 60) },
      headers: headers(),
    });
    if (status === 401) {
      resultBox.replaceChildren(el('div', { class: 'result refused', role: 'status', text: 'Wrong PIN or token' }));
      return;
    }
    if (status === 429) {
      resultBox.replaceChildren(el('div', { class: 'result refused', role: 'status' }, ['PIN locked',
        el('small', { text: 'Too many wrong PINs for this showing. Wait ten minutes, or sign in with the staff door token.' })]));
      return;
    }
    const [kind, title, detail] = (outcomes[body.result] || outcomes.invalid)(body);
    resultBox.replaceChildren(el('div', { class: 'result ' + kind, role: 'status' }, [title, el('small', { text: detail })]));
    document.getElementById('count').textContent = `Admitted ${body.admitted} of ${body.sold} sold`;
  }
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
    if (text && text !== last) { last = text; await check(text); }
    requestAnimationFrame(frame);
  };
  frame();
}

(async () => {
  // Today's showings: from six hours before each one starts to six after,
  // so a device reloaded after the start still finds it.
  const { body } = await api('/api/door/showings');
  const select = document.getElementById('showing');
  for (const s of body.showings || []) {
    const closes = `door closes ${clockTime(s.door_close_at_ms)}`;
    select.append(el('option', { value: s.id, text: `${s.title}, ${when(s.starts_at_ms)}${s.cancelled ? ' (cancelled)' : `, ${closes}`}` }));
  }
  document.getElementById('signin').addEventListener('submit', (event) => {
    event.preventDefault();
    showingId = select.value;
    credential = document.getElementById('pin').value;
    document.getElementById('signin').hidden = true;
    document.getElementById('scanner').hidden = false;
    document.getElementById('code').focus();
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
})();
