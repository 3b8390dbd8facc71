# shared/seeds/000 (PopART 1.x), "Creating a session", as written.
import popart
import torch.onnx
import torchvision

input_ = torch.randn(4, 3, 224, 224)
model = torchvision.models.alexnet(pretrained=False)

torch.onnx.export(model, input_, "alexnet.onnx")

# Create a runtime environment
anchors = {"output" : popart.AnchorReturnType("ALL")}
dataFeed = popart.DataFlow(100, anchors)

losses = [popart.NllLoss("output", "labels", "loss")]
optimizer = popart.ConstSGD(0.001)

# We need to describe the labels input shape
inputShapeInfo = popart.InputShapeInfo()
inputShapeInfo.add("labels", popart.TensorInfo("INT32", [4]))
device = popart.DeviceManager().createCpuDevice()

session = popart.TrainingSession("alexnet.onnx",
                                  deviceInfo=device,
                                  dataFeed=dataFeed,
                                  losses=losses,
                                  optimizer=optimizer,
                                  inputShapeInfo=inputShapeInfo)
