/* widget-clocks.js — the two clocks of chapter 5: a model, a chip and one way of splitting it
 * (DP, FSDP, TP, PP or EP) of degree n; drag the tokens per chip b and the degree, and watch
 * each chip's compute time against its communication time per step. The numbers come from
 * clocks.c (scale_web_clocks), the same evaluation as `scale train ... --STRATEGY n
 * --roofline --json`. */
Scale.widget('clocks', {
  title: 'The two clocks: compute against communication, per chip and step',
  export: 'scale_web_clocks',
  controls: [
    { key: 'model', label: 'model', type: 'select', options: 'models', value: 'llama-3-70b' },
    { key: 'hw', label: 'chip', type: 'select', options: 'hardware', value: 'tpu-v5p' },
    { key: 'strategy', label: 'strategy', type: 'select', value: 'fsdp', options: [
      { name: 'dp', display: 'DP: data parallelism' },
      { name: 'fsdp', display: 'FSDP: ZeRO-3 data parallelism' },
      { name: 'tp', display: 'TP: tensor parallelism' },
      { name: 'pp', display: 'PP: pipeline (m = n microbatches)' },
      { name: 'ep', display: 'EP: experts over the FSDP chips (MoE)' }] },
    { key: 'b', label: 'b (tokens per chip)', type: 'number', pow2: true, min: 64, max: 1048576, value: 4096 },
    { key: 'n', label: 'n (degree = chips)', type: 'number', pow2: true, min: 1, max: 8192, value: 64 },
    { key: 'axes', label: 'ICI axes spanned', type: 'select', value: 'auto', options: [
      { name: 'auto', display: 'as mapped (all the degree needs)' },
      { name: '1', display: '1 axis' }, { name: '2', display: '2 axes' },
      { name: '3', display: '3 axes' }] },
    { key: 'seq', label: 'sequence length', type: 'number', pow2: true, min: 128, max: 131072, value: 1024 }
  ],
  outputs: [
    { key: 'compute_time_s', label: 'compute per chip' },
    { key: 'comms_time_s', label: 'communication per chip (busiest link)' },
    { key: 'step_time_s', label: 'step time' },
    { key: 'bound', label: 'bound by' },
    { key: 'mfu', label: 'MFU' },
    { key: 'memory_per_chip_bytes', label: 'memory per chip' },
    { key: 'tokens_per_chip', label: 'tokens per chip' },
    { key: 'batch_tokens', label: 'batch per step' }
  ],
  note: function (r, s) {
    var cross = r.crossover_tokens_per_chip !== null
      ? 'The clocks cross at ' + r.crossover_tokens_per_chip_text + ' per chip (this model, ' +
        'attention included)'
      : 'The clocks do not cross as b grows: both scale with the tokens per chip';
    var book = r.book_threshold_tokens_per_chip !== null
      ? '; the book\'s threshold C / (W_link M) on ' + r.hw_display + ' over M = ' +
        r.n_axes + ' ICI axes is ' +
        r.book_threshold_tokens_per_chip_text +
        (s.strategy === 'ep' ? ', E/k = ' + r.e_over_k_text + ' times the dense one' : '')
      : '';
    return cross + book + '.';
  }
});
