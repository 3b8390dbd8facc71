// The operator documentation of the node panel: op-docs.json (written at build time by
// web/tools/gen_op_docs.py from the ONNX schemas and the runtime's op list), fetched from the
// page's own origin the first time a node is selected. For a node, the schema version at or below
// the model's opset of its domain is shown; ops of other domains say that ONNX documents none
// (with the op list's own description for Graphcore's ops).
import { h, append } from './util.js';

let loading = null;

/// The documentation (fetched once): {onnx, texts, runtime, onnxVersion} or {unavailable: why}.
export function loadOpDocs(url = 'op-docs.json') {
  loading ??= fetch(url)
    .then((r) => (r.ok ? r.json() : { unavailable: `${url}: HTTP ${r.status}` }))
    .catch((e) => ({ unavailable: `${url}: ${e.message}` }));
  return loading;
}

/// The newest schema of `opType` in `domain` at or below `opset` ({entry, versions}); an op whose
/// first version is newer than the opset gets that first version, with `newer: true`.
export function pickSchema(docs, domain, opType, opset) {
  const versions = docs?.onnx?.[domain || 'ai.onnx']?.[opType];
  if (!versions?.length) return null;
  const v = Number(opset);
  const entry = Number.isFinite(v) ? versions.find((e) => e.version <= v) : versions[0];
  return entry ? { entry, versions } : { entry: versions[versions.length - 1], versions, newer: true };
}

// ---------------------------------------------------------------- a little markdown

const INLINE = /(`[^`]+`)|(\*\*[^*]+\*\*)|(\[([^\]]+)\]\([^)]*\))/g;

/// Inline markdown: `code`, **bold**, [text](link) as its text (the page links nowhere).
function inline(text) {
  const out = [];
  let last = 0;
  for (const m of text.matchAll(INLINE)) {
    if (m.index > last) out.push(text.slice(last, m.index));
    if (m[1]) out.push(h('code', {}, m[1].slice(1, -1)));
    else if (m[2]) out.push(h('strong', {}, m[2].slice(2, -2)));
    else out.push(m[4]);
    last = m.index + m[0].length;
  }
  if (last < text.length) out.push(text.slice(last));
  return out;
}

/// The schemas' markdown as elements: paragraphs, lists, fenced code, tables kept as text.
export function markdown(text) {
  const out = [];
  const lines = String(text ?? '').replace(/\r/g, '').split('\n');
  let para = [], list = null;
  const flush = () => {
    if (para.length) out.push(h('p', {}, inline(para.join(' '))));
    para = [];
    if (list) out.push(list);
    list = null;
  };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    const t = line.trim();
    if (t.startsWith('```')) {
      flush();
      const code = [];
      while (++i < lines.length && !lines[i].trim().startsWith('```')) code.push(lines[i]);
      out.push(h('pre', {}, code.join('\n')));
    } else if (t.startsWith('|')) {
      flush();
      const rows = [line];
      while (i + 1 < lines.length && lines[i + 1].trim().startsWith('|')) rows.push(lines[++i]);
      out.push(h('pre', {}, rows.join('\n')));
    } else if (/^([*-]|\d+\.)\s+/.test(t)) {
      if (para.length) { out.push(h('p', {}, inline(para.join(' ')))); para = []; }
      list ??= h(/^\d/.test(t) ? 'ol' : 'ul');
      list.append(h('li', {}, inline(t.replace(/^([*-]|\d+\.)\s+/, ''))));
    } else if (!t) {
      flush();
    } else if (list && /^\s{2,}/.test(line)) {
      list.lastChild.append(' ', ...inline(t));
    } else {
      if (list) flush();
      para.push(t);
    }
  }
  flush();
  return out;
}

// ---------------------------------------------------------------- the panel section

function paramTable(params, texts, caption) {
  if (!params.length) return null;
  return h('table.data.doc-params', { dataset: { section: caption.toLowerCase() } },
    h('caption', {}, caption),
    h('tbody', {}, params.map((p) => h('tr', {},
      h('td.mono', {}, p.name, p.option ? h('span.muted', {}, ` (${p.option})`) : null),
      h('td.mono.muted', {}, p.type),
      h('td', {}, markdown(texts[p.doc] ?? ''))))));
}

function attrTable(attrs, texts) {
  if (!attrs.length) return null;
  const dflt = (a) => (a.required ? 'required' : a.default !== undefined ? `default ${JSON.stringify(a.default)}` : 'optional');
  return h('table.data.doc-params', { dataset: { section: 'attributes' } },
    h('caption', {}, 'Attributes'),
    h('tbody', {}, attrs.map((a) => h('tr', {},
      h('td.mono', {}, a.name),
      h('td.muted', {}, h('span.mono', {}, a.type), h('br'), dflt(a)),
      h('td', {}, markdown(texts[a.doc] ?? ''))))));
}

/// Fills `el` (the node panel's documentation section) for `node` from `docs`.
export function renderOpDoc(el, node, docs) {
  const domain = node.domain || 'ai.onnx';
  el.replaceChildren(h('h3', {}, 'Documentation'));
  const say = (state, ...content) => {
    el.dataset.state = state;
    append(el, content);  // skips the sections a schema does not have (null)
  };
  if (domain === 'ai.onnx' || domain === 'ai.onnx.ml' || domain.startsWith('ai.onnx.')) {
    if (!docs?.onnx) {
      say('unavailable', h('p.muted', {}, `The ONNX operator documentation is unavailable: this page was built without it${docs?.unavailable ? ` (${docs.unavailable})` : ''}.`));
      return;
    }
    const pick = pickSchema(docs, domain, node.opType, node.opset);
    if (!pick) {
      say('none', h('p.muted', {}, `The ONNX schemas (onnx ${docs.onnxVersion}) have no op ${node.opType} in ${domain}.`));
      return;
    }
    const { entry: e, versions, newer } = pick;
    const t = docs.texts;
    const others = versions.map((x) => x.version).filter((v) => v !== e.version);
    el.dataset.version = String(e.version);
    say('ready',
      h('p.doc-version', {},
        h('strong', {}, node.opType), ` — ${domain}, version ${e.version}`,
        newer ? ` (the op's first version; the model imports opset ${node.opset})`
              : ` (the newest at or below the model's opset ${node.opset})`,
        e.deprecated ? h('span.chip', {}, 'deprecated') : null, e.experimental ? h('span.chip', {}, 'experimental') : null,
        others.length ? h('span.muted', {}, `; other versions: ${others.join(', ')}`) : null),
      h('div.doc-summary', {}, markdown(t[e.doc])),
      paramTable(e.inputs, t, 'Inputs'), paramTable(e.outputs, t, 'Outputs'), attrTable(e.attributes, t),
      e.types.length ? h('table.data.doc-params', { dataset: { section: 'types' } }, h('caption', {}, 'Type constraints'),
        h('tbody', {}, e.types.map((c) => h('tr', {}, h('td.mono', {}, c.name), h('td.mono.muted', {}, c.allowed.join(', ')), h('td', {}, markdown(t[c.doc])))))) : null,
      h('p.muted.doc-source', {}, `From the ONNX schemas (onnx ${docs.onnxVersion}).`));
    return;
  }
  const own = docs?.runtime?.[domain]?.[node.opType];
  say(own ? 'runtime' : 'none',
    h('p', {}, `No ONNX documentation exists for ${node.opType}: it is in the domain ${domain}, not an ONNX one.`),
    own ? h('p', { dataset: { field: 'runtime-doc' } },
      `This runtime implements it (${domain === 'ai.graphcore' ? "Graphcore's PopART op" : domain}, ${own.section}; `,
      `inputs ${own.inputs}, outputs ${own.outputs}, since version ${own.since})`,
      own.description ? `: ${own.description}` : '.') : null);
}
