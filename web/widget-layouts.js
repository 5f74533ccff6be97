/* widget-layouts.js — the training layout explorer of chapters 6 and 12: a model, a chip, a
 * chip count, a batch, a sequence length and a token budget; the planner ranks every layout
 * (scale_web_layouts_search, `scale plan train --json`), and the reader edits one layout's
 * degrees (scale_web_layout, `scale train --json`) to see what it costs, why it is slower
 * than the best, or why it does not fit. Both use the calibrated step model.
 *
 * The search takes up to seconds, so it runs in a Web Worker with its own copy of the module
 * (a data: script: file:// pages cannot load worker files); the page stays responsive and the
 * table fills in when the answer comes. Without workers it runs on the page, once per change
 * of the problem. Clicking a ranked layout loads it into the editor. */
(function () {
  'use strict';
  var ID = 'widget-layouts';
  var SEARCH_KEYS = ['model', 'hw', 'chips', 'batch', 'seq', 'tokens', 'objective'];

  /* ---- the search, off the page's thread --------------------------------------------------- */

  /* The worker's whole program: the WASI calls the module imports (as glue.js answers them),
   * then one search per message. Serialized with toString() into a data: URL. */
  function workerMain() {
    var wasm = null;
    function view() { return new DataView(wasm.memory.buffer); }
    function imports(module) {
      var imp = {};
      WebAssembly.Module.imports(module).forEach(function (i) {
        if (i.module === 'wasi_snapshot_preview1') imp[i.name] = function () { return 52; };
      });
      imp.fd_prestat_get = function () { return 8; };
      imp.environ_sizes_get = imp.args_sizes_get = function (c, s) {
        view().setUint32(c, 0, true); view().setUint32(s, 0, true); return 0;
      };
      imp.environ_get = imp.args_get = function () { return 0; };
      imp.clock_time_get = function (id, p, out) {
        view().setBigUint64(out, BigInt(Math.round(performance.now() * 1e6)), true); return 0;
      };
      imp.fd_write = function (fd, iovs, n, written) { view().setUint32(written, 0, true); return 0; };
      return imp;
    }
    self.onmessage = function (e) {
      var m = e.data;
      if (m.base64) {
        var bin = atob(m.base64), buf = new Uint8Array(bin.length);
        for (var i = 0; i < bin.length; i++) buf[i] = bin.charCodeAt(i);
        var module = new WebAssembly.Module(buf);
        wasm = new WebAssembly.Instance(module, { wasi_snapshot_preview1: imports(module) }).exports;
        wasm._initialize();
        return;
      }
      var req = new TextEncoder().encode(m.query), at = wasm.scale_web_in();
      new Uint8Array(wasm.memory.buffer).set(req, at);
      new Uint8Array(wasm.memory.buffer)[at + req.length] = 0;
      wasm.scale_web_layouts_search();
      var out = wasm.scale_web_out();
      self.postMessage({ seq: m.seq, answer: new TextDecoder().decode(
        new Uint8Array(wasm.memory.buffer).slice(out, out + wasm.scale_web_out_len())) });
    };
  }

  var worker = null, busy = false, pending = 0, search = { key: null, answer: null };
  var last = null; /* the editor's last answer, for the note when the search ends */

  function startWorker() {
    if (worker !== null || typeof Worker === 'undefined' || typeof SCALE_WASM_BASE64 !== 'string')
      return worker;
    try {
      var src = '(' + workerMain.toString() + ')();';
      worker = new Worker('data:text/javascript;charset=utf-8,' + encodeURIComponent(src));
      worker.postMessage({ base64: SCALE_WASM_BASE64 });
      worker.onmessage = function (e) {
        busy = false;
        if (e.data.seq !== pending) return; /* a newer search is under way */
        finish(JSON.parse(e.data.answer));
      };
      worker.onerror = function (e) { e.preventDefault(); worker = false; busy = false; rerun(); };
    } catch (err) {
      worker = false;
    }
    return worker;
  }

  function searchKey(state) {
    return SEARCH_KEYS.map(function (k) { return k + '=' + state[k]; }).join('&');
  }

  /* Starts the search of 'state''s problem unless it is the one shown or under way. */
  function ensureSearch(state) {
    var key = searchKey(state);
    if (key === search.key) return;
    search = { key: key, answer: null, t0: performance.now() };
    pending++;
    if (busy && worker) { /* a stale search would run to its end first: drop it */
      worker.terminate();
      worker = null;
    }
    if (startWorker()) {
      busy = true;
      search.where = 'worker';
      worker.postMessage({ seq: pending, query: key + '&top=8' });
    } else { /* no worker: on the page, after it has painted "searching" */
      var seq = pending;
      search.where = 'page';
      setTimeout(function () {
        if (seq === pending) finish(Scale.call('scale_web_layouts_search', parseKey(key + '&top=8')));
      }, 20);
    }
  }

  function parseKey(text) {
    var s = {};
    text.split('&').forEach(function (kv) { var i = kv.indexOf('='); s[kv.slice(0, i)] = kv.slice(i + 1); });
    return s;
  }

  function rerun() { var k = search.key; search.key = null; if (k) ensureSearch(parseKey(k)); }

  /* The answer's flat entries "rN_KEY" (layouts.c) as answer.ranked[N - 1].KEY, best first,
   * with each entry's state parsed. */
  function rankedOf(answer) {
    answer.ranked = [];
    for (var i = 1; !answer.error && i <= answer.n_ranked; i++) {
      var e = {}, prefix = 'r' + i + '_';
      Object.keys(answer).forEach(function (k) {
        if (k.indexOf(prefix) === 0) e[k.slice(prefix.length)] = answer[k];
      });
      e.state = parseKey(e.state);
      answer.ranked.push(e);
    }
    return answer;
  }

  function finish(answer) {
    search.answer = rankedOf(answer);
    search.ms = performance.now() - search.t0;
    var w = Scale.widgets[ID];
    if (!w) return;
    /* the editor refused its input: the table still comes, the error line stays */
    var failed = w.root.classList.contains('failed') || !last;
    var note = render(w, failed ? null : last.r, w.state);
    if (!failed) w.note.textContent = note;
  }

  /* ---- the page -------------------------------------------------------------------------- */

  function el(tag, attrs, text) {
    var e = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) { e.setAttribute(k, attrs[k]); });
    if (text !== undefined) e.textContent = text;
    return e;
  }

  function cell(row, entry, key) {
    var td = row.appendChild(el('td')), o = td.appendChild(el('output', { 'data-key': key }));
    if (key !== 'layout') td.style.whiteSpace = 'nowrap';
    var v = entry[key];
    o.textContent = v === null || v === undefined ? '—'
      : (entry[key + '_text'] !== undefined ? entry[key + '_text'] : String(v));
    o.setAttribute('data-value', v === null || v === undefined ? '' : v);
  }

  var COLUMNS = [['layout', 'layout'], ['step_time_s', 'step'], ['mfu', 'MFU'],
                 ['memory_per_chip_bytes', 'memory/chip'], ['train_time_s', 'run'],
                 ['cost_usd', 'cost']];

  /* Loads ranked layout 'e' into the editor: every key at once, then one evaluation. */
  function pick(w, e) {
    Object.keys(e.state).forEach(function (k) {
      w.state[k] = String(e.state[k]);
      if (w.show[k]) w.show[k](w.state[k]);
    });
    history.replaceState(null, '', '#' + ID + '?' + Object.keys(w.state).map(function (k) {
      return k + '=' + w.state[k]; }).join('&'));
    w.update();
  }

  /* The ranked layouts, the edited one ('current', the planner's spelling) highlighted; in a
   * div that scrolls sideways on a narrow screen (not div.wide: the book keeps its cells on one
   * line, and the layout column must wrap to fit a laptop's column). */
  function table(answer, current) {
    var wide = el('div', { class: 'widget-scroll' });
    wide.style.overflowX = 'auto';
    var t = wide.appendChild(el('table', { class: 'widget-table', 'data-ranked': answer.ranked.length }));
    var head = t.appendChild(el('tr'));
    head.appendChild(el('th', {}, '#'));
    COLUMNS.forEach(function (c) { head.appendChild(el('th', {}, c[1])); });
    answer.ranked.forEach(function (e, i) {
      var row = t.appendChild(el('tr', { class: 'widget-rank', 'data-rank': i + 1, tabindex: 0,
                                         title: 'edit this layout' }));
      row.style.cursor = 'pointer';
      if (e.layout === current) {
        row.style.fontWeight = '600';
        row.setAttribute('aria-current', 'true');
      }
      row.appendChild(el('td', {}, String(i + 1)));
      COLUMNS.forEach(function (c) { cell(row, e, c[0]); });
      row.addEventListener('click', function () { pick(Scale.widgets[ID], e); });
      row.addEventListener('keydown', function (k) { if (k.key === 'Enter') pick(Scale.widgets[ID], e); });
    });
    return wide;
  }

  function ratio(a, b) { return (a / b).toFixed(a / b < 10 ? 2 : 0); }

  /* Why the edited layout is slower than the best, or why it does not fit: in its numbers. */
  function verdict(r, best) {
    if (r.valid === false) return 'Not a valid layout: ' + r.invalid + '.';
    var parts = [];
    if (!r.fits)
      parts.push('It does not fit: ' + r.memory_per_chip_bytes_text + ' per chip against ' +
        r.hbm_bytes_text + ' of HBM (activations ' + r.activation_bytes_text + ', optimizer ' +
        r.optimizer_bytes_text + ', weights ' + r.param_bytes_text + ', gradients ' +
        r.grad_bytes_text + ').');
    if (best && best.layout !== r.layout && r.step_time_s > best.step_time_s) {
      parts.push('It is ' + ratio(r.step_time_s, best.step_time_s) + 'x slower than the best (' +
        best.step_time_s_text + '): compute ' + r.compute_time_s_text + ' against ' +
        best.compute_time_s_text + ', exposed communication ' + r.exposed_comms_time_s_text +
        ' against ' + best.exposed_comms_time_s_text + ', pipeline bubble ' + r.bubble_time_s_text +
        ' against ' + best.bubble_time_s_text + '.');
    } else if (best && best.layout === r.layout) {
      parts.push('This is the planner\'s best layout.');
    }
    parts.push('Why: ' + r.reason + '.');
    return parts.join(' ');
  }

  /* Draws the ranked table (or the search's progress) and returns the note on the edited
   * layout against the best. */
  function render(w, r, state) {
    var root = document.getElementById(ID), box = root.querySelector('.widget-layouts');
    if (!box) {
      box = el('div', { class: 'widget-layouts' });
      root.querySelector('.widget-live').appendChild(box);
    }
    box.textContent = '';
    var a = search.key === searchKey(state) ? search.answer : null;
    var status = box.appendChild(el('p', { class: 'widget-search' }));
    if (!a) {
      status.textContent = 'Searching every layout of ' + state.chips + ' chips…';
      root.removeAttribute('data-search-ms');
    } else if (a.error) {
      status.textContent = 'The planner refused: ' + a.error;
      root.setAttribute('data-search-ms', search.ms.toFixed(1));
    } else {
      status.textContent = a.ranked.length
        ? 'The planner\'s best of ' + a.layouts_enumerated_text + ' layouts (' +
          a.layouts_evaluated_text + ' evaluated, ' + a.layouts_per_s_text + ' in this page, ' +
          a.search_time_s_text + '); click one to edit it.'
        : 'No layout of ' + state.chips + ' chips fits (' + a.layouts_pruned_memory_text +
          ' too big for HBM).';
      if (a.ranked.length) box.appendChild(table(a, r ? r.layout : null));
      if (a.why) box.appendChild(el('p', { class: 'widget-note' }, a.why));
      root.setAttribute('data-search-ms', search.ms.toFixed(1));
      root.setAttribute('data-search-where', search.where);
      root.setAttribute('data-layouts-per-s', a.layouts_per_s);
    }
    var best = a && a.ranked && a.ranked.length ? a.ranked[0] : null;
    return r ? verdict(r, best) : '';
  }

  var DEGREE = function (key, label, max) {
    return { key: key, label: label, type: 'number', pow2: true, min: 1, max: max || 4096, value: 1 };
  };

  Scale.widget('layouts', {
    title: 'Training layout explorer: the planner\'s best layouts, and any layout you edit',
    export: 'scale_web_layout',
    controls: [
      { key: 'model', label: 'model', type: 'select', options: 'models', value: 'llama-3-70b' },
      { key: 'hw', label: 'chip', type: 'select', options: 'hardware', value: 'tpu-v5p' },
      { key: 'chips', label: 'chips', type: 'number', pow2: true, min: 1, max: 16384, value: 256 },
      { key: 'batch', label: 'batch (tokens)', type: 'number', pow2: true, min: 1024, max: 268435456, value: 4194304 },
      { key: 'seq', label: 'sequence length', type: 'number', pow2: true, min: 128, max: 131072, value: 4096 },
      { key: 'tokens', label: 'training tokens', type: 'number', pow2: true, min: 1073741824, max: 1125899906842624, value: 15000000000000 },
      { key: 'objective', label: 'rank by', type: 'select', value: 'time',
        options: [{ name: 'time', display: 'step time' }, { name: 'cost', display: 'dollars' },
                  { name: 'mfu', display: 'MFU' }] },
      DEGREE('dp', 'dp (pure data)'),
      DEGREE('tp', 'tp (tensor)', 256),
      DEGREE('pp', 'pp (pipeline)', 256),
      DEGREE('cp', 'cp (context)', 64),
      DEGREE('ep', 'ep (experts)', 256),
      { key: 'm', label: 'microbatches (0: pp)', type: 'number', min: 0, max: 1024, value: 0 },
      { key: 'zero', label: 'ZeRO stage', type: 'select', value: '3', options: ['1', '2', '3'] },
      { key: 'sp', label: 'sequence parallel', type: 'select', value: '0',
        options: [{ name: '0', display: 'off' }, { name: '1', display: 'on' }] },
      { key: 'remat', label: 'remat', type: 'select', value: 'block', options: ['none', 'block', 'matmuls', 'selective'] },
      { key: 'sched', label: 'pipeline schedule', type: 'select', value: '1f1b',
        options: ['1f1b', 'gpipe', 'interleaved', 'zb-h1', 'zb-h2', 'zb-v', 'dualpipe'] },
      { key: 'v', label: 'virtual stages', type: 'number', min: 1, max: 64, value: 1 },
      { key: 'cpk', label: 'CP kind', type: 'select', value: 'ring', options: ['ring', 'ulysses', 'allgather'] },
      { key: 'tpo', label: 'TP comm overlap', type: 'select', value: '0',
        options: [{ name: '0', display: 'off' }, { name: '1', display: 'on' }] },
      { key: 'ppdcn', label: 'pipeline over DCN', type: 'select', value: '0',
        options: [{ name: '0', display: 'no (the book\'s mapping)' }, { name: '1', display: 'yes' }] },
      { key: 'tpax', label: 'tp torus axes (0: book)', type: 'number', min: 0, max: 3, value: 0 },
      { key: 'fsdpax', label: 'fsdp torus axes (0: book)', type: 'number', min: 0, max: 3, value: 0 },
      { key: 'dpax', label: 'dp torus axes (0: book)', type: 'number', min: 0, max: 3, value: 0 },
      { key: 'cpax', label: 'cp torus axes (0: book)', type: 'number', min: 0, max: 3, value: 0 }
    ],
    outputs: [
      { key: 'layout', label: 'your layout' },
      { key: 'step_time_s', label: 'step time' },
      { key: 'mfu', label: 'MFU' },
      { key: 'memory_per_chip_bytes', label: 'memory per chip' },
      { key: 'fits', label: 'fits in HBM' },
      { key: 'train_time_s', label: 'training run' },
      { key: 'cost_usd', label: 'cost of the run' },
      { key: 'compute_time_s', label: 'compute per step' },
      { key: 'exposed_comms_time_s', label: 'exposed communication' },
      { key: 'bubble_time_s', label: 'pipeline bubble' },
      { key: 'bound', label: 'bound by' }
    ],
    note: function (r, state) {
      last = { r: r };
      ensureSearch(state);
      return render(Scale.widgets[ID], r, state);
    }
  });
})();
