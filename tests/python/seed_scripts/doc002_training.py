# shared/seeds/002 (poponnx), the training session, as written.
import poponnx
import torch.onnx
import torchvision

input_ = torch.randn(4, 3, 224, 224)
model = torchvision.models.alexnet(pretrained=False)

torch.onnx.export(model, input_, "alexnet.onnx")

# Create a runtime environment
anchors = {"output" : poponnx.AnchorReturnType("ALL")}
dataFeed = poponnx.DataFlow(100, anchors)

losses = [poponnx.NllLoss("output", "labels", "loss")]
optimizer = poponnx.ConstSGD(0.001)

# We need to describe the labels input shape
inputShapeInfo = poponnx.InputShapeInfo()
inputShapeInfo.add("labels", poponnx.TensorInfo("INT32", [4]))

session = poponnx.TrainingSession("alexnet.onnx",
                                  dataFeed=dataFeed,
                                  losses=losses,
                                  optimizer=optimizer,
                                  inputShapeInfo=inputShapeInfo)
