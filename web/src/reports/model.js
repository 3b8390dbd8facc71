// Pure functions over the core's report documents (graph report, execution report, summary
// text): what the reports views draw. No DOM here, so the tests and the page can share them.
// Schema: docs/ipu-model.md "Report schema".

export const CATEGORIES = ['variables', 'constants', 'activations', 'code', 'vertexState', 'exchange'];
export const CATEGORY_LABELS = {
  variables: 'Variables', constants: 'Constants', activations: 'Activations', code: 'Code',
  vertexState: 'Vertex state', exchange: 'Exchange buffers',
};

const ALWAYS_LIVE_KINDS = new Set(['variable', 'constant']);

/// The op's pass: 'optimizer' (a weight update: `*VarUpdate`, `LossScaleUpdate`), 'accumulate'
/// (gradient accumulation: `Accumulate`, `AccumulationCounterIncrement`), 'backward' (autodiff's
/// ops: `<node>/grad/...`, `Gradient___<tensor>`) or 'forward'.
export function passOf(op) {
  const { name, type = '' } = op;
  if (type.endsWith('VarUpdate') || type === 'LossScaleUpdate') return 'optimizer';
  if (type === 'Accumulate' || type === 'AccumulationCounterIncrement') return 'accumulate';
  if (name.includes('/grad/') || name.startsWith('Gradient___')) return 'backward';
  return 'forward';
}

/// The IR op's ONNX node (the "group by ONNX node" rule; web/src/reports/README.md): the report's
/// `ops[i].node` when it has one (the core knows it: a gradient op's forward node, a weight
/// update's first reader), else by name (older reports):
///  1. `<node>/grad/<...>` (an op autodiff made for a forward op) -> `<node>`;
///  2. `Gradient___<tensor>` (the sum of a tensor's gradients) -> the forward op whose name is the
///     longest prefix of <tensor> followed by `_output_`, `:` or the end, else <tensor>;
///  3. `<weight>/<OpType>` where <weight> is a variable of the graph (an optimizer step such as
///     SGDVarUpdate, or its accumulator update) -> `<weight>` (the weight's update group);
///  4. anything else is its own node (forward ops carry their ONNX node's name).
/// kind: the op's pass (passOf), 'optimizer' also for rule 3.
export function makeGrouper(ops, tensors) {
  const forward = new Set();
  for (const op of ops) if (!op.name.includes('/grad/') && !op.name.startsWith('Gradient___')) forward.add(op.name);
  const variables = new Set((tensors ?? []).filter((t) => t.kind === 'variable').map((t) => t.id));
  const cache = new Map();
  const longestForwardPrefix = (tensor) => {
    for (let end = tensor.length; end > 0; --end) {
      const p = tensor.slice(0, end);
      const rest = tensor.slice(end);
      if (forward.has(p) && (rest === '' || rest.startsWith('_output_') || rest.startsWith(':'))) return p;
    }
    return null;
  };
  const byName = (name) => {
    const gi = name.indexOf('/grad/');
    if (gi > 0) return { key: name.slice(0, gi), kind: 'backward' };
    if (name.startsWith('Gradient___')) {
      const t = name.slice('Gradient___'.length);
      return { key: longestForwardPrefix(t) ?? t, kind: 'backward' };
    }
    const slash = name.lastIndexOf('/');
    if (slash > 0 && variables.has(name.slice(0, slash)) && !forward.has(name.slice(0, slash))) {
      return { key: name.slice(0, slash), kind: 'optimizer' };
    }
    return { key: name, kind: 'forward' };
  };
  return (op) => {
    const ck = `${op.name}\u0000${op.type ?? ''}\u0000${op.node ?? ''}`;
    if (cache.has(ck)) return cache.get(ck);
    const g = byName(op.name);
    const pass = passOf(op);
    const out = { key: typeof op.node === 'string' && op.node ? op.node : g.key, kind: pass === 'forward' ? g.kind : pass };
    cache.set(ck, out);
    return out;
  };
}

/// The schedule step of each op id (`ops[i].id`, the core's stable IR op id; absent in older
/// reports: then the map is empty).
export function stepOfId(graph) {
  const m = new Map();
  graph.ops.forEach((op, i) => { if (op.id !== undefined && op.id !== null) m.set(op.id, i); });
  return m;
}

/// The step of the op that writes tensor t: its `producer` (an op id, -1 for none) when the report
/// has it, else its `liveFrom` (older reports); -1 for none.
export function producerStep(t, steps) {
  if (t.producer !== undefined && t.producer !== null) return t.producer < 0 ? -1 : steps.get(t.producer) ?? -1;
  return t.liveFrom;
}

/// Bytes an op's outputs take (its non-view activations: those it produces).
function outputBytesPerStep(graph) {
  const out = new Array(graph.ops.length).fill(0);
  const steps = stepOfId(graph);
  for (const t of graph.tensors ?? []) {
    if (t.view || t.kind !== 'activation') continue;
    const s = producerStep(t, steps);
    if (s >= 0 && s < out.length) out[s] += t.bytes;
  }
  return out;
}

/// One row per scheduled op (schedule order = liveness step). `key` is the op's stable id
/// (`id:<ops[i].id>`) when the report has ids, else its step (`#<step>`).
export function opRows(graph) {
  const group = makeGrouper(graph.ops, graph.tensors);
  const outBytes = outputBytesPerStep(graph);
  return graph.ops.map((op, step) => {
    const g = group(op);
    const hasId = op.id !== undefined && op.id !== null;
    return {
      step, id: hasId ? op.id : undefined, key: hasId ? `id:${op.id}` : `#${step}`, name: op.name, type: op.type, ipu: op.ipu,
      stage: op.pipelineStage ?? -1, phase: op.executionPhase ?? -1,
      cycles: op.cycles, computeCycles: op.computeCycles, exchangeCycles: op.exchangeCycles, syncCycles: op.syncCycles,
      flops: op.flops, exchangeBytes: op.exchangeBytes, numTiles: op.numTiles, firstTile: op.firstTile,
      outBytes: outBytes[step], node: g.key, kind: g.kind, inputs: op.inputs, outputs: op.outputs,
    };
  });
}

const SUMMED = ['cycles', 'computeCycles', 'exchangeCycles', 'syncCycles', 'flops', 'exchangeBytes', 'outBytes'];

/// Rows grouped by ONNX node: sums of the cycles, FLOPs and bytes, the widest op's tiles, the
/// node's first step, its op count and op types; steps lists every step of the group.
export function groupRows(rows) {
  const groups = new Map();
  for (const r of rows) {
    let g = groups.get(r.node);
    if (!g) {
      g = { name: r.node, node: r.node, step: r.step, steps: [], ops: 0, types: [], ipu: r.ipu, stage: r.stage,
            numTiles: 0, kinds: new Set() };
      for (const k of SUMMED) g[k] = 0;
      groups.set(r.node, g);
    }
    g.steps.push(r.step);
    g.ops += 1;
    if (!g.types.includes(r.type)) g.types.push(r.type);
    g.kinds.add(r.kind);
    g.numTiles = Math.max(g.numTiles, r.numTiles);
    for (const k of SUMMED) g[k] += r[k];
  }
  return [...groups.values()].map((g) => ({ ...g, type: g.types.join(', '), kinds: [...g.kinds].join(', ') }));
}

/// Bytes live at each schedule step: always-live (variables and constants, non-view) and
/// not-always-live (activations and streams, from liveFrom to liveTo inclusive).
export function liveness(graph) {
  const steps = graph.ops.length;
  const tensors = (graph.tensors ?? []).filter((t) => !t.view);
  const { always, notAlways, peak } = liveOver(steps, tensors, (t) => t.bytes);
  return { steps, always, notAlways, total: notAlways.map((v) => v + always), peakStep: steps ? peak : -1,
           peakBytes: steps ? notAlways[peak] + always : 0 };
}

/// The bytes of `tensors` over `steps` schedule steps: `always` (the always-live kinds' bytes),
/// `notAlways[s]` (the others live at s: liveFrom to liveTo inclusive) and `peak`, the first step
/// with the most of the latter.
function liveOver(steps, tensors, bytesOf) {
  const diff = new Float64Array(steps + 1);
  let always = 0;
  for (const t of tensors) {
    if (ALWAYS_LIVE_KINDS.has(t.kind)) {
      always += bytesOf(t);
      continue;
    }
    const from = Math.max(0, t.liveFrom);
    const to = Math.min(steps - 1, t.liveTo);
    if (to < from) continue;
    diff[from] += bytesOf(t);
    diff[to + 1] -= bytesOf(t);
  }
  const notAlways = new Array(steps);
  let acc = 0;
  let peak = 0;
  for (let s = 0; s < steps; ++s) {
    acc += diff[s];
    notAlways[s] = acc;
    if (acc > notAlways[peak]) peak = s;
  }
  return { always, notAlways, peak };
}

/// The global tile of a per-IPU tile.
export const globalTile = (graph, ipu, tile) => (ipu ?? 0) * graph.target.tilesPerIPU + tile;

/// The tensors with bytes on `tile` (global index), largest first.
export function tensorsOnTile(graph, tile) {
  const out = [];
  for (const t of graph.tensors ?? []) {
    const first = globalTile(graph, t.ipu, t.firstTile);
    const i = tile - first;
    if (i < 0 || i >= (t.bytesPerTile?.length ?? 0)) continue;
    const b = t.bytesPerTile[i];
    if (b > 0 || t.view) out.push({ id: t.id, kind: t.kind, category: t.category, dtype: t.dtype, shape: t.shape,
                                    bytes: t.bytes, bytesOnTile: b, view: !!t.view, liveFrom: t.liveFrom, liveTo: t.liveTo,
                                    producer: t.producer });
  }
  return out.sort((a, b) => b.bytesOnTile - a.bytesOnTile || (a.id < b.id ? -1 : 1));
}

/// Bytes live on one tile (global index) at each schedule step: the tensors mapped to it
/// (`bytesPerTile`), always live (non-view variables and constants) apart from the rest (non-view
/// activations and streams, from liveFrom to liveTo inclusive). The peak of the rest is what the
/// core counts as the tile's activations (`memory.byTile.activations[tile]`).
export function tileLiveness(graph, tile) {
  const steps = graph.ops.length;
  const tensors = tensorsOnTile(graph, tile).filter((t) => !t.view && t.bytesOnTile);
  const { always, notAlways, peak } = liveOver(steps, tensors, (t) => t.bytesOnTile);
  return { tile, steps, always, notAlways, total: notAlways.map((v) => v + always), tensors, peakStep: steps ? peak : -1,
           peakBytes: steps ? notAlways[peak] + always : always, peakNotAlways: steps ? notAlways[peak] : 0 };
}

/// The tensors of a tile liveness (tileLiveness) live at `step`, largest first: the always-live
/// ones only when `includeAlways`.
export function tileTensorsAt(tl, step, includeAlways = true) {
  return tl.tensors.filter((t) => (ALWAYS_LIVE_KINDS.has(t.kind) ? includeAlways : t.liveFrom <= step && step <= t.liveTo));
}

export const isAlwaysLive = (t) => ALWAYS_LIVE_KINDS.has(t.kind);

/// Per-tile figures: totals, categories, out-of-memory tiles, the fullest tiles.
export function tileMemory(graph) {
  const m = graph.memory;
  const total = m.byTile.total;
  const oom = new Set(m.outOfMemoryTiles ?? []);
  const fullest = total.map((b, t) => [t, b]).sort((a, b) => b[1] - a[1] || a[0] - b[0]).slice(0, 5);
  return { n: total.length, total, byCategory: CATEGORIES.map((c) => m.byTile[c] ?? new Array(total.length).fill(0)),
           capacity: graph.target.bytesPerTile, oom, fullest, max: Math.max(0, ...total) };
}

/// The replicas of a report (PopART's replicated graphs: `target.replicas` copies of the graph,
/// each on numIPUs / replicas IPUs, the tiles of replica r following those of replica r - 1):
/// {count, ipusPerReplica, tilesPerReplica, replicas: [{replica, firstIpu, lastIpu, firstTile,
/// lastTile, bytes, maxTile, maxTileBytes, oomTiles}], identical (every replica's tiles hold what
/// replica 0's do), replicaOf(tile), baseTile(tile) (replica 0's tile at the same place)}. The
/// figures are the report's own per-tile ones summed over each replica's tiles.
export function replicaLayout(graph) {
  const t = graph.target;
  const count = Math.max(1, t.replicas ?? 1);
  const ipusPerReplica = Math.max(1, Math.round((t.numIPUs ?? 1) / count));
  const tilesPerReplica = ipusPerReplica * t.tilesPerIPU;
  const total = graph.memory?.byTile?.total ?? [];
  const oom = new Set(graph.memory?.outOfMemoryTiles ?? []);
  let identical = true;
  const replicas = Array.from({ length: count }, (_, r) => {
    const first = r * tilesPerReplica;
    let bytes = 0, maxTile = first, maxTileBytes = -1, oomTiles = 0;
    for (let i = 0; i < tilesPerReplica; ++i) {
      const b = total[first + i] ?? 0;
      if (b !== (total[i] ?? 0)) identical = false;
      bytes += b;
      if (b > maxTileBytes) { maxTileBytes = b; maxTile = first + i; }
      if (oom.has(first + i)) ++oomTiles;
    }
    return { replica: r, firstIpu: r * ipusPerReplica, lastIpu: (r + 1) * ipusPerReplica - 1, firstTile: first,
             lastTile: first + tilesPerReplica - 1, bytes, maxTile, maxTileBytes: Math.max(0, maxTileBytes), oomTiles };
  });
  return { count, ipusPerReplica, tilesPerReplica, replicas, identical,
           replicaOf: (tile) => Math.floor(tile / tilesPerReplica), baseTile: (tile) => tile % tilesPerReplica };
}

/// Compute / exchange / sync cycles per step and their totals (one micro-batch).
export function executionSplit(graph) {
  const t = { compute: 0, exchange: 0, sync: 0, cycles: 0 };
  const steps = graph.ops.map((op) => {
    t.compute += op.computeCycles;
    t.exchange += op.exchangeCycles;
    t.sync += op.syncCycles;
    t.cycles += op.cycles;
    return { name: op.name, type: op.type, compute: op.computeCycles, exchange: op.exchangeCycles, sync: op.syncCycles,
             cycles: op.cycles, other: op.cycles - op.computeCycles - op.exchangeCycles - op.syncCycles };
  });
  t.other = t.cycles - t.compute - t.exchange - t.sync;  // inter-IPU copies charged to the op
  return { steps, totals: t };
}

/// The CPU device's measured host time per op, from its summary's "Slowest ops" lines
/// (`  3594.15  node '/3/Conv' (Conv, ...`: microseconds per micro-batch). [] when absent.
export function hostTimesFromSummary(text) {
  if (typeof text !== 'string') return [];
  const out = [];
  const re = /^\s+([0-9.eE+-]+)\s+node '((?:[^'\\]|\\.)*)' \(([^,)]+)/gm;
  let m;
  const section = text.indexOf('Slowest ops');
  if (section < 0) return [];
  re.lastIndex = section;
  while ((m = re.exec(text))) out.push({ name: m[2], type: m[3], seconds: Number(m[1]) * 1e-6 });
  return out;
}

/// The worst tiles of an out-of-memory report: count, % of memory used.
export function memoryInsight(graph) {
  const tm = tileMemory(graph);
  const used = graph.memory.total;
  const totalMemory = graph.target.totalMemory;
  return { oomCount: tm.oom.size, tiles: tm.n, used, totalMemory, percent: totalMemory ? (100 * used) / totalMemory : 0,
           maxTile: graph.memory.maxTile, maxTileBytes: graph.memory.maxTileBytes, capacity: tm.capacity,
           maxPercent: tm.capacity ? (100 * graph.memory.maxTileBytes) / tm.capacity : 0 };
}

const INT = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });
export function fmtInt(v) {
  if (v === undefined || v === null || Number.isNaN(v)) return '–';
  return INT.format(Math.round(v));
}

/// Bytes in B / KiB / MiB / GiB (powers of 1,024, as the summary report counts them).
export function fmtBytes(v) {
  if (v === undefined || v === null || Number.isNaN(v)) return '–';
  const a = Math.abs(v);
  if (a < 1024) return `${Math.round(v)} B`;
  // Powers of 1024, named as such (KiB, MiB, GiB), as the rest of the page names them.
  if (a < 1024 ** 2) return `${(v / 1024).toFixed(1)} KiB`;
  if (a < 1024 ** 3) return `${(v / 1024 ** 2).toFixed(1)} MiB`;
  return `${(v / 1024 ** 3).toFixed(2)} GiB`;
}

/// Short numbers for axes: 1.2k, 3.4M, 5G.
export function fmtShort(v) {
  const a = Math.abs(v);
  const f = (x, s) => `${x >= 100 ? Math.round(x) : +x.toFixed(1)}${s}`;
  if (a >= 1e9) return f(v / 1e9, 'G');
  if (a >= 1e6) return f(v / 1e6, 'M');
  if (a >= 1e3) return f(v / 1e3, 'k');
  return `${+v.toFixed(2)}`;
}

export function fmtSeconds(s) {
  if (s === undefined || s === null || Number.isNaN(s)) return '–';
  if (s >= 1) return `${s.toFixed(3)} s`;
  if (s >= 1e-3) return `${(s * 1e3).toFixed(3)} ms`;
  return `${(s * 1e6).toFixed(2)} µs`;
}
