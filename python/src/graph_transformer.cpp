// popart.GraphTransformer: PopART's model rewrites (popart/graphtransformer.hpp), bound as is.
#include "popart/graphtransformer.hpp"

#include "py_common.hpp"

namespace popart {
namespace py_bind {

namespace {

std::string modelBytesOrPath(py::handle h) {
  if (py::isinstance<py::bytes>(h) || py::isinstance<py::str>(h)) return h.cast<std::string>();
  if (py::hasattr(h, "__fspath__")) return py::str(h.attr("__fspath__")()).cast<std::string>();
  throw error("GraphTransformer: modelProtoOrFilename must be ONNX ModelProto bytes or a file path, got {}",
              py::str(py::type::handle_of(h).attr("__name__")).cast<std::string>());
}

}  // namespace

void bindGraphTransformer(py::module_& m) {
  using GT = GraphTransformer;
  py::class_<GT>(m, "GraphTransformer")
      .def(py::init([](py::object model) { return std::make_unique<GT>(modelBytesOrPath(model)); }),
           py::arg("modelProtoOrFilename"))
      .def("getModelProto", [](const GT& g) { return py::bytes(g.getModelProto()); })
      .def("removeUnusedInputs", &GT::removeUnusedInputs)
      .def("prepareNodesForTraining", &GT::prepareNodesForTraining)
      .def("convertFloatsToHalfs", &GT::convertFloatsToHalfs)
      .def("convertUINT8ToINT32", &GT::convertUINT8ToINT32)
      .def("convertUINT16ToINT32", &GT::convertUINT16ToINT32)
      .def("convertINT8ToINT32", &GT::convertINT8ToINT32)
      .def("convertINT16ToINT32", &GT::convertINT16ToINT32)
      .def("convertINT64ToINT32", &GT::convertINT64ToINT32, py::arg("clip") = false)
      .def("convertDoublesToFloats", &GT::convertDoublesToFloats)
      .def("convertDoublesToHalfs", &GT::convertDoublesToHalfs)
      .def("convertBFloats16ToFloat32", &GT::convertBFloats16ToFloat32)
      .def("convertInitializersToConstants", &GT::convertInitializersToConstants, py::arg("ids"))
      .def("convertAllFixedPointInitializersToConstants", &GT::convertAllFixedPointInitializersToConstants)
      .def("saveInitializersExternally", &GT::saveInitializersExternally, py::arg("ids"), py::arg("fileName"))
      .def("saveInitializersExternallyToBytes",
           [](GT& g, const std::vector<std::string>& ids, const std::string& location) {
             return py::bytes(g.saveInitializersExternallyToBytes(ids, location));
           })
      .def("externalDataLocations", &GT::externalDataLocations)
      .def("inlineExternalData", [](GT& g, const std::map<std::string, py::bytes>& files) {
        std::map<std::string, std::string> data;
        for (const auto& kv : files) data[kv.first] = std::string(kv.second);
        g.inlineExternalData(data);
      });
}

}  // namespace py_bind
}  // namespace popart
