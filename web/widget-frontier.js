/* widget-frontier.js — the inference frontier and latency breakdown of chapters 7 and 8: a
 * model on one copy of N chips, the batch and the context; the decode step's KV, weight, FLOP
 * and collective terms stacked, the latency per token, the throughput and the cost, by the
 * book's roofline and by the calibrated step model. The numbers come from frontier.c
 * (scale_web_frontier), the same evaluation as `scale infer ... --json`. */
(function () {
  'use strict';
  var ID = 'widget-frontier';
  var DTYPES = ['bf16', 'fp8', 'int8', 'int4'];

  function el(tag, attrs, text) {
    var e = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) { e.setAttribute(k, attrs[k]); });
    if (text !== undefined) e.textContent = text;
    return e;
  }

  /* One bar: the step as the KV reads plus the largest of the weight reads, the matmul FLOPs
   * and the collectives (the roofline's max), the other two drawn faint beside it. */
  function bar(r) {
    var terms = [['decode_params_time_s', 'weights', '#4a7bd0'],
                 ['decode_flops_time_s', 'FLOPs', '#d08a2c'],
                 ['decode_ici_time_s', 'collectives', '#7a5aa8']];
    var top = terms.reduce(function (a, t) { return r[t[0]] > r[a[0]] ? t : a; }, terms[0]);
    var total = r.decode_step_time_s, div = el('div', { class: 'widget-stack',
      role: 'img', 'aria-label': 'decode step: KV reads ' + r.decode_kv_time_s_text + ' + ' +
        top[1] + ' ' + r[top[0] + '_text'] + ' = ' + r.decode_step_time_s_text });
    function seg(width, color, label, faint) {
      var s = div.appendChild(el('span', { title: label }, width > 0.12 ? label : ''));
      s.style.cssText = 'display:inline-block;overflow:hidden;white-space:nowrap;color:#fff;' +
        'font-size:0.8em;padding:2px 0;text-indent:4px;background:' + color + ';width:' +
        (100 * width).toFixed(2) + '%' + (faint ? ';opacity:0.35' : '');
    }
    div.style.cssText = 'width:100%;margin:0.4rem 0;white-space:nowrap';
    seg(r.decode_kv_time_s / total, '#2c9a6a', 'KV ' + r.decode_kv_time_s_text);
    seg(r[top[0]] / total, top[2], top[1] + ' ' + r[top[0] + '_text']);
    return div;
  }

  function extras(r) {
    var root = document.getElementById(ID), box = root.querySelector('.widget-frontier');
    if (!box) {
      box = el('div', { class: 'widget-frontier' });
      root.querySelector('.widget-live').appendChild(box);
    }
    box.textContent = '';
    box.appendChild(bar(r));
    var plot = box.appendChild(el('div', { class: 'widget-plot' }));
    /* plot.h names its clip path "plot-area": a second plot in the same page must rename it,
     * or its curves are clipped to the first plot's area */
    plot.innerHTML = (r.svg_frontier || '').replace(/plot-area/g, 'plot-area-frontier');
  }

  Scale.widget('frontier', {
    title: 'Serving: latency per token, throughput and cost against batch and context',
    export: 'scale_web_frontier',
    controls: [
      { key: 'model', label: 'model', type: 'select', options: 'models', value: 'llama-3-70b' },
      { key: 'hw', label: 'chip', type: 'select', options: 'hardware', value: 'tpu-v5e' },
      { key: 'chips', label: 'chips (one copy)', type: 'number', pow2: true, min: 1, max: 256, value: 16 },
      { key: 'batch', label: 'batch (sequences)', type: 'number', pow2: true, min: 1, max: 16384, value: 64 },
      { key: 'context', label: 'context (tokens)', type: 'number', pow2: true, min: 128, max: 131072, value: 8192 },
      { key: 'weights', label: 'weights', type: 'select', options: DTYPES, value: 'bf16' },
      { key: 'kv', label: 'KV cache', type: 'select', options: DTYPES, value: 'bf16' }
    ],
    outputs: [
      { key: 'latency_per_token_s', label: 'latency per token (roofline)' },
      { key: 'tokens_per_s_per_chip', label: 'tokens/s per chip (roofline)' },
      { key: 'cost_usd_per_million_tokens', label: 'cost per million tokens (roofline)' },
      { key: 'decode_kv_time_s', label: 'KV reads' },
      { key: 'decode_params_time_s', label: 'weight reads' },
      { key: 'decode_flops_time_s', label: 'matmul FLOPs' },
      { key: 'decode_ici_time_s', label: 'collectives' },
      { key: 'bound', label: 'bound by' },
      { key: 'predicted_latency_per_token_s', label: 'latency per token (calibrated)' },
      { key: 'predicted_tokens_per_s_per_chip', label: 'tokens/s per chip (calibrated)' },
      { key: 'predicted_cost_usd_per_million_tokens', label: 'cost per million tokens (calibrated)' },
      { key: 'memory_per_chip_bytes', label: 'memory per chip' },
      { key: 'max_batch', label: 'largest batch that fits' },
      { key: 'fits', label: 'fits in HBM' },
      { key: 'ttft_s', label: 'time to first token' }
    ],
    note: function (r, s) {
      extras(r);
      var fit = r.fits ? '' : ' This batch does not fit: ' + r.memory_per_chip_bytes_text +
        ' per chip against ' + r.hbm_bytes_per_chip_text + ' of HBM; at most ' + r.max_batch_text +
        ' sequences of ' + s.context + ' tokens do.';
      return 'The step is the KV reads plus the largest of the weight reads, the FLOPs and the ' +
        'collectives: ' + r.decode_step_time_s_text + ', bound by ' + r.bound + ' (critical ' +
        'batch ' + r.critical_batch_text + ').' + fit;
    }
  });
})();
