// Stand-in for Square's Web Payments SDK (https://web.squarecdn.com/v1/square.js),
// served by the local Square stand-in. Same entry points as the real SDK:
//   const payments = Square.payments(applicationId, locationId);
//   const card = await payments.card();
//   await card.attach('#card-container');
//   const result = await card.tokenize(verificationDetails); // {status: 'OK', token: 'cnon:…'}
//   await card.destroy();
// The typed card goes to this script's own origin, which mints the token.
(function () {
  'use strict';

  // The stand-in that served this file; the page itself lives elsewhere.
  var script = document.currentScript;
  var standinOrigin = new URL(script && script.src ? script.src : '/', window.location.href).origin;
  var cardCount = 0;

  var FIELDS = [
    { name: 'card_number', label: 'Card number', autocomplete: 'cc-number', placeholder: '4111 1111 1111 1111', maxLength: 23 },
    { name: 'expiration', label: 'Expiry (MM/YY)', autocomplete: 'cc-exp', placeholder: 'MM/YY', maxLength: 5 },
    { name: 'cvv', label: 'CVV', autocomplete: 'cc-csc', placeholder: '111', maxLength: 4 },
    { name: 'postal_code', label: 'Postal code', autocomplete: 'postal-code', placeholder: '94103', maxLength: 12 }
  ];

  function failure(status, type, message) {
    return { status: status, errors: [{ type: type, message: message }] };
  }

  function Card(applicationId, locationId) {
    this._applicationId = applicationId;
    this._locationId = locationId;
    this._id = 'sq-standin-card-' + (++cardCount);
    this._form = null;
    this._inputs = {};
  }

  Card.prototype.attach = async function (target) {
    var container = typeof target === 'string' ? document.querySelector(target) : target;
    if (!container) {
      throw new Error('Square stand-in: attach() found no element for ' + target);
    }
    if (this._form) {
      throw new Error('Square stand-in: this card is already attached');
    }
    var form = document.createElement('div');
    form.setAttribute('role', 'group');
    form.setAttribute('aria-label', 'Card details');
    form.className = 'sq-standin-card';
    var self = this;
    FIELDS.forEach(function (field) {
      var id = self._id + '-' + field.name;
      var label = document.createElement('label');
      label.htmlFor = id;
      label.textContent = field.label;
      var input = document.createElement('input');
      input.id = id;
      input.name = field.name;
      input.type = 'text';
      input.inputMode = 'numeric';
      input.autocomplete = field.autocomplete;
      input.placeholder = field.placeholder;
      input.maxLength = field.maxLength;
      input.required = true;
      if (field.name === 'postal_code') {
        input.inputMode = 'text';
      }
      var row = document.createElement('div');
      row.appendChild(label);
      row.appendChild(input);
      form.appendChild(row);
      self._inputs[field.name] = input;
    });
    container.appendChild(form);
    this._form = form;
  };

  // The stand-in's own calls back to the server that served this file.
  async function post(path, body) {
    try {
      var answer = await fetch(standinOrigin + path, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body)
      });
      return await answer.json();
    } catch (error) {
      return failure('Error', 'UNKNOWN', 'The Square stand-in could not be reached: ' + error);
    }
  }

  // The issuer's challenge, as Square shows it in its own frame: a modal
  // asking for the code the bank sent. Resolves to the code, or null if the
  // buyer cancels.
  function challenge() {
    return new Promise(function (resolve) {
      var overlay = document.createElement('div');
      overlay.className = 'sq-standin-challenge';
      overlay.setAttribute('style', 'position:fixed;inset:0;background:rgba(0,0,0,.5);display:flex;align-items:center;justify-content:center;z-index:1000');
      var dialog = document.createElement('div');
      dialog.setAttribute('role', 'dialog');
      dialog.setAttribute('aria-modal', 'true');
      dialog.setAttribute('aria-labelledby', 'sq-standin-challenge-title');
      dialog.setAttribute('style', 'background:#fff;color:#222;padding:1rem;border-radius:8px;max-width:20rem');
      var title = document.createElement('h2');
      title.id = 'sq-standin-challenge-title';
      title.textContent = 'Verify this payment';
      var text = document.createElement('p');
      text.textContent = 'Your bank sent you a code. (Sandbox: 123456.)';
      var label = document.createElement('label');
      label.htmlFor = 'sq-standin-challenge-code';
      label.textContent = 'Verification code';
      var input = document.createElement('input');
      input.id = 'sq-standin-challenge-code';
      input.inputMode = 'numeric';
      input.autocomplete = 'one-time-code';
      var submit = document.createElement('button');
      submit.type = 'button';
      submit.textContent = 'Verify';
      var cancel = document.createElement('button');
      cancel.type = 'button';
      cancel.textContent = 'Cancel verification';
      function close(code) {
        overlay.parentNode.removeChild(overlay);
        resolve(code);
      }
      submit.addEventListener('click', function () { close(input.value); });
      cancel.addEventListener('click', function () { close(null); });
      [title, text, label, input, submit, cancel].forEach(function (node) { dialog.appendChild(node); });
      overlay.appendChild(dialog);
      document.body.appendChild(overlay);
      input.focus();
    });
  }

  // tokenize(verificationDetails): with the details, a card whose issuer
  // asks for Strong Customer Authentication is verified here (after a
  // challenge for some cards); a cancelled challenge answers status
  // 'Cancel'. Without them, the token is unverified and such a card is
  // declined when charged.
  Card.prototype.tokenize = async function (verificationDetails) {
    if (!this._form) {
      return failure('Error', 'UNKNOWN', 'attach() must be called before tokenize()');
    }
    var body = { application_id: this._applicationId, location_id: this._locationId };
    if (verificationDetails !== undefined) {
      body.verification_details = verificationDetails;
    }
    var inputs = this._inputs;
    Object.keys(inputs).forEach(function (name) {
      body[name] = inputs[name].value;
    });
    var result = await post('/_sdk/tokenize', body);
    if (result.status !== 'CHALLENGE') {
      return result;
    }
    var code = await challenge();
    if (code === null) {
      return failure('Cancel', 'VERIFICATION_CANCELED', 'The buyer canceled the verification.');
    }
    return post('/_sdk/verify', { challenge_id: result.challenge_id, code: code });
  };

  Card.prototype.destroy = async function () {
    if (this._form && this._form.parentNode) {
      this._form.parentNode.removeChild(this._form);
    }
    this._form = null;
    this._inputs = {};
    return true;
  };

  function payments(applicationId, locationId) {
    if (!applicationId || !locationId) {
      throw new Error('Square stand-in: payments() needs an application id and a location id');
    }
    return {
      card: async function () {
        return new Card(applicationId, locationId);
      }
    };
  }

  window.Square = { payments: payments };
})();
