# shared/seeds/000 (PopART 1.x), "Importing graphs", as written except pretrained=True -> False.
import popart
import torch.onnx
import torchvision

input_ = torch.FloatTensor(torch.randn(4, 3, 224, 224))
model = torchvision.models.alexnet(pretrained=False)

torch.onnx.export(model, input_, "alexnet.onnx")

# Create a runtime environment
anchors = {"output" : popart.AnchorReturnType("ALL")}
dataFeed = popart.DataFlow(100, anchors)
device = popart.DeviceManager().createCpuDevice()

session = popart.InferenceSession("alexnet.onnx", dataFeed, device)
