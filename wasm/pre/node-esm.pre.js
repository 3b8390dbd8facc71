// ES6 module output under Node: Emscripten 3.1.6's Node path uses require and __dirname, which an
// ES module does not have; derive both from import.meta.url (_scriptDir), and resolve the .wasm
// next to this file.
var require, __dirname;
if (typeof process == 'object' && typeof process.versions == 'object' && typeof process.versions.node == 'string') {
  require = process.getBuiltinModule('module').createRequire(_scriptDir);
  __dirname = require('path').dirname(require('url').fileURLToPath(_scriptDir));
  if (!Module['locateFile']) Module['locateFile'] = function(path, prefix) { return prefix + path; };
}
