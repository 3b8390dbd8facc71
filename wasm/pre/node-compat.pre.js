// Node >= 18 has a global fetch(); Emscripten 3.1.6's loader then fetch()es the .wasm file path,
// which fails. Shadow fetch under Node only (the loader falls back to reading the file).
var fetch = (typeof process == 'object' && typeof process.versions == 'object' &&
             typeof process.versions.node == 'string') ? undefined : globalThis.fetch;
