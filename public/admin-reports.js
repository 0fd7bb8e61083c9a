// The reports page: a cinema week's distributor return (printable, and as
// CSV), the occupancy of its showings and its sales by day as charts, a
// showing's sales over time against its seats, and a day's summary. Each
// chart is plain SVG with its numbers in a table beside it, so a screen
// reader (and the printout) has them too. Loaded after app.js and admin.js.
'use strict';

const messages = document.getElementById('messages');
const SVG = 'http://www.w3.org/2000/svg';

function svg(tag, attrs, children) {
  const node = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (key === 'text') node.textContent = value;
    else node.setAttribute(key, value);
  }
  for (const child of children || []) node.append(child);
  return node;
}

// The cinema's date today, as YYYY-MM-DD.
function today() {
  return new Intl.DateTimeFormat('en-CA', { timeZone: VENUE_ZONE, year: 'numeric', month: '2-digit', day: '2-digit' }).format(Date.now());
}

let chartCount = 0;
// Drawn at about a phone's width, so its text reads at its own size there
// and larger on a wider screen.
const WIDTH = 360;

// An SVG that names itself: its title and description are what a screen
// reader announces; the table after it holds every number.
function chartSvg(title, description, height, children) {
  chartCount += 1;
  const id = `chart-${chartCount}`;
  return svg('svg', { viewBox: `0 0 ${WIDTH} ${height}`, role: 'img', 'aria-labelledby': `${id}-title ${id}-desc`, class: 'chart-svg', preserveAspectRatio: 'xMinYMin meet' }, [
    svg('title', { id: `${id}-title`, text: title }),
    svg('desc', { id: `${id}-desc`, text: description }),
    ...children,
  ]);
}

// Horizontal bars, one a row (which fits a phone): each item's label
// above its bar against `max`, and its figure beside the bar.
function barChart(title, description, items, max) {
  const row = 42;
  const barWidth = 200;
  const bars = items.map((item, i) => {
    const y = i * row;
    const width = max > 0 ? Math.round((Math.min(item.value, max) / max) * barWidth) : 0;
    return svg('g', { class: 'bar' }, [
      svg('text', { x: 0, y: y + 14, class: 'chart-label', text: item.label }),
      svg('rect', { x: 0, y: y + 20, width: barWidth, height: 16, class: 'chart-track' }),
      svg('rect', { x: 0, y: y + 20, width, height: 16, class: 'chart-bar', 'data-value': item.value }),
      svg('text', { x: barWidth + 8, y: y + 33, class: 'chart-figure', text: item.figure }),
    ]);
  });
  return chartSvg(title, description, Math.max(row, items.length * row), bars);
}

// A table as wide as it needs, scrolling inside the page on a phone; the
// keyboard can reach it to scroll it, and it is named by its caption.
function wrapped(node, label) {
  return el('div', { class: 'table-wrap', tabindex: '0', role: 'region', 'aria-label': label }, [node]);
}

function showChart(figure, chart, caption, headings, rows) {
  figure.replaceChildren(chart, wrapped(table(headings, rows, caption), caption));
}

function amount(value, currency) {
  return minor(value, currency);
}

function returnTable(report) {
  const currency = report.currency || 'USD';
  const rows = [];
  for (const film of report.films) {
    for (const showing of film.showings) {
      for (const c of showing.categories) {
        rows.push([film.film, showing.starts_at, c.name, String(c.admissions), amount(c.gross, currency), amount(c.tax, currency), amount(c.net, currency)]);
      }
      if (showing.comps) rows.push([film.film, showing.starts_at, 'Comps', String(showing.comps), '', '', '']);
    }
    if (film.refunds.tickets) {
      const r = film.refunds;
      rows.push([film.film, '', 'Refunds', `−${r.tickets}`, amount(-r.gross, currency), amount(-r.tax, currency), amount(-r.net, currency)]);
    }
    rows.push([film.film, '', 'Total', String(film.admissions), amount(film.gross, currency), amount(film.tax, currency), amount(film.net, currency)]);
  }
  if (!rows.length) return el('p', { class: 'muted', text: 'Nothing played or was refunded this week.' });
  return table(['Film', 'Showing', 'Price', 'Admissions', 'Gross', 'Tax', 'Net'], rows, 'Each film\'s showings by price, its refunds this week, and its total');
}

function showOccupancy(report) {
  const figure = document.getElementById('occupancy');
  const showings = report.films.flatMap((film) => film.showings.map((s) => ({ film: film.film, ...s })));
  showings.sort((a, b) => a.starts_at.localeCompare(b.starts_at));
  if (!showings.length) return figure.replaceChildren(el('p', { class: 'muted', text: 'No showings this week.' }));
  const items = showings.map((s) => {
    const seated = s.admissions + s.comps;
    const share = s.capacity ? Math.round((100 * seated) / s.capacity) : 0;
    return { label: `${s.film}, ${s.starts_at.slice(5, 16)}`, value: seated, max: s.capacity, figure: `${seated} of ${s.capacity} (${share}%)` };
  });
  // Each bar against its own showing's seats: scaled to 100 %.
  const scaled = items.map((i) => ({ ...i, value: i.max ? (100 * i.value) / i.max : 0 }));
  showChart(figure, barChart('Occupancy of the week\'s showings', `Seats taken of each showing's ${showings.length === 1 ? 'seats' : 'seats, for ' + showings.length + ' showings'}.`, scaled, 100),
    'Seats taken (admissions and comps) of each showing', ['Showing', 'Seats taken', 'Seats', 'Occupancy'],
    items.map((i) => [i.label, String(i.value), String(i.max), `${i.max ? Math.round((100 * i.value) / i.max) : 0}%`]));
}

function showDays(sales) {
  const figure = document.getElementById('days');
  const currency = sales.currency;
  const max = Math.max(1, ...sales.days.map((d) => d.tickets));
  const items = sales.days.map((d) => ({ label: d.date, value: d.tickets, figure: `${d.tickets} · ${amount(d.gross, currency)}` }));
  showChart(figure, barChart('Tickets sold each day', `Tickets sold on each day from ${sales.from} to ${sales.to}.`, items, max),
    'Each day\'s tickets, gross, tax and net, and the money through Square', ['Day', 'Tickets', 'Gross', 'Tax', 'Net', 'Captured', 'Refunded', 'Square net'],
    sales.days.map((d) => [d.date, String(d.tickets), amount(d.gross, currency), amount(d.tax, currency), amount(d.net, currency),
      amount(d.square.captured, currency), amount(d.square.refunded, currency), amount(d.square.net, currency)]));
  const named = (rows) => rows.map((r) => [r.name, String(r.tickets), amount(r.gross, currency), amount(r.tax, currency), amount(r.net, currency)]);
  document.getElementById('channels').replaceChildren(
    table(['Channel', 'Tickets', 'Gross', 'Tax', 'Net'], named(sales.by_channel), 'By channel'),
    table(['Price', 'Tickets', 'Gross', 'Tax', 'Net'], named(sales.by_category), 'By price'));
}

// Tickets sold over time as a step line, against the showing's seats.
async function showCurve(showingId) {
  const figure = document.getElementById('curve');
  if (!showingId) return figure.replaceChildren(el('p', { class: 'muted', text: 'No showings this week.' }));
  const { status, body } = await adminApi(`/api/admin/showings/${encodeURIComponent(showingId)}/sales-curve`);
  if (status !== 200) return say(messages, 'error', body.detail || 'The showing\'s sales could not be loaded.');
  const points = body.points;
  const [left, top, width, height] = [56, 10, WIDTH - 66, 180];
  const start = body.created_at_ms;
  const end = Math.max(start + 1, Math.min(body.starts_at_ms, Date.now()), ...points.map((p) => p.at_ms));
  const top_ = Math.max(1, body.capacity, ...points.map((p) => p.tickets));
  const x = (ms) => left + Math.round(((ms - start) / (end - start)) * width);
  const y = (n) => top + height - Math.round((n / top_) * height);
  let path = `M ${x(start)} ${y(0)}`;
  for (const p of points) path += ` H ${x(p.at_ms)} V ${y(p.tickets)}`;
  path += ` H ${x(end)}`;
  const sold = points.length ? points[points.length - 1].tickets : 0;
  const chart = chartSvg(`Sales over time: ${body.title}`, `${sold} of ${body.capacity} seats sold, from the showing's creation to ${when(end)}.`, top + height + 44, [
    svg('line', { x1: left, y1: y(body.capacity), x2: left + width, y2: y(body.capacity), class: 'chart-capacity' }),
    svg('text', { x: 0, y: y(body.capacity) + 4, class: 'chart-label', text: `${body.capacity}` }),
    svg('text', { x: 0, y: y(0) + 4, class: 'chart-label', text: '0' }),
    svg('path', { d: path, class: 'chart-line', 'data-points': points.length }),
    svg('text', { x: left, y: top + height + 20, class: 'chart-label', text: when(start) }),
    svg('text', { x: left + width, y: top + height + 38, class: 'chart-label', 'text-anchor': 'end', text: when(end) }),
  ]);
  const numbers = table(['Sold by', 'Tickets'], points.map((p) => [when(p.at_ms), String(p.tickets)]), `Tickets sold over time, of ${body.capacity} seats`);
  const details = el('details', {}, [el('summary', { text: 'The numbers' }), wrapped(numbers, 'Tickets sold over time')]);
  figure.replaceChildren(chart, details);
}

async function showWeek(date) {
  const ret = await adminApi(`/api/admin/reports/distributor?week=${encodeURIComponent(date)}`);
  if (ret.status !== 200) return say(messages, 'error', ret.body.detail || 'The week could not be loaded.');
  const report = ret.body;
  const { from, to } = report.week;
  document.getElementById('week-range').textContent = `The cinema week from ${from} to ${to}.`;
  document.getElementById('return-csv').href = `/api/admin/reports/distributor?week=${from}&format=csv`;
  document.getElementById('sales-csv').href = `/api/admin/reports/sales?from=${from}&to=${to}&format=csv`;
  document.getElementById('return').replaceChildren(returnTable(report));
  showOccupancy(report);
  const sales = await adminApi(`/api/admin/reports/sales?from=${from}&to=${to}`);
  if (sales.status !== 200) return say(messages, 'error', sales.body.detail || 'The week\'s sales could not be loaded.');
  showDays(sales.body);
  const select = document.getElementById('curve-showing');
  const showings = report.films.flatMap((film) => film.showings.map((s) => ({ id: s.id, label: `${film.film}, ${s.starts_at}` })));
  select.replaceChildren(...showings.map((s) => el('option', { value: s.id, text: s.label })));
  await showCurve(showings.length ? showings[0].id : null);
}

async function showDay(date) {
  const out = document.getElementById('daily');
  const { status, body } = await adminApi(`/api/admin/reports/daily?date=${encodeURIComponent(date)}`);
  if (status !== 200) return say(out, 'error', body.detail || 'The day could not be loaded.');
  const c = body.currency;
  const rows = [
    ['Captured through Square', amount(body.captured, c), amount(body.square.captured, c)],
    ['Refunded', amount(body.refunded, c), ''],
    ['Net', amount(body.net, c), ''],
  ];
  out.replaceChildren(
    table(['', 'Sales report', 'Square lists'], rows, `${body.date}: ${body.tickets} tickets sold`),
    el('p', { class: body.agrees ? 'ok' : 'error', text: body.agrees ? 'Square agrees to the minor unit.' : `Square differs on ${body.square.differences.length} orders.` }));
}

(async () => {
  if (!(await requireSession())) return;
  document.getElementById('signout').addEventListener('click', signOut);
  document.getElementById('print').addEventListener('click', () => window.print());
  const params = new URLSearchParams(location.search);
  const weekDate = document.getElementById('week-date');
  const dayDate = document.getElementById('daily-date');
  weekDate.value = params.get('week') || today();
  dayDate.value = params.get('day') || today();
  document.getElementById('week-form').addEventListener('submit', (e) => { e.preventDefault(); showWeek(weekDate.value); });
  document.getElementById('daily-form').addEventListener('submit', (e) => { e.preventDefault(); showDay(dayDate.value); });
  document.getElementById('curve-showing').addEventListener('change', (e) => showCurve(e.target.value));
  await Promise.all([showWeek(weekDate.value), showDay(dayDate.value)]);
})();
