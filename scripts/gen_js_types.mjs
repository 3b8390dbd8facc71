// Generates the parts of wasm/js/index.d.ts (SessionOptions fields, the public enums, the
// aiGraphcore methods) and of wasm/js/report-types.d.ts (the report document's types) that mirror
// the core's tables, from the built module, between the "BEGIN generated" / "END generated"
// markers. tests/js/reflection.test.mjs fails when a file differs from what this writes.
// Usage: node scripts/gen_js_types.mjs [pkgDir]   (rewrites both files)
//        node scripts/gen_js_types.mjs --report-schema FILE
//   rewrites only the report types from the core's report::schema() as JSON, which the native
//   build gives without a wasm module:
//   build/ci/native/popart report --schema > schema.json   (or Python: popart.reportSchema())
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const DTS = path.join(ROOT, 'wasm/js/index.d.ts');
export const REPORT_DTS = path.join(ROOT, 'wasm/js/report-types.d.ts');
/// The file that holds a generated block.
const fileOf = (block) => (block === 'report types' ? REPORT_DTS : DTS);

const union = (values) => values.map((v) => `'${v}'`).join(' | ');

/// The report document's types from the core's table report::schema() ([{path, type, optional,
/// doc}], parents first; "[]" in a path: an array's elements): one interface per object, named
/// Report + its key (singular for arrays: compilation.ops[] is ReportOp), prefixed with its
/// parent's key where two would share a name (ReportRunStep, ReportSimulationStep).
/// python/gen_stubs.py names the Python stub's classes the same way.
export function reportTypes(schema) {
  const cap = (s) => s[0].toUpperCase() + s.slice(1);
  const segment = (path) => path.split('.').pop();
  const singular = (seg) => (seg.endsWith('[]') || seg.endsWith('s') ? seg.replace(/\[\]$/, '').replace(/s$/, '') : seg);
  const parentOf = (path) => path.split('.').slice(0, -1).join('.');
  const objects = schema.filter((f) => f.type === 'object' || f.type === 'object[]');
  const base = (f) => cap(f.type === 'object[]' ? singular(segment(f.path)) : segment(f.path));
  const counts = new Map();
  for (const f of objects) counts.set(base(f), (counts.get(base(f)) ?? 0) + 1);
  const names = new Map(objects.map((f) => {
    const parent = segment(parentOf(f.path));
    const prefix = counts.get(base(f)) > 1 && parent ? cap(singular(parent)) : '';
    return [f.path, `Report${prefix}${base(f)}`];
  }));
  const tsType = (f) => ({ string: 'string', int: 'number', float: 'number', bool: 'boolean', 'int[]': 'number[]', 'string[]': 'string[]',
                           object: names.get(f.path), 'object[]': `${names.get(f.path)}[]` })[f.type];
  const comment = (doc, indent) => `${indent}/** ${doc.replace(/\*\//g, '*\\/')} */\n`;
  const members = (path) => schema
    .filter((f) => parentOf(f.path).replace(/\[\]$/, '') === path)
    .map((f) => `${comment(f.doc, '  ')}  ${segment(f.path)}${f.optional ? '?' : ''}: ${tsType(f)};`).join('\n');
  const root = '/** Session.getReport(): the core\'s report document (report::reportJson; the keys of ' +
               'popart.reportSchema()). */\n' +
               `export interface Report {\n${members('')}\n}`;
  return [root, ...objects.map((f) => `${comment(f.doc, '')}export interface ${names.get(f.path)} {\n` +
                                      `${members(f.path)}\n}`)].join('\n');
}

/// The generated blocks for the API `popart` (from createPopart()).
export function generatedBlocks(popart) {
  const enumNames = Object.keys(popart.enumValues);
  const type = (o) => ({
    bool: 'boolean', int: 'number', float: 'number', string: 'string', ints: 'number[]', floats: 'number[]',
    strings: 'string[]', map: 'Record<string, string>', intmap: 'Record<string, number>', enum: o.enumName,
    enums: `${o.enumName}[]`, callback: '((progress: number, total: number) => void) | false',
    commGroup: 'CommGroup | [number, number]',
  })[o.type];
  const doc = (o, indent) => `${indent}/** ${o.doc} Default: ${JSON.stringify(o.default)}. */\n`;
  // Nested settings (weightTensorLocationSettings.location.storage) as nested object types.
  const tree = new Map();
  for (const o of popart.SessionOptions.list()) {
    const parts = o.name.split('.');
    let node = tree;
    for (const p of parts.slice(0, -1)) {
      if (!node.has(p)) node.set(p, new Map());
      node = node.get(p);
    }
    node.set(parts[parts.length - 1], o);
  }
  const render = (node, depth) => {
    const indent = '  '.repeat(depth);
    return [...node].map(([k, v]) => (v instanceof Map
      ? `${indent}${k}?: {\n${render(v, depth + 1)}\n${indent}};`
      : `${doc(v, indent)}${indent}${k}?: ${type(v)};`)).join('\n');
  };
  const options = render(tree, 1);
  const types = enumNames.map((n) => `export type ${n} = ${union(popart.enumValues[n])};`).join('\n');
  const members = enumNames
    .map((n) => `  ${n}: { ${popart.enumValues[n].map((v) => `${v}: '${v}'`).join('; ')} };`).join('\n');
  const attrType = (a) => ({ float: 'number', int: 'number', bool: 'boolean', ints: 'number[]', floats: 'number[]',
                              string: 'string', strings: 'string[]', enum: a.enumName, graph: 'Builder',
                              dtype: 'string | number', intss: 'number[][]' })[a.type];
  const argsType = (op) => ({ args: [`args${op.argsOptional || op.minInputs === 0 ? '?' : ''}: TensorId[]`],
                              arg: ['arg: TensorId | TensorId[]'], none: [],
                              groups: ['args: TensorId[][]'] })[op.inputsForm];
  const methods = popart.Builder.graphcoreOps().map((op) => {
    const params = [...argsType(op),
                    ...op.attrs.map((a) => `${a.name}${a.required ? '' : '?'}: ${attrType(a)}`),
                    'debugContext?: string'];
    const defaults = op.attrs.filter((a) => 'default' in a).map((a) => `${a.name} = ${JSON.stringify(a.default)}`);
    const result = op.returnsList ? 'TensorId[]' : (op.numOutputs === 0 && !op.numOutputsFrom ? 'void' : 'TensorId');
    return `  /** ${op.doc} (${op.opType}${defaults.length ? `; ${defaults.join(', ')}` : ''}) */\n` +
           `  ${op.method}(${params.join(', ')}): ${result};`;
  }).join('\n');
  const categories = `export type MemoryCategoryName = ${union(popart.memoryCategories)};`;
  // The optimizer and loss constructors (the core's factoryList()): one construct signature per overload.
  const factoryType = (a) => ({ values: 'Record<string, OptimizerValueLike>', clipNorms: 'ClipNormSettings[]',
                                enum: a.enumName, dtype: 'DataTypeName', float: 'number', int: 'number',
                                optionalInt: 'number | null', bool: 'boolean', string: 'string',
                                tensor: 'TensorId' })[a.kind];
  const factories = popart.factoryList().map((f) => {
    const result = f.family === 'loss' ? 'Loss' : 'Optimizer';
    const sigs = f.signatures.map((s) => {
      const params = s.args.map((a) => `${a.name}${a.required ? '' : '?'}: ${factoryType(a)}`).join(', ');
      const defaults = s.args.filter((a) => !a.required).map((a) => `${a.name} = ${JSON.stringify(a.default)}`);
      const doc = [s.doc, defaults.length ? `Defaults: ${defaults.join(', ')}.` : ''].filter(Boolean).join(' ');
      return `${doc ? `    /** ${doc} */\n` : ''}    new (${params}): ${result};`;
    });
    return `  /** ${f.doc} */\n  ${f.name}: {\n${sigs.join('\n')}\n  };`;
  }).join('\n');
  // The settings classes (the core's settingsStructList()): one construct signature per positional
  // form, and one taking an object of fields.
  const optionByName = new Map(popart.SessionOptions.list().map((o) => [o.name, o]));
  const structs = new Map(popart.settingsStructList().map((st) => [st.name, st]));
  const fieldType = (st, f, i) => {
    const sub = st.fieldStructs[i];
    if (!sub) return type(optionByName.get(`${st.paths[0]}.${f}`));
    const inner = structs.get(sub);
    return `SettingsValue | ${fieldType(inner, inner.forms[0][0], inner.fields.indexOf(inner.forms[0][0]))}`;
  };
  const settings = [...structs.values()].map((st) => {
    const typeOf = (f) => fieldType(st, f, st.fields.indexOf(f));
    const forms = st.forms.map((form) => `    new (${form.map((f) => `${f}?: ${typeOf(f)}`).join(', ')}): SettingsValue;`);
    const keywords = [...st.fields.map((f) => `${f}?: ${typeOf(f)}`),
                      ...Object.entries(st.keywordAliases).map(([k, f]) => `${k}?: ${typeOf(f)}`)];
    return `  /** PopART's ${st.name}(${st.fields.join(', ')}): defaults from the options table (SessionOptions.${st.paths[0]}). */\n` +
           `  ${st.name}: {\n${forms.join('\n')}\n    new (fields: { ${keywords.join('; ')} }): SettingsValue;\n` +
           '    fields(): string[];\n  };';
  }).join('\n');
  // The exception classes (made from the core's errorClasses()): the API's Error subclasses.
  const errorClasses = Object.entries(popart).filter(([, v]) => typeof v === 'function' && v.prototype instanceof Error);
  const exceptions = errorClasses.map(([name, C]) => {
    const base = Object.getPrototypeOf(C) === Error ? '' : Object.getPrototypeOf(C).name;
    const instance = name === 'OutOfMemoryException' ? 'OutOfMemoryError' : 'Error';
    return `  /** ${C.doc}${base ? ` A subclass of ${base}.` : ''} */\n` +
           `  ${name}: { new (message?: string): ${instance}; prototype: ${instance}; readonly doc: string };`;
  }).join('\n');
  return { 'exception classes': exceptions, 'enum types': types, 'SessionOptions fields': options, 'enum objects': members, 'settings classes': settings,
           'aiGraphcore methods': methods, 'memory categories': categories, 'optimizer and loss constructors': factories,
           'report types': reportTypes(popart.reportSchema()) };
}

/// `text` with each generated block replaced.
export function withBlocks(text, blocks, file = DTS) {
  for (const [name, body] of Object.entries(blocks)) {
    const re = new RegExp(`(// BEGIN generated: ${name}[^\\n]*\\n)[\\s\\S]*?([ \\t]*// END generated: ${name})`);
    if (!re.test(text)) throw new Error(`${path.basename(file)} has no generated block '${name}'`);
    text = text.replace(re, (_, begin, end) => `${begin}${body}\n${end}`);
  }
  return text;
}

/// Each declaration file's text as it is and as the blocks make it: Map file -> {before, after}.
export function regenerated(blocks) {
  const byFile = new Map();
  for (const [name, body] of Object.entries(blocks)) {
    const file = fileOf(name);
    if (!byFile.has(file)) byFile.set(file, {});
    byFile.get(file)[name] = body;
  }
  return new Map([...byFile].map(([file, fileBlocks]) => {
    const before = fs.readFileSync(file, 'utf8');
    return [file, { before, after: withBlocks(before, fileBlocks, file) }];
  }));
}

function write(blocks) {
  for (const [file, { before, after }] of regenerated(blocks)) {
    if (after !== before) fs.writeFileSync(file, after);
    console.log(`${path.basename(file)} ${after === before ? 'is up to date' : 'updated'}`);
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url) &&
    process.argv[2] === '--report-schema') {
  write({ 'report types': reportTypes(JSON.parse(fs.readFileSync(process.argv[3], 'utf8'))) });
} else if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const pkg = path.resolve(process.argv[2] ?? path.join(ROOT, 'build/wasm/pkg'));
  const { createPopart } = await import(pathToFileURL(path.join(pkg, 'index.mjs')).href);
  write(generatedBlocks(await createPopart()));
}
