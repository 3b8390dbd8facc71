# shared/seeds/003 (poponnx, 2018), "Importing graphs". Adapted: `in` is a Python keyword (a
# SyntaxError as written), so the variable is `in_`; torch.autograd.Variable is imported;
# pretrained=True -> False.
import poponnx
import torch.onnx
import torchvision
from torch.autograd import Variable

in_ = Variable(torch.randn(10, 3, 224, 224))
model = torchvision.models.alexnet(pretrained=False)

torch.onnx.export(model, in_, "alexnet.onnx")

# Create a runtime environment
dataFeed = poponnx.DataFlow(500, 4, ["l1LossVal"],
                            poponnx.AnchorReturnType.ALL)
losses = [poponnx.L1Loss("out", "l1LossVal", 0.1)]
optimizer = poponnx.ConstSGD(0.001)

session = poponnx.Session("alexnet.onnx", dataFeed, losses, optimizer)
