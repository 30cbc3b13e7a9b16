// node bench/ort_bench.js ORT_DIR MODEL.onnx INPUT.npy RUNS WARMUP THREADS
// Times onnxruntime-node (ORT_DIR/node_modules/onnxruntime-node) on one model: one session
// (all graph optimizations, sequential, THREADS intra-op threads, 1 inter-op), WARMUP
// untimed runs, then RUNS timed runs of session.run on the same input. Prints
// `median_ms: X`, `min_ms: X`, `cpu_ms: X` (the process's user + system CPU time per timed
// run) and `peak_rss_kib: N` (the whole node process), as `tosac bench` prints its own. The .npy reader takes float32 little-endian
// C-order arrays (the zoo's inputs).
'use strict';
const fs = require('fs');
const path = require('path');

function fail(msg) {
    process.stderr.write(`ort_bench: error: ${msg}\n`);
    process.exit(2);
}

function readNpy(file) {
    const b = fs.readFileSync(file);
    if (b.length < 10 || b.toString('latin1', 1, 6) !== 'NUMPY')
        fail(`${file}: not a .npy file`);
    const major = b[6];
    const hlen = major === 1 ? b.readUInt16LE(8) : b.readUInt32LE(8);
    const start = major === 1 ? 10 : 12;
    const header = b.toString('latin1', start, start + hlen);
    if (!/'descr':\s*'<f4'/.test(header) || /'fortran_order':\s*True/.test(header))
        fail(`${file}: only little-endian float32 C-order arrays are read`);
    const m = /'shape':\s*\(([^)]*)\)/.exec(header);
    if (!m)
        fail(`${file}: no shape in the header`);
    const shape = m[1].split(',').map(s => s.trim()).filter(s => s).map(Number);
    const n = shape.reduce((a, d) => a * d, 1);
    const off = start + hlen;
    if (b.length < off + 4 * n)
        fail(`${file}: truncated`);
    const data = new Float32Array(n);
    for (let i = 0; i < n; i++)
        data[i] = b.readFloatLE(off + 4 * i);
    return { shape, data };
}

async function main() {
    const [ortDir, model, input, runsS, warmupS, threadsS] = process.argv.slice(2);
    if (!threadsS)
        fail('usage: node ort_bench.js ORT_DIR MODEL.onnx INPUT.npy RUNS WARMUP THREADS');
    const ort = require(path.join(path.resolve(ortDir), 'node_modules', 'onnxruntime-node'));
    const runs = Number(runsS), warmup = Number(warmupS), threads = Number(threadsS);
    const session = await ort.InferenceSession.create(model, {
        graphOptimizationLevel: 'all',
        executionMode: 'sequential',
        intraOpNumThreads: threads,
        interOpNumThreads: 1,
    });
    if (session.inputNames.length !== 1)
        fail(`${model}: ${session.inputNames.length} inputs, this script feeds one`);
    const x = readNpy(input);
    const feeds = { [session.inputNames[0]]: new ort.Tensor('float32', x.data, x.shape) };
    for (let i = 0; i < warmup; i++)
        await session.run(feeds);
    const ms = [];
    const cpu0 = process.cpuUsage();
    for (let i = 0; i < runs; i++) {
        const t0 = process.hrtime.bigint();
        await session.run(feeds);
        ms.push(Number(process.hrtime.bigint() - t0) / 1e6);
    }
    const cpu = process.cpuUsage(cpu0);
    ms.sort((a, b) => a - b);
    const h = ms.length >> 1;
    const median = ms.length % 2 ? ms[h] : (ms[h - 1] + ms[h]) / 2;
    process.stdout.write(`median_ms: ${median.toFixed(4)}\nmin_ms: ${ms[0].toFixed(4)}\n`);
    process.stdout.write(`cpu_ms: ${((cpu.user + cpu.system) / 1000 / runs).toFixed(4)}\n`);
    process.stdout.write(`peak_rss_kib: ${process.resourceUsage().maxRSS}\n`);
}

main().catch(e => fail(e.message || String(e)));
