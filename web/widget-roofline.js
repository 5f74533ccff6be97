/* widget-roofline.js — the roofline explorer of chapter 1: a chip, a dtype and a matmul
 * X[B,D] . W[D,F] give the point on the chip's HBM roofline, what bounds it and the time.
 * The numbers come from roofline.c (scale_web_roofline), the same computation as
 * `scale roofline --hw HW --matmul B,D,F --act-dtype T --weight-dtype T --compute-dtype T`. */
Scale.widget('roofline', {
  title: 'Roofline explorer: one matmul on one chip',
  export: 'scale_web_roofline',
  controls: [
    { key: 'hw', label: 'chip', type: 'select', options: 'hardware', value: 'tpu-v5e' },
    { key: 'dtype', label: 'dtype', type: 'select', value: 'bf16',
      options: ['bf16', 'fp16', 'fp8', 'int8', 'fp32'] },
    { key: 'b', label: 'B (tokens)', type: 'number', pow2: true, min: 1, max: 1048576, value: 4096 },
    { key: 'd', label: 'D (model width)', type: 'number', pow2: true, min: 1, max: 1048576, value: 8192 },
    { key: 'f', label: 'F (output width)', type: 'number', pow2: true, min: 1, max: 1048576, value: 8192 }
  ],
  outputs: [
    { key: 'flops', label: 'FLOPs 2BDF' },
    { key: 'bytes', label: 'bytes moved' },
    { key: 'intensity_flops_per_byte', label: 'arithmetic intensity' },
    { key: 'critical_intensity_flops_per_byte', label: 'critical intensity C / W' },
    { key: 't_math_s', label: 'T_math' },
    { key: 't_comms_s', label: 'T_comms (HBM)' },
    { key: 't_lower_s', label: 'time, max(T_math, T_comms)' },
    { key: 'bound', label: 'bound by' },
    { key: 'critical_batch', label: 'compute-bound for B >' }
  ],
  note: function (r) {
    return r.bound === 'compute'
      ? 'Intensity ' + r.intensity_flops_per_byte_text + ' is above ' + r.hw_display +
        '\'s ' + r.critical_intensity_flops_per_byte_text + ': the matrix units set the pace.'
      : 'Intensity ' + r.intensity_flops_per_byte_text + ' is below ' + r.hw_display +
        '\'s ' + r.critical_intensity_flops_per_byte_text + ': HBM bandwidth sets the pace.';
  }
});
