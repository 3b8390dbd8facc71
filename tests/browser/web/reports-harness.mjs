// Shared set-up of the reports views' tests (reports-view.test.mjs, reports-timeline.test.mjs):
// the reports the wasm package makes (make-report-fixtures.mjs), the view bundled on its own
// (fixtures/reports-fixture.js + reports.html) in a temporary folder, served, and headless Chromium.
import { before, after } from 'node:test';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { serveAndLaunch, ROOT, SHOTS } from './harness.mjs';
import { makeFixtures } from './make-report-fixtures.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const esbuild = (await import(pathToFileURL(path.join(ROOT, 'web/node_modules/esbuild/lib/main.js')).href)).default;

/// Registers the before / after hooks of a test file; returns {fx (the fixtures by name, filled
/// before the tests), open(query, {width, height, theme}) (a page of the view, with page.errors),
/// tab(page, id), shot(page, name, opts)}.
export function reportsPage(name) {
  let server, browser, base, dir;
  const fx = {};
  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), `${name}-`));
    fs.mkdirSync(SHOTS, { recursive: true });
    await makeFixtures(path.join(dir, 'fixtures'));
    for (const f of fs.readdirSync(path.join(dir, 'fixtures'))) fx[f.replace(/\.json$/, '')] = JSON.parse(fs.readFileSync(path.join(dir, 'fixtures', f), 'utf8'));
    await esbuild.build({
      entryPoints: [path.join(here, 'fixtures/reports-fixture.js')], bundle: true, format: 'esm', outdir: dir,
      logLevel: 'warning', target: 'es2022',
    });
    fs.copyFileSync(path.join(here, 'fixtures/reports.html'), path.join(dir, 'reports.html'));
    fs.copyFileSync(path.join(ROOT, 'web/src/theme.css'), path.join(dir, 'theme.css'));
    ({ server, origin: base, browser } = await serveAndLaunch(dir));
  });
  after(async () => {
    await browser?.close();
    server?.close();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });
  async function open(query, { width = 1400, height = 1000, theme } = {}) {
    const page = await browser.newPage({ viewport: { width, height }, colorScheme: theme === 'dark' ? 'dark' : 'light' });
    const errors = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
    await page.goto(`${base}/reports.html?${query}${theme ? `&theme=${theme}` : ''}`);
    await page.waitForFunction(() => window.__ready === true, null, { timeout: 30000 });
    page.errors = errors;
    return page;
  }
  const tab = (page, id) => page.click(`[role=tab][data-tab="${id}"]`);
  const shot = (page, n, opts = {}) => page.screenshot({ path: path.join(SHOTS, `reports-${n}.png`), fullPage: true, ...opts });
  return { fx, open, tab, shot };
}

export const sum = (v) => v.reduce((a, b) => a + b, 0);
