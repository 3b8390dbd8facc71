# shared/seeds/002 (poponnx), "Importing graphs", as written except pretrained=True -> False.
import poponnx
import torch.onnx
import torchvision

input_ = torch.FloatTensor(torch.randn(4, 3, 224, 224))
model = torchvision.models.alexnet(pretrained=False)

torch.onnx.export(model, input_, "alexnet.onnx")

# Create a runtime environment
anchors = {"output" : poponnx.AnchorReturnType("ALL")}
dataFeed = poponnx.DataFlow(100, anchors)

session = poponnx.InferenceSession("alexnet.onnx", dataFeed)
