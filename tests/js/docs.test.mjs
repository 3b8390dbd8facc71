// Every ```js example of docs/js-api.md runs here (with `popart` and `assert` in scope; the
// example's own import / createPopart lines are replaced by the test's), so the docs stay true.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { createPopart, ROOT } from './helpers.mjs';

const popart = await createPopart();
const doc = fs.readFileSync(path.join(ROOT, 'docs/js-api.md'), 'utf8');
const blocks = [...doc.matchAll(/```js\n([\s\S]*?)```/g)].map((m) => m[1]);
const AsyncFunction = Object.getPrototypeOf(async () => {}).constructor;

test('docs/js-api.md has examples', () => assert.ok(blocks.length >= 5));

blocks.forEach((code, i) => {
  const body = code.split('\n')
    .filter((l) => !/^\s*import\s/.test(l) && !/createPopart\(/.test(l))
    .join('\n');
  const title = code.split('\n').find((l) => l.trim()) ?? '';
  test(`docs example ${i + 1}: ${title.trim().slice(0, 60)}`, async () => {
    await new AsyncFunction('popart', 'assert', body)(popart, assert);
  });
});
