/* glue.js — runs the live widgets of the book on libscale compiled to WebAssembly.
 *
 * No framework and no build step: this file, scale-wasm.js (the module as base64, written by
 * the build) and one small widget-NAME.js per widget. The renderer (src/book) turns each
 * ```{widget} NAME``` block of a chapter into
 *
 *   <div class="widget" id="widget-NAME" data-widget="NAME" data-state="k=v&...">
 *     <div class="widget-fallback"> the static figure, for readers without script and print </div>
 *   </div>
 *
 * and loads the scripts at the end of the page. Each widget-NAME.js calls Scale.widget(NAME,
 * spec) with its controls, the module export that evaluates them, and the outputs to show;
 * this file builds the form, keeps the state in the URL hash (#widget-NAME?k=v&...), and on
 * every input change calls the export and fills in the answer. web/README.md has the recipe.
 */
(function () {
  'use strict';

  /* ---- the module ------------------------------------------------------------------------- */

  var WASI_EBADF = 8, WASI_ENOSYS = 52;
  var wasm = null; /* the instance's exports once loaded */

  function bytes() { return new Uint8Array(wasm.memory.buffer); }

  /* The WASI functions wasi-libc imports. libscale prints nothing and opens no file (its
   * fopen reads embedded data), so everything but a few harmless calls answers ENOSYS; the
   * list comes from the module itself, so a new import cannot break the load. */
  function wasiImports(module) {
    var imp = {};
    WebAssembly.Module.imports(module).forEach(function (i) {
      if (i.module === 'wasi_snapshot_preview1') imp[i.name] = function () { return WASI_ENOSYS; };
    });
    var view = function () { return new DataView(wasm.memory.buffer); };
    imp.fd_prestat_get = function () { return WASI_EBADF; }; /* no preopened folders */
    imp.environ_sizes_get = imp.args_sizes_get = function (count, size) {
      view().setUint32(count, 0, true);
      view().setUint32(size, 0, true);
      return 0;
    };
    imp.environ_get = imp.args_get = function () { return 0; };
    imp.clock_time_get = function (id, precision, out) {
      view().setBigUint64(out, BigInt(Math.round(performance.now() * 1e6)), true);
      return 0;
    };
    imp.fd_write = function (fd, iovs, n, written) { /* stderr, if ever: to the console */
      var text = '', v = view();
      for (var k = 0; k < n; k++) {
        var p = v.getUint32(iovs + 8 * k, true), len = v.getUint32(iovs + 8 * k + 4, true);
        text += new TextDecoder().decode(bytes().subarray(p, p + len));
      }
      v.setUint32(written, text.length, true);
      if (text.trim()) console.warn('scale module: ' + text.trim());
      return 0;
    };
    imp.proc_exit = function (code) { throw new Error('scale module exited with ' + code); };
    return imp;
  }

  function load() {
    if (typeof SCALE_WASM_BASE64 !== 'string') return Promise.reject(new Error('no module'));
    var bin = atob(SCALE_WASM_BASE64), buf = new Uint8Array(bin.length);
    for (var i = 0; i < bin.length; i++) buf[i] = bin.charCodeAt(i);
    return WebAssembly.compile(buf).then(function (module) {
      return WebAssembly.instantiate(module, { wasi_snapshot_preview1: wasiImports(module) });
    }).then(function (instance) {
      wasm = instance.exports;
      wasm._initialize(); /* a WASI reactor: run the C constructors once */
    });
  }

  /* The query string of a state: "k=v&k=v" in the order of the keys given. */
  function query(state) {
    return Object.keys(state).map(function (k) { return k + '=' + state[k]; }).join('&');
  }

  /* Calls export 'fn' with 'state' (api.h: the request in, JSON out); returns the answer,
   * which has .error when the module refused the input. */
  function call(fn, state) {
    var req = new TextEncoder().encode(query(state));
    if (req.length >= wasm.scale_web_in_size()) return { error: 'request too long' };
    var at = wasm.scale_web_in();
    bytes().set(req, at);
    bytes()[at + req.length] = 0;
    wasm[fn]();
    var out = wasm.scale_web_out(); /* memory may have grown: take a fresh view */
    return JSON.parse(new TextDecoder().decode(bytes().subarray(out, out + wasm.scale_web_out_len())));
  }

  /* ---- widgets ---------------------------------------------------------------------------- */

  var specs = {};   /* NAME -> spec, from Scale.widget() */
  var lists = null; /* {hardware: [{name, display}], models: [...]} */

  function el(tag, attrs, text) {
    var e = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) { e.setAttribute(k, attrs[k]); });
    if (text !== undefined) e.textContent = text;
    return e;
  }

  /* A number control: a slider over powers of two (log2) when c.pow2, else linear, beside a
   * box for any exact value. Both write state[c.key]. */
  function numberControl(c, w, row) {
    var range = el('input', { type: 'range', 'data-key': c.key, 'aria-label': c.label });
    var box = el('input', { type: 'number', 'data-key': c.key, min: c.min, max: c.max,
                            step: c.step || 1, 'aria-label': c.label + ' (exact)' });
    var toSlider = c.pow2 ? function (v) { return Math.round(Math.log2(v)); } : Number;
    var fromSlider = c.pow2 ? function (s) { return Math.pow(2, s); } : Number;
    range.min = toSlider(c.min);
    range.max = toSlider(c.max);
    range.step = c.pow2 ? 1 : (c.step || 1);
    function show(v) { range.value = toSlider(v); box.value = v; }
    range.addEventListener('input', function () {
      var v = fromSlider(Number(range.value));
      box.value = v;
      w.set(c.key, v);
    });
    box.addEventListener('change', function () { range.value = toSlider(Number(box.value)); w.set(c.key, box.value); });
    row.appendChild(range);
    row.appendChild(box);
    return show;
  }

  function selectControl(c, w, row) {
    var sel = el('select', { 'data-key': c.key, 'aria-label': c.label });
    var opts = typeof c.options === 'string' ? lists[c.options] : c.options.map(function (o) {
      return typeof o === 'string' ? { name: o, display: o } : o;
    });
    opts.forEach(function (o) { sel.appendChild(el('option', { value: o.name }, o.display)); });
    sel.addEventListener('change', function () { w.set(c.key, sel.value); });
    row.appendChild(sel);
    return function (v) { sel.value = v; };
  }

  /* State from "k=v&k=v" (plain tokens only: anything else is dropped). */
  function parseState(text, into) {
    (text || '').split('&').forEach(function (kv) {
      var m = /^([A-Za-z0-9_]+)=([A-Za-z0-9.+_-]+)$/.exec(kv);
      if (m) into[m[1]] = m[2];
    });
    return into;
  }

  function Widget(root, spec) {
    var w = this;
    this.root = root;
    this.spec = spec;
    this.state = {};
    spec.controls.forEach(function (c) { w.state[c.key] = String(c.value); });
    parseState(root.getAttribute('data-state'), this.state);
    var h = location.hash, prefix = '#' + root.id + '?';
    this.fromHash = h.indexOf(prefix) === 0;
    if (this.fromHash) parseState(decodeURIComponent(h.slice(prefix.length)), this.state);

    var live = el('div', { class: 'widget-live' });
    live.appendChild(el('p', { class: 'widget-title' }, spec.title));
    var form = el('div', { class: 'widget-controls' });
    this.show = {};
    spec.controls.forEach(function (c) {
      var row = el('label', { class: 'widget-control' });
      row.appendChild(el('span', { class: 'widget-label' }, c.label));
      w.show[c.key] = c.type === 'select' ? selectControl(c, w, row) : numberControl(c, w, row);
      form.appendChild(row);
    });
    live.appendChild(form);
    this.error = el('p', { class: 'widget-error', role: 'alert' });
    live.appendChild(this.error);
    var dl = el('dl', { class: 'widget-outputs' });
    this.outputs = {};
    spec.outputs.forEach(function (o) {
      dl.appendChild(el('dt', {}, o.label));
      var dd = el('dd');
      w.outputs[o.key] = dd.appendChild(el('output', { 'data-key': o.key }));
      dl.appendChild(dd);
    });
    live.appendChild(dl);
    this.note = el('p', { class: 'widget-note' });
    live.appendChild(this.note);
    this.plot = el('div', { class: 'widget-plot' });
    live.appendChild(this.plot);
    root.insertBefore(live, root.firstChild);
    root.classList.add('live');
    Object.keys(this.show).forEach(function (k) { w.show[k](w.state[k]); });
    this.update();
  }

  Widget.prototype.set = function (key, value) {
    this.state[key] = String(value);
    history.replaceState(null, '', '#' + this.root.id + '?' + query(this.state));
    this.update();
  };

  /* One evaluation: call the export, fill the outputs; its time goes into data-update-ms. */
  Widget.prototype.update = function () {
    var t0 = performance.now(), w = this;
    var r = call(this.spec.export, this.state);
    this.error.textContent = r.error || '';
    this.root.classList.toggle('failed', !!r.error);
    Object.keys(this.outputs).forEach(function (k) {
      var o = w.outputs[k], ok = !r.error && r[k] !== undefined && r[k] !== null;
      o.textContent = ok ? (r[k + '_text'] !== undefined ? r[k + '_text'] : r[k]) : '—';
      o.setAttribute('data-value', ok ? r[k] : '');
    });
    this.plot.innerHTML = !r.error && r.svg ? r.svg : '';
    this.note.textContent = !r.error && this.spec.note ? this.spec.note(r, this.state) : '';
    this.root.setAttribute('data-update-ms', (performance.now() - t0).toFixed(3));
    this.root.setAttribute('data-updates', Number(this.root.getAttribute('data-updates') || 0) + 1);
    return r;
  };

  /* ---- start ------------------------------------------------------------------------------ */

  var Scale = window.Scale = {
    /** Registers widget NAME: {title, export, controls: [{key, label, type: 'select'|'number',
     * options: 'hardware'|'models'|[...], value, min, max, pow2}], outputs: [{key, label}],
     * note(answer, state) -> text}. */
    widget: function (name, spec) { specs[name] = spec; },
    /** The module's answer for export 'fn' and a state object (for tests and the console). */
    call: function (fn, state) { return call(fn, state); },
    widgets: {},
    ready: null
  };

  function start() {
    var roots = document.querySelectorAll('div.widget[data-widget]');
    if (!roots.length) return Promise.resolve();
    var link = el('link', { rel: 'stylesheet', href: 'web/widgets.css' });
    document.head.appendChild(link);
    return load().then(function () {
      lists = call('scale_web_list', {});
      var target = null;
      Array.prototype.forEach.call(roots, function (root) {
        var spec = specs[root.getAttribute('data-widget')];
        if (!spec) return; /* its script did not load: the static figure stays */
        var w = Scale.widgets[root.id] = new Widget(root, spec);
        if (w.fromHash) target = root;
      });
      if (target) target.scrollIntoView();
      /* A link to another setting on the same page (the reader pastes or follows one). */
      window.addEventListener('hashchange', function () {
        var m = /^#([A-Za-z0-9_-]+)\?(.*)$/.exec(location.hash), w = m && Scale.widgets[m[1]];
        if (!w) return;
        parseState(decodeURIComponent(m[2]), w.state);
        Object.keys(w.show).forEach(function (k) { w.show[k](w.state[k]); });
        w.update();
        w.root.scrollIntoView();
      });
      document.documentElement.setAttribute('data-widgets-ready', 'true');
    }, function (e) {
      console.warn('scale: widgets off (' + e.message + '); the static figures stay');
    });
  }

  Scale.ready = new Promise(function (resolve) {
    if (document.readyState === 'loading')
      document.addEventListener('DOMContentLoaded', function () { start().then(resolve); });
    else
      start().then(resolve);
  });
})();
