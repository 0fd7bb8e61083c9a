// The listing: every showing on sale, grouped by film, then by day.
(async () => {
  const { status, body } = await api('/api/showings');
  const list = document.getElementById('showings');
  if (status !== 200) return say(document.getElementById('messages'), 'error', body.detail || 'Showings could not be loaded.');
  if (!body.showings.length) return say(document.getElementById('messages'), 'info', 'Nothing is on sale right now.');
  // Said once, above the list, where prices are first read.
  const taxNote = taxSentence(body.tax);
  if (taxNote) Object.assign(document.getElementById('tax-note'), { hidden: false, textContent: taxNote });
  // Grouped by film (its poster and details once), then by the
  // cinema's local date, soonest first.
  const groups = new Map();
  for (const s of body.showings) {
    const key = s.film_id || `title:${s.title}`;
    if (!groups.has(key)) groups.set(key, { film: (body.films || {})[s.film_id], title: s.title, days: new Map() });
    const day = localParts(s.starts_at_ms, { weekday: 'long', day: 'numeric', month: 'long' });
    const days = groups.get(key).days;
    if (!days.has(day)) days.set(day, []);
    days.get(day).push(s);
  }
  for (const group of groups.values()) {
    const film = group.film;
    const facts = film ? [film.certificate, film.runtime_minutes ? `${film.runtime_minutes} min` : ''].filter(Boolean).join(' · ') : '';
    list.append(el('li', { class: 'film' }, [
      film && film.poster_url ? el('img', { class: 'poster', src: film.poster_url, alt: `Poster of ${group.title}`, width: '120', loading: 'lazy' }) : '',
      el('h2', { text: film ? film.title : group.title }),
      facts ? el('p', { class: 'muted', text: facts }) : '',
      film && film.synopsis ? el('p', { class: 'synopsis', text: film.synopsis }) : '',
      ...[...group.days].flatMap(([day, showings]) => [
        el('h3', { text: day }),
        el('ul', { class: 'times' }, showings.map((s) => {
          const left = s.cancelled ? 'Cancelled'
            : salesText(s.sales) || (s.seats_available === 0 ? 'Sold out'
            : s.seats_available === null ? '' : `${s.seats_available} of ${s.seat_count} seats left`);
          return el('li', {}, [
            el('a', { href: '/showings/' + s.id, 'aria-label': `${s.title}, ${when(s.starts_at_ms)}`, text: when(s.starts_at_ms) }),
            el('div', { class: s.cancelled ? 'cancelled' : 'muted', text: `${when(s.starts_at_ms)} · ${pricesText(s)} · ${left}` }),
          ]);
        })),
      ]),
    ]));
  }
})();
