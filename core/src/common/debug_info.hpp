// The debug-info recorder behind initializePoplarDebugInfo / closePoplarDebugInfo
// (popart/debugcontext.hpp): while it is open, the Builder and the IR add one context per op they
// create (and per input the Builder adds), with PopART's layers ("popartbuilder", "popart");
// closing writes Poplar's DebugInfo JSON layout: {"contexts": [...], "stringTable": [...]}.
// Thread-safe (one recorder per process, as Poplar's streamer).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace popart {
namespace debuginfo {

using Value = std::variant<std::string, std::vector<std::string>, std::map<std::string, std::string>>;
using Fields = std::vector<std::pair<std::string, Value>>;

/// Whether a recording is open.
bool recording();
/// Adds a context; returns its id (from 1, as Poplar's), or -1 (nothing recorded) when no recording
/// is open. `parentId` -1: none. `name` goes to the string table. It is written in the order
/// contexts finish, as Poplar writes a DebugInfo when it is destroyed: at once, or with
/// `keepOpen` when finish(id) is called (a DebugInfo object's destructor).
int64_t add(const std::string& layer, const std::string& name, int64_t parentId, Fields fields, bool keepOpen = false);
/// Ends context `id` opened with keepOpen (ignored when it is not recorded or already ended).
void finish(int64_t id);
/// Sets (or replaces) a field of context `id` (ignored when it is not recorded).
void setValue(int64_t id, const std::string& key, Value value);
/// The parent of context `id` (-1: none or unknown).
int64_t parentOf(int64_t id);

/// Opens a recording written to `filename` on close ("" with closeToString: nothing written).
void open(const std::string& filename, const std::string& format);
/// Closes the recording: writes its file (if it has one) and returns the JSON text.
std::string close();

}  // namespace debuginfo
}  // namespace popart
