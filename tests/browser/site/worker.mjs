import { runSuite } from './suite.mjs';
runSuite().then((r) => postMessage({ results: r }), (e) => postMessage({ error: String(e && e.stack || e) }));
