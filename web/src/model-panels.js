// The sidebar's views: the model summary (with the model's metadata), the node panel (with
// initializer statistics and values, the bodies of If / Loop / Scan, the ONNX operator
// documentation) and the search results. All read the runtime's model description
// (popart.describeModel).
import { h, append, clear, formatBytes, formatCount, formatNumber, shapeText, histogram } from './util.js';
import { bodiesOf, allNodes } from './graph/subgraphs.js';
import { loadOpDocs, renderOpDoc } from './op-docs.js';
import { tensorGrid } from './tensor-grid.js';

function tensorMap(d) {
  if (!d._tensors) Object.defineProperty(d, '_tensors', { value: new Map(d.tensors.map((t) => [t.name, t])) });
  return d._tensors;
}

function infoText(t) {
  if (!t) return '?';
  return `${t.dtype ?? '?'} ${shapeText(t.shape)}`;
}

/// A doc string: short ones as they are, long ones folded after the first line.
function docText(text) {
  const t = String(text ?? '').trim();
  if (t.length <= 240 && !t.includes('\n\n')) return h('span.doc-text', {}, t);
  return h('details.doc-text', {}, h('summary', {}, `${t.split('\n')[0].slice(0, 120)}…`), h('div', {}, t));
}

/// The model's metadata, as Netron's model properties: producer, versions, domain, doc strings
/// and the metadata_props table.
function metadataBlock(d) {
  const row = (label, field, value, node = value) => (value === undefined || value === null || value === ''
    ? null : [h('dt', {}, label), h('dd', { dataset: { field } }, node)]);
  const props = d.metadataProps ?? [];
  return h('section.metadata', { testid: 'model-metadata', 'aria-label': 'Model metadata' },
    h('h3', {}, 'Metadata'),
    h('dl.kv', {},
      row('Producer', 'producer', [d.producerName, d.producerVersion].filter(Boolean).join(' ') || '—'),
      row('IR version', 'irVersion', d.irVersion),
      row('Domain', 'domain', d.domain),
      row('Model version', 'modelVersion', d.modelVersion ? String(d.modelVersion) : ''),
      row('Description', 'docString', d.docString, docText(d.docString)),
      row('Graph description', 'graphDocString', d.graphDocString, docText(d.graphDocString))),
    props.length ? h('table.data.props', {},
      h('caption', {}, `Model properties (${props.length})`),
      h('thead', {}, h('tr', {}, h('th', {}, 'Key'), h('th', {}, 'Value'))),
      h('tbody', {}, props.map((p) => h('tr', { dataset: { key: p.key } }, h('td.mono', {}, p.key), h('td', {}, docText(p.value)))))) : null);
}

/// Nodes (at every depth) the runtime has no implementation for, by op type.
function unsupportedBlock(d) {
  const bad = allNodes(d).filter(({ node }) => node.supported === false);
  if (!bad.length) return null;
  const byOp = new Map();
  for (const { node } of bad) {
    const key = `${node.domain || 'ai.onnx'}\u0000${node.opType}\u0000${node.opset}`;
    if (!byOp.has(key)) byOp.set(key, { node, names: [] });
    byOp.get(key).names.push(node.name);
  }
  return h('section.unsupported', { testid: 'unsupported-ops', role: 'note' },
    h('h3', {}, `Not supported by this runtime (${bad.length})`),
    h('ul.plain', {}, [...byOp.values()].map(({ node, names }) => h('li', { dataset: { op: node.opType, domain: node.domain || 'ai.onnx' } },
      h('strong', {}, `⚠ ${node.opType}`), ` (${node.domain || 'ai.onnx'}, opset ${node.opset}) × ${names.length}: `,
      h('span.mono', {}, names.slice(0, 6).join(', ') + (names.length > 6 ? ', …' : ''))))),
    h('p.muted', {}, 'The graph marks them; the model cannot run here until they are replaced.'));
}

export function renderSummary(el, d, { name, bytes, describeMs }) {
  clear(el);
  const ops = Object.entries(d.opHistogram ?? {}).sort((a, b) => b[1] - a[1]);
  const tm = tensorMap(d);
  const io = (names) => h('ul.plain', {}, names.map((n) => h('li', {}, h('span.mono', {}, n), ' ', h('span.muted', {}, infoText(tm.get(n))))));
  append(el, [
    h('h2', {}, name),
    unsupportedBlock(d),
    h('dl.kv', {},
      h('dt', {}, 'File'), h('dd', {}, formatBytes(bytes)),
      h('dt', {}, 'Opsets'), h('dd', {}, d.opsets.map((o) => `${o.domain || 'ai.onnx'} ${o.version}`).join(', ')),
      d.graphName ? [h('dt', {}, 'Graph'), h('dd', {}, d.graphName)] : null,
      h('dt', {}, 'Nodes'), h('dd', {}, formatCount(d.nodes.length)),
      h('dt', {}, 'Parameters'), h('dd', { dataset: { parameterCount: String(d.parameterCount) }, title: 'Initializers and the numeric outputs of Constant nodes' },
        `${formatCount(d.parameterCount)} (${formatBytes(d.parameterBytes)})`),
      d.optimizerStateCount ? [h('dt', {}, 'Optimizer state'), h('dd', { dataset: { optimizerStateCount: String(d.optimizerStateCount) },
        title: "The optimizer's state a training checkpoint holds (momentum and the like), not counted as parameters" },
        `${formatCount(d.optimizerStateCount)} (${formatBytes(d.optimizerStateBytes)})`)] : null,
      h('dt', {}, 'Shapes'), h('dd', {}, d.shapeInference?.ok ? 'inferred by the runtime'
                                            : h('span', { style: { color: 'var(--warn)' } }, `from the file only: ${d.shapeInference?.message ?? ''}`)),
    ),
    metadataBlock(d),
    h('h3', {}, `Inputs (${d.inputs.length})`), io(d.inputs),
    h('h3', {}, `Outputs (${d.outputs.length})`), io(d.outputs),
    h('h3', {}, 'Ops'),
    h('table.data', {},
      h('caption', {}, `${ops.length} op types`),
      h('thead', {}, h('tr', {}, h('th', {}, 'Op'), h('th.num', {}, 'Count'))),
      h('tbody', {}, ops.map(([op, n]) => h('tr', {}, h('td', {}, op), h('td.num', {}, n))))),
    describeMs !== undefined ? h('p.muted', {}, `Described by the runtime in ${describeMs.toFixed(1)} ms.`) : null,
  ]);
}

function valueText(v) {
  if (v === null || v === undefined) return '—';
  if (Array.isArray(v)) return `[${v.map(valueText).join(', ')}]`;
  if (typeof v === 'object') {
    if ('graph' in v) return `graph '${v.graph}' (${v.nodes} nodes)`;
    if ('dtype' in v) return `tensor ${v.dtype} ${shapeText(v.shape)}${v.values ? ` = ${valueText(v.values)}` : ''}`;
    return JSON.stringify(v);
  }
  return typeof v === 'number' ? formatNumber(v, 6) : String(v);
}

function statsBlock(t) {
  const s = t.stats;
  if (!s) return null;
  return h('div.stats', { dataset: { tensor: t.name } },
    h('dl.kv', {},
      ...['min', 'max', 'mean', 'std'].flatMap((k) => [h('dt', {}, k), h('dd', { dataset: { stat: k } }, formatNumber(s[k], 5))]),
      h('dt', {}, 'zeros'), h('dd', { dataset: { stat: 'zeros' } }, `${formatCount(s.zeros)} (${((100 * s.zeros) / Math.max(1, s.count)).toFixed(1)}%)`),
      h('dt', {}, 'NaN / Inf'), h('dd', { dataset: { stat: 'nans' } }, `${s.nans} / ${s.infs}`)),
    s.histogram ? histogram(s.histogram.counts, `Histogram of ${t.name} from ${formatNumber(s.histogram.min)} to ${formatNumber(s.histogram.max)}`) : null,
    s.histogram ? h('div.muted', { style: { display: 'flex', justifyContent: 'space-between', fontSize: '11px' } },
      h('span', {}, formatNumber(s.histogram.min)), h('span', {}, formatNumber(s.histogram.max))) : null);
}

function tensorRows(d, names, onSelect) {
  const tm = tensorMap(d);
  return names.filter(Boolean).map((n) => {
    const t = tm.get(n);
    const other = t && (t.producer || '');
    return h('tr', {},
      h('td.mono', {}, n, t?.kind && t.kind !== 'activation' ? h('span.chip', {}, t.kind) : null),
      h('td', {}, infoText(t), t?.shapeSource === 'file' ? h('span.muted', { title: 'shape from the file' }, ' (file)') : null),
      h('td.num', {}, t?.bytes != null ? formatBytes(t.bytes) : '?'),
      h('td', {}, other && onSelect ? h('button', { type: 'button', onclick: () => onSelect(other), title: `Go to ${other}` }, '↗') : null));
  });
}

/// The values of an initializer or a Constant's output, on demand: a folded section that asks the
/// runtime (values.get(name) -> {name, dtype, shape, data}) when opened and shows the grid.
function valuesBlock(t, values) {
  const body = h('div.values-body');
  const block = h('details.values', { dataset: { valuesOf: t.name } }, h('summary', {}, 'Values'), body);
  let asked = false;
  block.addEventListener('toggle', async () => {
    if (!block.open || asked) return;
    asked = true;
    body.replaceChildren(h('p.muted', { dataset: { values: 'loading' } }, 'Reading the values…'));
    try {
      const v = await values.get(t.name);
      body.replaceChildren(tensorGrid(v));
    } catch (e) {
      asked = false;
      body.replaceChildren(h('p.field-error', { dataset: { values: 'error' } }, e.message));
    }
  });
  return block;
}

/// The node panel: a node of the graph shown (or a graph input / output box's tensor).
/// `onSelect(name)`: go to a node; `onOpenBody(node, bodyKey)`: show a body of an If / Loop /
/// Scan; `values`: {get(name)} for initializer and constant values.
export function renderNode(el, d, node, name, { onSelect, onOpenBody, values } = {}) {
  clear(el);
  if (!node) {
    const t = name ? tensorMap(d).get(name) : null;
    if (t) {  // a graph input / output box
      el.append(h('h2', {}, `${t.outer ? 'outer-scope tensor' : t.kind}: ${t.name}`),
        h('dl.kv', {}, h('dt', {}, 'Type'), h('dd', {}, infoText(t)), h('dt', {}, 'Bytes'), h('dd', {}, formatBytes(t.bytes)),
          h('dt', {}, 'Consumers'), h('dd', {}, (t.consumers ?? []).join(', ') || '—')),
        t.outer ? h('p.muted', {}, 'Defined in an enclosing graph and read inside this body.') : null);
      return;
    }
    el.append(h('p.muted', {}, 'Select a node in the graph (click, or Tab to it and press Enter).'));
    return;
  }
  const tm = tensorMap(d);
  const weights = node.inputs.filter((n) => tm.get(n)?.stats);
  // Values: initializer / constant inputs, and a Constant node's own output.
  const valued = [...node.inputs, ...(node.opType === 'Constant' ? node.outputs : [])]
    .filter((n, i, a) => n && a.indexOf(n) === i && ['initializer', 'constant'].includes(tm.get(n)?.kind));
  const bodies = bodiesOf(node);
  const docSection = h('section.op-docs', { testid: 'op-docs', dataset: { state: 'loading' }, 'aria-live': 'polite' },
    h('h3', {}, 'Documentation'), h('p.muted', {}, 'Loading the operator documentation…'));
  append(el, [
    h('h2', {}, node.opType, ' ', h('span.muted', {}, node.name)),
    node.supported === false
      ? h('p.warning', { dataset: { field: 'unsupported' } }, `⚠ ${node.opType} (${node.domain || 'ai.onnx'}, opset ${node.opset}) is not supported by this runtime: the model cannot run here.`)
      : null,
    h('dl.kv', {},
      h('dt', {}, 'Op'), h('dd', { dataset: { field: 'op' } }, node.opType),
      h('dt', {}, 'Domain'), h('dd', {}, node.domain || 'ai.onnx'),
      h('dt', {}, 'Opset'), h('dd', {}, node.opset ?? '?'),
      h('dt', {}, 'Name'), h('dd.mono', {}, node.name),
      node.docString ? [h('dt', {}, 'Description'), h('dd', { dataset: { field: 'docString' } }, docText(node.docString))] : null),
    bodies.length ? [
      h('h3', {}, bodies.length === 1 ? 'Body' : 'Bodies'),
      h('div.button-row', {}, bodies.map((b) => h('button', {
        type: 'button', testid: 'open-body', dataset: { body: b.key }, onclick: () => onOpenBody?.(node.name, b.key),
        title: `Show the graph of ${node.name}'s ${b.attribute} (double-click the node does the same)`,
      }, `Open ${b.key} (${b.graph.nodes?.length ?? 0} node${b.graph.nodes?.length === 1 ? '' : 's'})`))),
    ] : null,
    h('h3', {}, 'Attributes'),
    node.attributes.length
      ? h('table.data', {}, h('tbody', {}, node.attributes.map((a) => h('tr', {}, h('td.mono', {}, a.name), h('td.muted', {}, a.type), h('td', {}, valueText(a.value))))))
      : h('p.muted', {}, 'none'),
    h('h3', {}, 'Inputs'),
    h('table.data', { dataset: { section: 'inputs' } }, h('tbody', {}, tensorRows(d, node.inputs, onSelect))),
    h('h3', {}, 'Outputs'),
    h('table.data', { dataset: { section: 'outputs' } }, h('tbody', {}, tensorRows(d, node.outputs, null))),
    valued.length ? h('h3', {}, 'Weights (as in the file)') : null,
    valued.map((n) => {
      const t = tm.get(n);
      return h('details.weight', { open: weights.includes(n) && weights.length <= 2, dataset: { tensor: n } },
        h('summary', {}, `${n} — ${infoText(t)}`), statsBlock(t), valuesBlock(t, values));
    }),
    docSection,
  ]);
  loadOpDocs().then((docs) => {
    if (docSection.isConnected) renderOpDoc(docSection, node, docs);
  });
}

export function renderSearch(ul, hits, { onSelect, query = '' } = {}) {
  clear(ul);
  if (!hits.length) {
    if (query) ul.append(h('li.muted', { dataset: { testid: 'search-empty' } }, `No node, tensor or op type matches '${query}'.`));
    return;
  }
  const shown = hits.slice(0, 500);
  for (const hit of shown) {
    ul.append(h('li', {}, h('button', { type: 'button', onclick: () => onSelect?.(hit), dataset: { node: hit.node ?? '' } },
      hit.name, h('span.kind', {}, hit.kind === 'node' ? hit.opType ?? 'node' : 'tensor'))));
  }
  if (hits.length > shown.length) ul.append(h('li.muted', {}, `… and ${hits.length - shown.length} more`));
}
