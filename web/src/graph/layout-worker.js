// The graph view's layout worker: runs dagre off the UI thread (a module worker).
//   in:  {id, nodes: [{id, width, height}], edges: [{from, to, name?, width?, height?}], options?: {rankdir, nodesep, ranksep}}
//   out: {id, positions, edgePoints, labels, width, height, ms}   or   {id, error}
// positions: Float64Array [x0, y0, x1, y1, ...] (box centres, in the order of `nodes`);
// edgePoints: one Float64Array [x, y, x, y, ...] per edge, in the order of `edges` (dagre's route,
// first point on the source box, last on the target box); width/height: the drawing's extent.
// An edge with a width and height has a label of that size that dagre makes room for (placed on
// the edge, in the middle); labels: Float64Array [x, y, ...] of the label centres (NaN without).
// Edges whose ends are not among the nodes, and self loops, get an empty route.
// The view terminates the worker to cancel a layout (dagre cannot be interrupted).
import dagre from '@dagrejs/dagre';

/// Longest-path ranks without recursion (Kahn's order), sources pulled down next to their first
/// consumer. Returns {rank: Int32Array, depth, back: Set of edge indices closing a cycle}.
export function rankNodes(count, edges) {
  const indeg = new Int32Array(count), out = Array.from({ length: count }, () => []);
  edges.forEach((e, i) => { if (e.from !== e.to) { out[e.from].push(i); indeg[e.to]++; } });
  const rank = new Int32Array(count), done = new Uint8Array(count), queue = [];
  for (let v = 0; v < count; v++) if (indeg[v] === 0) queue.push(v);
  const back = new Set();
  let seen = 0;
  for (;;) {
    while (queue.length) {
      const v = queue.pop();
      done[v] = 1;
      seen++;
      for (const i of out[v]) {
        const w = edges[i].to;
        if (done[w]) continue;
        rank[w] = Math.max(rank[w], rank[v] + 1);
        if (--indeg[w] === 0) queue.push(w);
      }
    }
    if (seen === count) break;
    // A cycle (not in a valid ONNX graph): the unfinished node of least in-degree starts again;
    // its remaining in-edges are dropped from the layout.
    let best = -1;
    for (let v = 0; v < count; v++) if (!done[v] && (best < 0 || indeg[v] < indeg[best])) best = v;
    edges.forEach((e, i) => { if (e.to === best && !done[e.from]) back.add(i); });
    indeg[best] = 0;
    queue.push(best);
  }
  // Pull each source down to just above its nearest consumer.
  const hasIn = new Uint8Array(count);
  edges.forEach((e, i) => { if (!back.has(i) && e.from !== e.to) hasIn[e.to] = 1; });
  for (let v = 0; v < count; v++) {
    if (hasIn[v] || out[v].length === 0) continue;
    let m = Infinity;
    for (const i of out[v]) if (!back.has(i)) m = Math.min(m, rank[edges[i].to]);
    if (m !== Infinity) rank[v] = m - 1;
  }
  let depth = 0;
  for (let v = 0; v < count; v++) depth = Math.max(depth, rank[v]);
  return { rank, depth, back };
}

/// dagre's order phase without its recursive DFS (used with our ranks): an iterative DFS for the
/// first order, then barycentre sweeps down and up.
function iterativeOrder(g) {
  const layers = [];
  const nodes = g.nodes().filter((v) => !(g.children(v)?.length));
  for (const v of nodes) (layers[g.node(v).rank] ??= []);
  nodes.sort((a, b) => g.node(a).rank - g.node(b).rank);
  const seen = new Set();
  for (const s of nodes) {
    const stack = [s];
    while (stack.length) {
      const v = stack.pop();
      if (seen.has(v)) continue;
      seen.add(v);
      layers[g.node(v).rank].push(v);
      const succ = g.successors(v) ?? [];
      for (let i = succ.length - 1; i >= 0; i--) if (!seen.has(succ[i])) stack.push(succ[i]);
    }
  }
  const pos = new Map();
  const number = (layer) => layer.forEach((v, i) => pos.set(v, i));
  layers.forEach((l) => l && number(l));
  const sweep = (from, to, step, neighbours) => {
    for (let r = from; r !== to; r += step) {
      const layer = layers[r];
      if (!layer) continue;
      const bary = new Map();
      for (const v of layer) {
        const ns = neighbours(v) ?? [];
        let sum = 0, n = 0;
        for (const u of ns) if (pos.has(u)) { sum += pos.get(u); n++; }
        bary.set(v, n ? sum / n : pos.get(v));
      }
      layer.sort((a, b) => bary.get(a) - bary.get(b) || pos.get(a) - pos.get(b));
      number(layer);
    }
  };
  for (let i = 0; i < 3; i++) {
    sweep(1, layers.length, 1, (v) => g.predecessors(v));
    sweep(layers.length - 2, -1, -1, (v) => g.successors(v));
  }
  for (const l of layers) if (l) l.forEach((v, i) => { g.node(v).order = i; });
}

/// Lays out one request (exported for tests in Node).
export function layout({ nodes, edges, options = {} }) {
  const index = new Map(nodes.map((n, i) => [String(n.id), i]));
  const ends = edges.map((e) => ({ from: index.get(String(e.from)), to: index.get(String(e.to)) }));
  const valid = ends.map((e) => e.from !== undefined && e.to !== undefined && e.from !== e.to);
  const { rank, depth, back } = rankNodes(nodes.length, ends.map((e, i) => (valid[i] ? e : { from: 0, to: 0 })));
  // dagre's own rankers and its DFS acyclicer recurse once per rank: a deep graph overflows a
  // worker's stack. Deep or large graphs get our ranks (ranker 'none') and no cycle to break.
  const own = options.ranker === undefined ? nodes.length > 1500 || depth > 200 : options.ranker === 'none';
  const g = new dagre.graphlib.Graph({ multigraph: true });
  g.setGraph({
    rankdir: options.rankdir ?? 'TB',
    nodesep: options.nodesep ?? 24,
    ranksep: options.ranksep ?? 34,
    edgesep: options.edgesep ?? 10,
    marginx: 16,
    marginy: 16,
    acyclicer: 'greedy',
    ranker: own ? 'none' : options.ranker ?? 'network-simplex',
  });
  g.setDefaultEdgeLabel(() => ({}));
  // dagre doubles every edge's minimum length (room for edge labels): our ranks step by 2.
  nodes.forEach((n, i) => g.setNode(String(n.id), own ? { width: n.width, height: n.height, rank: 2 * rank[i] } : { width: n.width, height: n.height }));
  const used = [];
  edges.forEach((e, i) => {
    if (!valid[i] || (own && back.has(i))) return;
    g.setEdge(String(e.from), String(e.to), e.width ? { width: e.width, height: e.height ?? 0, labelpos: 'c' } : {}, 'e' + i);
    used.push(i);
  });
  dagre.layout(g, own ? { customOrder: (graph) => iterativeOrder(graph) } : {});
  const positions = new Float64Array(nodes.length * 2);
  nodes.forEach((n, i) => {
    const p = g.node(String(n.id));
    positions[2 * i] = p.x;
    positions[2 * i + 1] = p.y;
  });
  const edgePoints = edges.map(() => new Float64Array(0));
  const labels = new Float64Array(edges.length * 2).fill(NaN);
  for (const i of used) {
    const e = edges[i];
    const ge = g.edge(String(e.from), String(e.to), 'e' + i);
    if (e.width && ge?.x !== undefined) { labels[2 * i] = ge.x; labels[2 * i + 1] = ge.y; }
    const pts = ge?.points ?? [];
    const a = new Float64Array(pts.length * 2);
    pts.forEach((p, k) => { a[2 * k] = p.x; a[2 * k + 1] = p.y; });
    edgePoints[i] = a;
  }
  const gr = g.graph();
  return { positions, edgePoints, labels, width: gr.width ?? 0, height: gr.height ?? 0, ranker: own ? 'longest-path (own)' : g.graph().ranker };
}

if (typeof self !== 'undefined' && typeof self.postMessage === 'function' && typeof window === 'undefined') {
  self.onmessage = (ev) => {
    const { id } = ev.data ?? {};
    try {
      const t0 = performance.now();
      const r = layout(ev.data);
      const transfer = [r.positions.buffer, r.labels.buffer, ...r.edgePoints.map((a) => a.buffer)];
      self.postMessage({ id, ...r, ms: performance.now() - t0 }, transfer);
    } catch (e) {
      self.postMessage({ id, error: String(e?.message ?? e) });
    }
  };
}
