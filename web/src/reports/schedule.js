// The schedule as the IPU model runs it, for the Timeline and Program views: the execution
// timeline (each op a superstep of sync, exchange and compute on its IPU, over cycles; a pipeline
// laid out over a run's micro-batches) and the program tree (the schedule as nested programs).
// Pure functions over the graph report and the execution report's runs; no DOM. The rules are in
// web/src/reports/README.md ("Timeline", "Program tree").
import { stepOfId, producerStep, fmtInt, fmtBytes } from './model.js';

/// Whether the report lists each op's inputs (`ops[].inputs`; older reports do not).
export function hasOpInputs(graph) {
  return (graph.ops ?? []).length > 0 && graph.ops.every((o) => Array.isArray(o.inputs));
}

/// One op as a line of the program: `name (Type): in0 in1 -> out0` (its inputs and outputs when
/// the report lists them).
export function opLine(op) {
  const head = `${op.name} (${op.type})`;
  return Array.isArray(op.inputs) ? `${head}: ${op.inputs.filter(Boolean).join(' ')} -> ${(op.outputs ?? []).join(' ')}` : head;
}

/// Inter-IPU copies of one micro-batch: { tensor, from (producer step), to (receiving step),
/// fromIpu, toIpu, exact }. With the ops' inputs (`ops[].inputs`) exact: the first reader on each
/// other IPU. Without them (an older report): a non-view activation whose last
/// reader (liveTo) is on another IPU than its producer is copied there, received by the first op
/// on that IPU after the producer (the core charges the copy to that op's exchange).
export function interIpuCopies(graph) {
  const ops = graph.ops;
  const steps = stepOfId(graph);
  const out = [];
  const byId = new Map((graph.tensors ?? []).map((t) => [t.id, t]));
  if (hasOpInputs(graph)) {
    const seen = new Set();
    ops.forEach(({ inputs }, j) => {
      for (const id of inputs) {
        const t = byId.get(id);
        if (!t || t.kind === 'variable' || t.kind === 'constant' || t.kind === 'stream') continue;
        const p = producerStep(t, steps);
        if (p < 0 || p >= j || ops[p].ipu === ops[j].ipu || seen.has(`${id}\u0000${ops[j].ipu}`)) continue;
        seen.add(`${id}\u0000${ops[j].ipu}`);
        out.push({ tensor: id, from: p, to: j, fromIpu: ops[p].ipu, toIpu: ops[j].ipu, exact: true });
      }
    });
    return out;
  }
  for (const t of graph.tensors ?? []) {
    if (t.view || t.kind !== 'activation') continue;
    const p = producerStep(t, steps);
    const last = Math.min(ops.length - 1, t.liveTo);
    if (p < 0 || last <= p || ops[last].ipu === ops[p].ipu) continue;
    const to = ops.findIndex((o, k) => k > p && k <= last && o.ipu === ops[last].ipu);
    out.push({ tensor: t.id, from: p, to, fromIpu: ops[p].ipu, toIpu: ops[last].ipu, exact: false });
  }
  return out.sort((a, b) => a.to - b.to || a.from - b.from);
}

/// The first run that says how the program repeats: { run, batches (batchesPerStep), accumulation
/// (micro-batches per batch: gradient accumulation), microBatches } or null (no run yet).
export function runShape(execution) {
  const run = (execution?.runs ?? []).find((r) => r.steps?.length && r.microBatches > 0);
  if (!run) return null;
  const batches = run.steps.length;
  return { run, batches, accumulation: Math.max(1, Math.round(run.microBatches / batches)), microBatches: run.microBatches };
}

/// The execution timeline. Lanes: one per IPU (pipelined: one per stage, on its IPU), and a host
/// lane for the host transfers. Blocks { lane, kind: 'op' | 'host' | 'streaming' | 'sync', start,
/// end, step, micro, sync, exchange, compute, other, label }.
///  - Not pipelined: one micro-batch as the IPU model counts it: the host-to-device transfer, every
///    op in schedule order one after the other (a superstep each: sync, exchange, compute; the
///    other IPUs wait), each execution phase's streaming-memory loads and stores before its first
///    op, the device-to-host transfer. total = perMicroBatch + the host transfers.
///  - Pipelined: the core's pipeline rule over the first pipelined run's N micro-batches (else 1):
///    pipeline cycle j (0 .. N + S - 2) runs each stage s with 0 <= j - s < N (micro-batch j - s)
///    and takes its slowest such stage plus a sync; the first S - 1 cycles are the fill, the last
///    S - 1 the drain; the run's host transfers (N micro-batches) come after, as the core adds them.
///    A run of very many micro-batches is laid out for its first ones only (at most `maxBlocks`
///    supersteps; runMicroBatches says how many the run has): the steady state repeats.
/// ipuCycles[i]: the op (and streaming) cycles on IPU i over the timeline.
export function timeline(graph, execution, { maxBlocks = 20000 } = {}) {
  const ops = graph.ops;
  const cy = graph.cycles ?? {};
  const h2d = cy.hostToDevicePerMicroBatch ?? 0, d2h = cy.deviceToHostPerMicroBatch ?? 0;
  const numIpus = Math.max(1, (cy.perIpu ?? []).length, ...ops.map((o) => (o.ipu ?? 0) + 1));
  const stages = cy.stageCycles ?? [];
  const pipelined = !!graph.graph?.pipelined && stages.length > 0;
  const blocks = [];
  const lanes = [];
  const ipuCycles = new Array(numIpus).fill(0);
  const copies = interIpuCopies(graph);
  const blockAt = new Map();   // `${micro}:${step}` -> block index
  const opBlock = (lane, step, start, micro) => {
    const op = ops[step];
    const b = { lane, kind: 'op', step, micro, start, end: start + op.cycles, sync: op.syncCycles, exchange: op.exchangeCycles,
                compute: op.computeCycles, other: op.cycles - op.computeCycles - op.exchangeCycles - op.syncCycles };
    blockAt.set(`${micro}:${step}`, blocks.length);
    blocks.push(b);
    ipuCycles[op.ipu ?? 0] += op.cycles;
    return b.end;
  };
  let total = 0;
  let pipeline = null;
  let microBatches = 1, runMicroBatches = 1;
  if (!pipelined) {
    for (let i = 0; i < numIpus; ++i) lanes.push({ ipu: i, label: `IPU ${i}` });
    const host = h2d + d2h > 0 ? lanes.push({ host: true, label: 'Host' }) - 1 : -1;
    let t = 0;
    if (h2d) { blocks.push({ lane: host, kind: 'host', start: 0, end: h2d, micro: 0, label: 'Host → device (input streams)' }); t = h2d; }
    const phaseStart = new Map();
    ops.forEach((o, i) => { if (o.executionPhase >= 0 && !phaseStart.has(o.executionPhase)) phaseStart.set(o.executionPhase, i); });
    const phases = new Map((graph.phases ?? []).map((p) => [phaseStart.get(p.phase), p]));
    ops.forEach((op, i) => {
      const ph = phases.get(i);
      if (ph?.remoteCycles) {
        blocks.push({ lane: ph.ipu, kind: 'streaming', start: t, end: t + ph.remoteCycles, micro: 0, phase: ph.phase,
                      label: `Phase ${ph.phase}: streaming-memory loads and stores` });
        ipuCycles[ph.ipu] += ph.remoteCycles;
        t += ph.remoteCycles;
      }
      t = opBlock(op.ipu ?? 0, i, t, 0);
    });
    if (d2h) { blocks.push({ lane: host, kind: 'host', start: t, end: t + d2h, micro: 0, label: 'Device → host (anchors)' }); t += d2h; }
    total = t;
  } else {
    const run = (execution?.runs ?? []).find((r) => r.pipeline);
    runMicroBatches = run?.microBatches ?? 1;
    microBatches = Math.min(runMicroBatches, Math.max(stages.length, Math.floor(maxBlocks / Math.max(1, ops.length))));
    const S = stages.length, N = microBatches;
    const stageOps = stages.map(() => []);
    ops.forEach((o, i) => stageOps[Math.max(0, Math.min(S - 1, o.pipelineStage))].push(i));
    stageOps.forEach((list, s) => {
      const ipu = list.length ? ops[list[0]].ipu ?? 0 : s % numIpus;
      lanes.push({ ipu, stage: s, label: `IPU ${ipu} · stage ${s}` });
    });
    const host = h2d + d2h > 0 ? lanes.push({ host: true, label: 'Host' }) - 1 : -1;
    const sync = ops[0]?.syncCycles ?? 0;
    pipeline = { fill: 0, steady: 0, drain: 0, stages: S, microBatches: N, cycles: [] };
    let T = 0;
    for (let j = 0; j < N + S - 1; ++j) {
      let slowest = 0;
      const active = [];
      for (let s = 0; s < S; ++s) {
        if (j - s < 0 || j - s >= N) continue;
        active.push(s);
        slowest = Math.max(slowest, stages[s]);
        let t = T;
        for (const i of stageOps[s]) t = opBlock(s, i, t, j - s);
      }
      for (const s of active) blocks.push({ lane: s, kind: 'sync', start: T + slowest, end: T + slowest + sync, micro: j - s, label: `Pipeline cycle ${j}: sync` });
      const len = slowest + sync;
      pipeline.cycles.push({ start: T, end: T + len, part: j < S - 1 ? 'fill' : j >= N ? 'drain' : 'steady' });
      if (j < S - 1) pipeline.fill += len;
      else if (j >= N) pipeline.drain += len;
      else pipeline.steady += len;
      T += len;
    }
    if (h2d + d2h) {
      blocks.push({ lane: host, kind: 'host', start: T, end: T + N * (h2d + d2h), micro: 0,
                    label: `Host transfers of ${N} micro-batch${N === 1 ? '' : 'es'} (the IPU model adds them to the run)` });
      T += N * (h2d + d2h);
    }
    total = T;
  }
  // The copies of every micro-batch, between the blocks of the producer and the receiver.
  const arrows = [];
  for (let m = 0; m < microBatches; ++m) {
    for (const c of copies) {
      if (c.to < 0) continue;
      const a = blockAt.get(`${m}:${c.from}`), b = blockAt.get(`${m}:${c.to}`);
      if (a !== undefined && b !== undefined) arrows.push({ ...c, micro: m, fromBlock: a, toBlock: b });
    }
  }
  // Per lane, its blocks in time order (hit tests).
  const byLane = lanes.map(() => []);
  blocks.forEach((b, k) => { if (b.lane >= 0) byLane[b.lane].push(k); });
  for (const l of byLane) l.sort((x, y) => blocks[x].start - blocks[y].start);
  return { lanes, blocks, byLane, total, ipuCycles, numIpus, pipelined, pipeline, microBatches, runMicroBatches, copies, arrows, h2d, d2h };
}

const PASS_LABELS = {
  forward: 'Forward pass', backward: 'Backward pass', accumulate: 'Gradient accumulation', optimizer: 'Weight update (optimizer)',
};
const PASS_ORDER = ['forward', 'backward', 'accumulate', 'optimizer'];

/// The schedule as nested programs (PopART / PopVision's program tree), from the report's fields:
/// node { kind, label, detail, children } with kinds 'program', 'repeat', 'pipeline', 'stage',
/// 'phase', 'pass', 'node' (an ONNX node's ops), 'op' (a leaf: `step`), 'streams' (host
/// transfers), 'tensor' (an input stream), 'copy' (an inter-IPU copy). Every op is exactly one
/// leaf. rows: opRows(graph) (their node and pass).
///  - Main program: a sequence. With a run, `Repeat × batchesPerStep` (its batches) around the
///    step, and with gradient accumulation `Repeat × factor` (micro-batches per batch) inside it
///    around the whole schedule (this runtime runs every op at each micro-batch; a weight update
///    accumulates and applies at the last one).
///  - Pipelined: one pipeline (N micro-batches: fill, steady state, drain) holding each stage on
///    its IPU, its incoming copies and its passes. Execution phases: a program per phase.
///  - A pass holds its ops in schedule order, several ops of one ONNX node under that node; the
///    passes come in the order they start in the schedule.
export function programTree(graph, execution, rows) {
  const cy = graph.cycles ?? {};
  const shape = runShape(execution);
  const af = shape?.accumulation ?? 1;
  const pipelined = !!graph.graph?.pipelined && (cy.stageCycles ?? []).length > 0;
  const leaf = (r) => ({ kind: 'op', label: r.name, detail: r.type, step: r.step, cycles: r.cycles });
  const branch = (kind, label, detail, children, extra = {}) => {
    const ops = children.reduce((a, c) => a + (c.kind === 'op' ? 1 : c.ops ?? 0), 0);
    const cycles = children.reduce((a, c) => a + (c.cycles ?? 0), 0);
    return { kind, label, detail, children, ops, cycles, ...extra };
  };
  const range = (list) => {
    if (!list.length) return '';
    const s = list.map((r) => r.step);
    const lo = Math.min(...s), hi = Math.max(...s);
    return lo === hi ? `step ${lo}` : `steps ${lo}–${hi}`;
  };
  const byNode = (list) => {
    const groups = new Map();
    for (const r of list) {
      if (!groups.has(r.node)) groups.set(r.node, []);
      groups.get(r.node).push(r);
    }
    return [...groups.entries()].map(([node, rs]) => (rs.length === 1 ? leaf(rs[0])
      : branch('node', node, rs.map((r) => r.type).filter((t, i, a) => a.indexOf(t) === i).join(', '), rs.map(leaf))));
  };
  // The passes in the order they start in the schedule.
  const passes = (list) => {
    const out = [];
    for (const p of PASS_ORDER) {
      const rs = list.filter((r) => r.kind === p);
      if (!rs.length) continue;
      const lo = Math.min(...rs.map((r) => r.step)), hi = Math.max(...rs.map((r) => r.step));
      const others = list.some((r) => r.kind !== p && r.step > lo && r.step < hi);
      const note = p === 'optimizer' && af > 1 ? `; each accumulates the micro-batch's gradient and applies the update at the last of the ${af} (the accumulation counter)` : '';
      out.push(branch('pass', PASS_LABELS[p], `${range(rs)}${others ? ' (interleaved with other passes in the schedule)' : ''}${note}`, byNode(rs), { pass: p, first: lo }));
    }
    return out.sort((a, b) => a.first - b.first);
  };
  const streams = (graph.tensors ?? []).filter((t) => t.kind === 'stream' && !t.view);
  const h2d = () => branch('streams', 'Host → device', `${streams.length} input stream${streams.length === 1 ? '' : 's'} · ${fmtInt(cy.hostToDevicePerMicroBatch ?? 0)} cycles per micro-batch`,
    streams.map((t) => ({ kind: 'tensor', label: t.id, detail: `${t.dtype} [${(t.shape ?? []).join(', ')}] · ${fmtBytes(t.bytes)} · IPU ${t.ipu ?? 0}` })), { direction: 'in' });
  const d2h = () => ({ kind: 'streams', label: 'Device → host', detail: `anchors · ${fmtInt(cy.deviceToHostPerMicroBatch ?? 0)} cycles per micro-batch`, children: [], direction: 'out' });
  const copyItems = (list) => list.map((c) => ({ kind: 'copy', label: c.tensor,
    detail: `inter-IPU copy · IPU ${c.fromIpu} → IPU ${c.toIpu} (step ${c.from} → step ${c.to})` }));
  let body;
  if (pipelined) {
    const S = cy.stageCycles.length;
    const copies = interIpuCopies(graph);
    const stageOf = (r) => Math.max(0, Math.min(S - 1, r.stage));
    const stageNodes = cy.stageCycles.map((c, s) => {
      const rs = rows.filter((r) => stageOf(r) === s);
      const ipu = rs[0]?.ipu ?? s;
      const incoming = copies.filter((x) => x.to >= 0 && stageOf(rows[x.to]) === s);
      return branch('stage', `Pipeline stage ${s}`, `IPU ${ipu} · ${fmtInt(c)} cycles per micro-batch`, [...copyItems(incoming), ...passes(rs)], { stage: s, ipu });
    });
    const N = (execution?.runs ?? []).find((r) => r.pipeline)?.microBatches ?? shape?.microBatches;
    const how = N ? `${N} micro-batch${N === 1 ? '' : 'es'} (batchesPerStep × gradient accumulation): fill ${S - 1}, steady state ${Math.max(0, N - S + 1)}, drain ${S - 1} pipeline cycles`
      : 'run the session to see its micro-batches';
    body = [branch('pipeline', `Pipeline · ${S} stages`, how, [h2d(), ...stageNodes, d2h()])];
  } else {
    let inner;
    if (rows.some((r) => r.phase >= 0)) {
      const phaseIds = [...new Set(rows.filter((r) => r.phase >= 0).map((r) => r.phase))].sort((a, b) => a - b);
      const info = new Map((graph.phases ?? []).map((p) => [p.phase, p]));
      inner = [];
      for (const p of phaseIds) {
        const rs = rows.filter((r) => r.phase === p);
        const ph = info.get(p);
        const node = branch('phase', `Execution phase ${p}`, `IPU ${ph?.ipu ?? rs[0].ipu}${ph ? ` · streaming memory: ${fmtBytes(ph.remoteLoadBytes)} in, ${fmtBytes(ph.remoteStoreBytes)} out, ${fmtInt(ph.remoteCycles)} cycles` : ''}`,
          passes(rs), { phase: p });
        node.cycles += ph?.remoteCycles ?? 0;   // the phase's loads and stores count in its cycles
        inner.push(node);
      }
      inner.push(...passes(rows.filter((r) => r.phase < 0)));
    } else {
      inner = passes(rows);
    }
    // This runtime runs the whole schedule for every micro-batch: with gradient accumulation the
    // weight updates accumulate and apply at the last micro-batch of each batch.
    body = [h2d(), ...inner, d2h()];
    if (af > 1) body = [branch('repeat', `Repeat × ${af}`, 'gradient accumulation: one micro-batch each', body, { count: af })];
    if (shape && shape.batches > 1) {
      body = [branch('repeat', `Repeat × ${shape.batches}`, `batchesPerStep (the run “${shape.run.name || 'run'}”: ${shape.batches} batches)`, body, { count: shape.batches })];
    }
  }
  const root = branch('program', 'Main program', shape ? 'Sequence' : 'Sequence · run the session to see its repeat counts (batchesPerStep, gradient accumulation)', body);
  root.cycles = cy.perMicroBatch ?? rows.reduce((a, r) => a + r.cycles, 0);
  return root;
}
