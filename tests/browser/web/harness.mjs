// Shared set-up of the page's browser tests: serves the built page (build/web, or POPART_WEB_DIR)
// with web/server.mjs, launches Debian's Chromium through playwright-core, and gives each test a
// fresh page whose every request is checked: a request outside the page's own origin fails the
// test (the page must make no request the user did not ask for).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { startServer } from '../../../web/server.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
export const ROOT = path.resolve(here, '../../..');
export const WEB_DIR = path.resolve(process.env.POPART_WEB_DIR ?? path.join(ROOT, 'build/web'));
export const ZOO_DIR = path.resolve(process.env.POPART_ZOO_DIR ?? path.join(ROOT, 'build/zoo'));
export const SHOTS = path.join(ROOT, 'build/web-tests');
fs.mkdirSync(SHOTS, { recursive: true });

/// Serves `root` on 127.0.0.1 (a free port) and launches headless Chromium: {server, origin, browser}.
export async function serveAndLaunch(root, { isolate = true } = {}) {
  const server = await startServer({ root, port: 0, isolate });
  const origin = `http://127.0.0.1:${server.address().port}`;
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
  });
  return { server, origin, browser };
}

export async function launch({ isolate = true } = {}) {
  if (!fs.existsSync(path.join(WEB_DIR, 'index.html'))) throw new Error(`${WEB_DIR}/index.html is missing: run node web/build.mjs`);
  const { server, origin, browser } = await serveAndLaunch(WEB_DIR, { isolate });
  return {
    origin, browser, server,
    async close() {
      await browser.close();
      server.close();
    },
  };
}

/// A fresh page (its own context: storage, downloads) on `hash`. Resolves when the page says it is
/// ready (the default example open and drawn), unless `wait` is false.
export async function openPage(env, { hash = '', wait = true, colorScheme = 'light', viewport = { width: 1440, height: 900 } } = {}) {
  const context = await env.browser.newContext({ acceptDownloads: true, colorScheme, viewport });
  const page = await context.newPage();
  const foreign = [];
  const errors = [];
  const uncaught = [];
  page.on('request', (r) => {
    const u = r.url();
    if (!u.startsWith(env.origin + '/') && !u.startsWith('data:') && !u.startsWith('blob:')) foreign.push(u);
  });
  page.on('pageerror', (e) => { errors.push(String(e)); uncaught.push(e.stack ?? String(e)); });
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  await page.goto(`${env.origin}/${hash ? `#${hash}` : ''}`);
  if (wait) await waitReady(page);
  return {
    page, context, foreign, errors,
    /// Closes the page; an uncaught exception in it, or a request outside its origin, fails the test.
    async close() {
      await context.close();
      if (uncaught.length) throw new Error(`uncaught exception in the page:\n${uncaught.join('\n')}`);
      if (foreign.length) throw new Error(`requests outside the page's origin: ${foreign.join(', ')}`);
    },
  };
}

export async function waitReady(page, timeout = 60000) {
  await page.waitForFunction(() => document.body.dataset.ready === 'true' && document.body.dataset.busy === 'false', null, { timeout });
}

export async function waitIdle(page, timeout = 60000) {
  await page.waitForFunction(() => document.body.dataset.busy === 'false', null, { timeout });
}

export async function shot(page, name) {
  const file = path.join(SHOTS, `${name}.png`);
  await page.screenshot({ path: file });
  return file;
}

export const byId = (id) => `[data-testid="${id}"]`;
