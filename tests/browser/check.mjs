// Headless Chromium end-to-end check: serves the package and the site, opens the page, waits for
// the suite (page main thread + module Web Worker), prints each result, saves a screenshot.
// Usage: node tests/browser/check.mjs [pkgDir] [zooDir] [screenshot.png]
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { startServer } from './server.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../..');
const pkg = path.resolve(process.argv[2] ?? path.join(root, 'build/wasm/pkg'));
const zoo = path.resolve(process.argv[3] ?? process.env.POPART_ZOO_DIR ?? path.join(root, 'build/zoo'));
const shot = path.resolve(process.argv[4] ?? path.join(root, 'build/wasm/browser-check.png'));

const server = await startServer({ site: path.join(here, 'site'), pkg, zoo });
const url = `http://127.0.0.1:${server.address().port}/index.html`;
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
});
let failed = 0;
try {
  const page = await browser.newPage();
  page.on('console', (m) => { if (m.type() === 'error') console.error('[page]', m.text()); });
  await page.goto(url);
  await page.waitForFunction(() => window.__result !== undefined, null, { timeout: 120000 });
  const result = await page.evaluate(() => window.__result);
  await page.screenshot({ path: shot });
  if (result.error) {
    console.error(`browser check: ${result.error}`);
    failed = 1;
  } else {
    for (const r of result.results) {
      console.log(`${r.ok ? 'ok  ' : 'FAIL'} [${r.where}] ${r.name}${r.ok ? '' : ` (${r.detail})`}`);
      if (!r.ok) ++failed;
    }
    if (result.results.length < 10) { console.error('browser check: missing results'); failed = 1; }
  }
} finally {
  await browser.close();
  server.close();
}
console.log(failed ? `browser check: ${failed} failed` : `browser check: all passed (screenshot ${shot})`);
process.exit(failed ? 1 : 0);
