// Session::serializeIr: the IR as PopART's IrSerializationFormat::JSON document. One key per
// graph ("maingraph" first, then each called subgraph by id), each a list of ops in schedule
// order: {"type", "version", "domain", "name", "inputs": [{"name", "shape", "type", "index"}],
// "outputs": [same], "attributes": {name: value}}; every value a string, as PopART writes them.
#pragma once

#include <string>

namespace popart {

class Ir;

std::string irToJson(const Ir& ir);

}  // namespace popart
