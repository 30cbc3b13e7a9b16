// Reference outputs of an ONNX model with onnxruntime-node (CPU, 1 thread, all optimisations).
// usage: node ort_reference.js MODEL.onnx SAMPLES_DIR OUT_DIR (NODE_PATH: where onnxruntime-node is)
//   SAMPLES_DIR/<id>/<input>.npy -> OUT_DIR/<id>/<output>.npy, one call per sample;
//   then OUT_DIR/stream/<k>/ for k = 0,1,2: samples 02, 03, 04 in a row, state = the previous
//   call's stateN (zeros first; only for models with a 'state' input, silero's).
const fs = require('fs'), path = require('path'), ort = require('onnxruntime-node');
const DT = {'<f4': ['float32', Float32Array], '<i8': ['int64', BigInt64Array]};
function readNpy(f) {
  const b = fs.readFileSync(f), hl = b.readUInt16LE(8), h = b.toString('latin1', 10, 10 + hl);
  const descr = /'descr':\s*'([^']+)'/.exec(h)[1];
  const shape = /'shape':\s*\(([^)]*)\)/.exec(h)[1].split(',').filter(s => s.trim()).map(Number);
  if (/'fortran_order':\s*True/.test(h)) throw new Error(f + ': fortran order');
  const [type, Arr] = DT[descr], off = 10 + hl, n = shape.reduce((a, c) => a * c, 1);
  const data = new Arr(b.buffer.slice(b.byteOffset + off, b.byteOffset + off + n * Arr.BYTES_PER_ELEMENT));
  return new ort.Tensor(type, data, shape);
}
function writeNpy(f, t) {
  if (t.type !== 'float32') throw new Error('float32 only');
  const shape = t.dims.length === 1 ? `(${t.dims[0]},)` : `(${t.dims.join(', ')})`;
  let h = `{'descr': '<f4', 'fortran_order': False, 'shape': ${shape}, }`;
  while ((10 + h.length + 1) % 64) h += ' ';
  h += '\n';
  const hdr = Buffer.alloc(10); Buffer.from('\x93NUMPY', 'latin1').copy(hdr); hdr[6] = 1; hdr[7] = 0;
  hdr.writeUInt16LE(h.length, 8);
  fs.mkdirSync(path.dirname(f), {recursive: true});
  fs.writeFileSync(f, Buffer.concat([hdr, Buffer.from(h, 'latin1'), Buffer.from(t.data.buffer, t.data.byteOffset, t.data.byteLength)]));
}
(async () => {
  const [model, samples, out] = process.argv.slice(2);
  const s = await ort.InferenceSession.create(model, {intraOpNumThreads: 1, interOpNumThreads: 1,
    executionMode: 'sequential', graphOptimizationLevel: 'all'});
  const load = id => { const f = {}; for (const n of s.inputNames) f[n] = readNpy(path.join(samples, id, n + '.npy')); return f; };
  for (const id of fs.readdirSync(samples).sort()) {
    const r = await s.run(load(id));
    for (const n of s.outputNames) writeNpy(path.join(out, id, n + '.npy'), r[n]);
    console.log(id, r[s.outputNames[0]].data[0]);
  }
  if (!s.inputNames.includes('state')) return;
  let state = new ort.Tensor('float32', new Float32Array(256), [2, 1, 128]);
  for (const [k, id] of ['02', '03', '04'].entries()) {
    const feeds = load(id); feeds.state = state;
    const r = await s.run(feeds);
    for (const n of s.outputNames) writeNpy(path.join(out, 'stream', String(k), n + '.npy'), r[n]);
    state = r.stateN;
    console.log('stream', k, id, r.output.data[0]);
  }
})().catch(e => { console.error(e); process.exit(1); });
