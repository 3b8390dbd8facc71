// SessionOptions::engineOptions: the Poplar engine options this runtime knows, in one table. Keys
// it acts on change what the device does; Poplar's other documented keys are accepted for
// compatibility (logged once: they have no effect here); any other key is PopART's
// "Unrecognised option 'x'".
#pragma once

#include <map>
#include <string>
#include <vector>

namespace popart {

struct EngineOptionDef {
  const char* key;
  const char* values;  ///< "bool", "string", "int": what a value must be
  bool acted;          ///< true: this runtime acts on it; false: accepted, no effect here
  const char* doc;
};

/// Every engine option the runtime accepts.
const std::vector<EngineOptionDef>& engineOptionDefs();

/// Throws popart::error "Unrecognised option 'k'" for an unknown key, or a message naming the
/// key for a value of the wrong kind; logs (warn) the accepted keys that have no effect.
void validateEngineOptions(const std::map<std::string, std::string>& options);

}  // namespace popart
