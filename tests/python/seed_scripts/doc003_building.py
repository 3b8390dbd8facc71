# shared/seeds/003 (poponnx, 2018), "Building graphs without a third party framework". Adapted:
# the example uses `builder` without creating it; the line `builder = poponnx.Builder()` is added.
import poponnx

builder = poponnx.Builder()

# Build a simple graph
i1 = builder.addInputTensor(poponnx.TensorInfo("FLOAT", [1, 2, 32, 32]))
i2 = builder.addInputTensor(poponnx.TensorInfo("FLOAT", [1, 2, 32, 32]))

o = builder.add(i1, i2)

builder.addOutputTensor(o)

proto = builder.getModelProto()


# Create a runtime environment
dataFeed = poponnx.DataFlow(500, 4, [o], poponnx.AnchorReturnType.ALL)

session = poponnx.Session(proto, dataFeed)
