// The bodies of If / Loop / Scan nodes (a description's `subgraphs`, at every depth) as graphs the
// view can draw: which bodies a node has, what a body reads from the graphs around it, and a path
// from the main graph down to a body. Pure functions of the description (no DOM).

const PREFERRED = ['then_branch', 'else_branch', 'body'];

/// A node's bodies in the order a person expects (then before else, then the rest as the core
/// lists them): [{key, attribute, graph}]. `key` names the body in a path: the GRAPH attribute
/// it came from (`subgraph.attribute`), with `#k` for the k-th graph of a GRAPHS attribute.
export function bodiesOf(node) {
  const subs = node?.subgraphs ?? [];
  const seen = new Map();
  const out = subs.map((graph, i) => {
    const attribute = graph.attribute;
    const k = seen.get(attribute) ?? 0;
    seen.set(attribute, k + 1);
    return { key: k ? `${attribute}#${k}` : attribute, attribute, graph, index: i };
  });
  const rank = (b) => {
    const r = PREFERRED.indexOf(b.attribute);
    return r < 0 ? PREFERRED.length : r;
  };
  return out.sort((a, b) => rank(a) - rank(b) || a.index - b.index);
}

/// The outer-scope tensors a node's bodies read that are not among its inputs (the core's
/// `implicitInputs`).
export function implicitInputsOf(node) {
  return node?.implicitInputs ?? [];
}

/// Names a graph's nodes read (inputs and what their own bodies read) that the graph does not
/// define (its inputs, its nodes' outputs, its initializers), in first-read order.
export function outerReads(g) {
  const defined = new Set(g.inputs ?? []);
  for (const n of g.nodes ?? []) for (const o of n.outputs ?? []) defined.add(o);
  for (const t of g.tensors ?? []) if (t.kind === 'initializer') defined.add(t.name);
  const out = [];
  const seen = new Set();
  for (const n of g.nodes ?? []) {
    for (const t of [...(n.inputs ?? []), ...implicitInputsOf(n)]) {
      if (!t || defined.has(t) || seen.has(t)) continue;
      seen.add(t);
      out.push(t);
    }
  }
  return out;
}

/// The graphs from the main graph down the path ([{node, body}], body a key of bodiesOf), with
/// the node each body belongs to: [{graph, node?, body?}], or null when the path does not exist.
export function graphChain(description, path) {
  const chain = [{ graph: description }];
  let g = description;
  for (const seg of path) {
    const node = (g.nodes ?? []).find((n) => n.name === seg.node);
    const body = node ? bodiesOf(node).find((b) => b.key === seg.body) : null;
    if (!body) return null;
    g = body.graph;
    chain.push({ graph: g, node, body });
  }
  return chain;
}

/// A description of the graph at `path` that GraphView and the node panel draw: the main
/// description itself for [], else the body's nodes, inputs and outputs, its tensors, and the
/// outer-scope tensors it reads (`outerInputs`: drawn as input boxes; an outer initializer stays
/// a weight row), each with the type and shape of the graph it comes from. Null for a path the
/// model does not have.
export function graphAt(description, path) {
  const chain = graphChain(description, path);
  if (!chain) return null;
  if (!path.length) return description;
  const g = chain[chain.length - 1].graph;
  const own = new Set((g.tensors ?? []).map((t) => t.name));
  const lookup = (name) => {
    for (let i = chain.length - 2; i >= 0; i--) {
      const t = (chain[i].graph.tensors ?? []).find((x) => x.name === name);
      if (t) return t;
    }
    return null;
  };
  const outerInputs = [];
  const extra = [];
  for (const name of outerReads(g)) {
    if (own.has(name)) continue;
    const t = lookup(name);
    const consumers = (g.nodes ?? []).filter((n) => (n.inputs ?? []).includes(name) || implicitInputsOf(n).includes(name)).map((n) => n.name);
    const weight = t?.kind === 'initializer';
    if (!weight) outerInputs.push(name);
    extra.push({ ...(t ?? { dtype: null, shape: null, elements: null, bytes: null, stats: null }), name,
                 kind: weight ? 'initializer' : 'outer', outer: true, producer: '', consumers });
  }
  const last = chain[chain.length - 1];
  return {
    graphName: g.name, inputs: g.inputs ?? [], outputs: g.outputs ?? [], nodes: g.nodes ?? [],
    tensors: [...(g.tensors ?? []), ...extra], outerInputs, opsets: description.opsets,
    body: { node: last.node.name, opType: last.node.opType, attribute: last.body.attribute, depth: path.length },
  };
}

/// A path as the URL hash keeps it: `node.body/node.body` (node names URI-encoded, so a '/' or '.'
/// in a name survives; a body key never holds a '.').
export function pathText(path) {
  return path.map((s) => `${encodeURIComponent(s.node)}.${s.body}`).join('/');
}

export function parsePath(text) {
  if (!text) return [];
  return text.split('/').map((seg) => {
    const dot = seg.lastIndexOf('.');
    if (dot <= 0) return null;
    try {
      return { node: decodeURIComponent(seg.slice(0, dot)), body: seg.slice(dot + 1) };
    } catch {
      return null;
    }
  }).filter(Boolean);
}

/// Every node at every depth, with the path of the graph it is in: [{node, path}].
export function allNodes(description) {
  const out = [];
  const walk = (g, path) => {
    for (const n of g.nodes ?? []) {
      out.push({ node: n, path });
      for (const b of bodiesOf(n)) walk(b.graph, [...path, { node: n.name, body: b.key }]);
    }
  };
  walk(description, []);
  return out;
}
