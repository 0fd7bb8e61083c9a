// A stand-in of Cloudflare Turnstile's api.js (explicit rendering), for
// tests of the pages: render() shows a small box and, a moment later, hands
// the callback the token Cloudflare's test sitekeys give
// (XXXX.DUMMY.TOKEN.XXXX), which the siteverify stand-in accepts with the
// always-passes test secret. getResponse() and reset() behave like the
// real ones: a reset widget solves again and gives a fresh token.
(function () {
  'use strict';
  const DUMMY = 'XXXX.DUMMY.TOKEN.XXXX';
  const widgets = new Map();
  let next = 0;
  function solve(id) {
    setTimeout(() => {
      const widget = widgets.get(id);
      if (!widget) return;
      widget.token = DUMMY;
      widget.box.textContent = 'Success (test widget)';
      if (typeof widget.options.callback === 'function') widget.options.callback(DUMMY);
    }, 100);
  }
  window.turnstile = {
    render(container, options) {
      const parent = typeof container === 'string' ? document.querySelector(container) : container;
      if (!parent || !options || !options.sitekey) throw new Error('turnstile.render needs a container and a sitekey');
      const box = document.createElement('div');
      box.className = 'turnstile-standin';
      box.textContent = 'Verifying (test widget)';
      parent.append(box);
      const id = `standin-${next++}`;
      widgets.set(id, { options, box, token: '' });
      solve(id);
      return id;
    },
    getResponse(id) {
      const widget = widgets.get(id);
      return widget ? widget.token || undefined : undefined;
    },
    reset(id) {
      const widget = widgets.get(id);
      if (!widget) return;
      widget.token = '';
      widget.box.textContent = 'Verifying (test widget)';
      solve(id);
    },
    remove(id) {
      const widget = widgets.get(id);
      if (widget) widget.box.remove();
      widgets.delete(id);
    },
  };
})();
