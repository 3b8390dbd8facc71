// The sidebar's views: the model summary, the node panel (with initializer statistics) and the
// search results. All read the runtime's model description (popart.describeModel).
import { h, append, clear, formatBytes, formatCount, formatNumber, shapeText, histogram } from './util.js';

function tensorMap(d) {
  if (!d._tensors) Object.defineProperty(d, '_tensors', { value: new Map(d.tensors.map((t) => [t.name, t])) });
  return d._tensors;
}

function infoText(t) {
  if (!t) return '?';
  return `${t.dtype ?? '?'} ${shapeText(t.shape)}`;
}

export function renderSummary(el, d, { name, bytes, describeMs }) {
  clear(el);
  const ops = Object.entries(d.opHistogram ?? {}).sort((a, b) => b[1] - a[1]);
  const tm = tensorMap(d);
  const io = (names) => h('ul.plain', {}, names.map((n) => h('li', {}, h('span.mono', {}, n), ' ', h('span.muted', {}, infoText(tm.get(n))))));
  append(el, [
    h('h2', {}, name),
    h('dl.kv', {},
      h('dt', {}, 'File'), h('dd', {}, formatBytes(bytes)),
      h('dt', {}, 'IR version'), h('dd', {}, d.irVersion),
      h('dt', {}, 'Opsets'), h('dd', {}, d.opsets.map((o) => `${o.domain || 'ai.onnx'} ${o.version}`).join(', ')),
      h('dt', {}, 'Producer'), h('dd', {}, [d.producerName, d.producerVersion].filter(Boolean).join(' ') || '—'),
      d.graphName ? [h('dt', {}, 'Graph'), h('dd', {}, d.graphName)] : null,
      h('dt', {}, 'Nodes'), h('dd', {}, formatCount(d.nodes.length)),
      h('dt', {}, 'Parameters'), h('dd', { dataset: { parameterCount: String(d.parameterCount) } },
        `${formatCount(d.parameterCount)} (${formatBytes(d.parameterBytes)})`),
      h('dt', {}, 'Shapes'), h('dd', {}, d.shapeInference?.ok ? 'inferred by the runtime'
                                            : h('span', { style: { color: 'var(--warn)' } }, `from the file only: ${d.shapeInference?.message ?? ''}`)),
    ),
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

export function renderNode(el, d, node, name, { onSelect } = {}) {
  clear(el);
  if (!node) {
    const t = name ? tensorMap(d).get(name) : null;
    if (t) {  // a graph input / output box
      el.append(h('h2', {}, `${t.kind}: ${t.name}`),
        h('dl.kv', {}, h('dt', {}, 'Type'), h('dd', {}, infoText(t)), h('dt', {}, 'Bytes'), h('dd', {}, formatBytes(t.bytes)),
          h('dt', {}, 'Consumers'), h('dd', {}, (t.consumers ?? []).join(', ') || '—')));
      return;
    }
    el.append(h('p.muted', {}, 'Select a node in the graph (click, or Tab to it and press Enter).'));
    return;
  }
  const tm = tensorMap(d);
  const weights = node.inputs.filter((n) => tm.get(n)?.stats);
  append(el, [
    h('h2', {}, node.opType, ' ', h('span.muted', {}, node.name)),
    h('dl.kv', {},
      h('dt', {}, 'Op'), h('dd', { dataset: { field: 'op' } }, node.opType),
      h('dt', {}, 'Domain'), h('dd', {}, node.domain || 'ai.onnx'),
      h('dt', {}, 'Opset'), h('dd', {}, node.opset ?? '?'),
      h('dt', {}, 'Name'), h('dd.mono', {}, node.name)),
    h('h3', {}, 'Attributes'),
    node.attributes.length
      ? h('table.data', {}, h('tbody', {}, node.attributes.map((a) => h('tr', {}, h('td.mono', {}, a.name), h('td.muted', {}, a.type), h('td', {}, valueText(a.value))))))
      : h('p.muted', {}, 'none'),
    h('h3', {}, 'Inputs'),
    h('table.data', { dataset: { section: 'inputs' } }, h('tbody', {}, tensorRows(d, node.inputs, onSelect))),
    h('h3', {}, 'Outputs'),
    h('table.data', { dataset: { section: 'outputs' } }, h('tbody', {}, tensorRows(d, node.outputs, null))),
    weights.length ? h('h3', {}, 'Initializer statistics (as loaded)') : null,
    weights.map((n) => {
      const t = tm.get(n);
      return h('details', { open: weights.length <= 2 },
        h('summary', {}, `${n} — ${infoText(t)}`), statsBlock(t));
    }),
  ]);
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
