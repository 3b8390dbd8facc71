"""The seed documents' Python examples (shared/seeds/), run as written from seed_scripts/ (the
only edits: pretrained=False, and doc 003's two non-running lines, each said in its file), then
checked: anchors, shapes and losses as the text describes them, outputs against PyTorch.
poponnx's scripts (docs 002, 003) `import poponnx`: that name is this module."""
import json
import os
import runpy
import sys

import numpy as np
import pytest
import torch

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "seed_scripts")


@pytest.fixture(autouse=True)
def seed_env(popart, in_tmp, monkeypatch):
    monkeypatch.setitem(sys.modules, "poponnx", popart)
    torch.manual_seed(0)
    torch.set_num_threads(1)


def run_script(name, replace=None):
    path = os.path.join(HERE, name)
    if replace is None:
        return runpy.run_path(path, run_name="__main__")
    src = open(path).read()
    for a, b in replace:
        assert a in src, a
        src = src.replace(a, b)
    ns = {"__name__": "__main__", "__file__": path}
    exec(compile(src, path, "exec"), ns)
    return ns


def torch_output(model, x):
    model.eval()
    with torch.no_grad():
        return model(torch.from_numpy(x)).numpy()


def check_alexnet_output(popart, model, path="alexnet.onnx", output="output", input_id="input.1"):
    """One batch through the exported model on our CPU device against PyTorch."""
    x = np.random.default_rng(1).standard_normal((4, 3, 224, 224)).astype(np.float32)
    s = popart.InferenceSession(path, popart.DataFlow(1, {output: popart.AnchorReturnType("All")}),
                                popart.DeviceManager().createCpuDevice())
    s.prepareDevice()
    a = s.initAnchorArrays()
    s.run(popart.PyStepIO({input_id: x}, a))
    np.testing.assert_allclose(a[output], torch_output(model, x), rtol=1e-3, atol=1e-4)


NAMED_OUTPUT = [('torch.onnx.export(model, input_, "alexnet.onnx")',
                 'torch.onnx.export(model, input_, "alexnet.onnx", output_names=["output"])')]


@pytest.mark.parametrize("script", ["doc000_inference.py", "doc002_inference.py"])
def test_inference_without_output_names(popart, script):
    # As written the export names its output by number, and the anchor "output" does not exist:
    # the session says so. With doc 001's output_names=["output"] the script runs.
    with pytest.raises(popart.popart_exception, match="Anchor tensor `output' not in Ir Tensors"):
        run_script(script)
    ns = run_script(script, NAMED_OUTPUT)
    s = ns["session"]
    assert ns["dataFeed"].anchors() == ["output"] and ns["dataFeed"].art("output").str() == "All"
    assert s.getAnchorShape("output") == [100, 4, 1000]
    assert str(s.getInfo("input.1")) == "FLOAT [4 3 224 224]"
    if script.startswith("doc000"):
        assert ns["device"].type == popart.DeviceType.Cpu
    check_alexnet_output(popart, ns["model"])


@pytest.mark.parametrize("script", ["doc000_training.py", "doc002_training.py"])
def test_training_with_losses(popart, script):
    with pytest.raises(popart.popart_exception, match="output"):
        run_script(script)
    ns = run_script(script, NAMED_OUTPUT)
    s = ns["session"]
    assert s.getAnchorShape("output") == [100, 4, 1000]
    assert str(s.getInfo("labels")) == "INT32 [4]" and s.getInfo("loss").shape() == []
    assert ns["optimizer"].learningRates().getDefault().val() == pytest.approx(0.001)


def test_doc001_importing_graphs(popart):
    ns = run_script("doc001_importing_graphs.py")
    assert ns["session"].getAnchorShape("output") == [100, 4, 1000]
    check_alexnet_output(popart, ns["model"])


def test_doc001_importing_session_trains(popart):
    ns = run_script("doc001_importing_session.py")
    s, nlll, labels = ns["session"], ns["nlll"], ns["labels"]
    assert s.getAnchorShape("output") == [100, 4, 1000]
    assert s.getInfo(nlll).shape() == [] and str(s.getInfo(labels)) == "INT32 [4]"
    # One step of the same training session (bps 1): the anchors are PyTorch's forward pass and
    # nllloss's Mean of -log(max(p, 1e-7)) over it.
    one = popart.TrainingSession(ns["builder"].getModelProto(), deviceInfo=ns["device"],
                                 dataFlow=popart.DataFlow(1, {"output": popart.AnchorReturnType("All"),
                                                              nlll: popart.AnchorReturnType("All")}),
                                 loss=nlll, optimizer=ns["optimizer"])
    one.prepareDevice()
    one.weightsFromHost()
    a = one.initAnchorArrays()
    x = np.random.default_rng(2).standard_normal((4, 3, 224, 224)).astype(np.float32)
    y = np.array([1, 5, 7, 999], np.int32)
    one.run(popart.PyStepIO({"input.1": x, labels: y}, a))
    ref = torch_output(ns["model"], x)
    np.testing.assert_allclose(a["output"], ref, rtol=1e-3, atol=1e-4)
    p = np.maximum(ref[np.arange(4), y], 1e-7)
    assert float(a[nlll]) == pytest.approx(float(np.mean(-np.log(p))), rel=1e-4)


def test_doc001_executing(popart):
    ns = run_script("doc001_executing.py")
    assert ns["inputs_name"][0] == "input.1" and ns["outputs_name"] == ["output"]
    stepio, session = ns["stepio"], ns["session"]
    # The example stops at the StepIO: it holds one batch, and a step is batchesPerStep = 100.
    with pytest.raises(popart.popart_exception, match="Unexpected number of input elements for Tensor input.1"):
        session.run(stepio)
    one = popart.InferenceSession("alexnet.onnx", popart.DataFlow(1, ns["anchors"]), ns["device"])
    one.prepareDevice()
    a = one.initAnchorArrays()
    one.run(popart.PyStepIO({"input.1": ns["input_1"]}, a))
    np.testing.assert_allclose(a["output"], torch_output(ns["model"], ns["input_1"]), rtol=1e-3, atol=1e-4)


def test_doc003_importing(popart):
    # The loss reads "out", which the export only has with output_names=["out"].
    with pytest.raises(popart.popart_exception, match="out"):
        run_script("doc003_importing.py")
    ns = run_script("doc003_importing.py", [('torch.onnx.export(model, in_, "alexnet.onnx")',
                                             'torch.onnx.export(model, in_, "alexnet.onnx", output_names=["out"])')])
    s = ns["session"]
    assert ns["dataFeed"].anchors() == ["l1LossVal"] and ns["dataFeed"].batchesPerStep() == 500
    assert s.getAnchorShape("l1LossVal") == [500]


def test_doc003_building(popart):
    ns = run_script("doc003_building.py")
    s, i1, i2, o = ns["session"], ns["i1"], ns["i2"], ns["o"]
    s.prepareDevice()
    a = s.initAnchorArrays()
    assert a[o].shape == (500, 1, 2, 32, 32)
    x, y = np.random.rand(500, 1, 2, 32, 32).astype(np.float32), np.random.rand(500, 1, 2, 32, 32).astype(np.float32)
    s.infer(popart.PyStepIO({i1: x, i2: y}, a))
    np.testing.assert_allclose(a[o], x + y, rtol=1e-6)


def test_doc003_training_example(popart):
    # "session.train(io)" with a loss anchored as np.zeros([1000]) (the example's elided parts: a
    # small model with an image input and an L1 loss, batchesPerStep 1000).
    builder = popart.Builder()
    image = builder.addInputTensor(popart.TensorInfo("FLOAT", [2]), "image")
    w = builder.addInitializedInputTensor(np.ones(2, np.float32))
    out = builder.aiOnnx.mul([image, w])
    builder.addOutputTensor(out)
    proto = builder.getModelProto()
    dataFeed = popart.DataFlow(1000, ["loss"], popart.AnchorReturnType("ALL"))
    losses = [popart.L1Loss(out, "loss", 0.1)]
    optimizer = popart.ConstSGD(0.001)

    session = popart.Session(proto, dataFeed, losses, optimizer)
    session.prepareDevice()
    session.weightsFromHost()
    image_data = np.ones((1000, 2), np.float32)
    inputs = {'image': image_data}
    anchors = {'loss': np.zeros([1000], np.float32)}
    io = popart.PyStepIO(inputs, anchors)

    session.train(io)
    # L1 (Sum) = 0.1 * |w|_1 with w shrinking by lr * 0.1 per component per step.
    expected = 0.1 * 2 * (1 - 0.001 * 0.1 * np.arange(1000))
    np.testing.assert_allclose(anchors["loss"], expected, rtol=1e-4)


def test_doc004_fragments(popart):
    # Doc 004's fragments around one model with inputs 'a' and 'b' and a trainable weight.
    builder = popart.Builder()
    a_ = builder.addInputTensor("FLOAT", [1], "a")
    b_ = builder.addInputTensor("FLOAT", [1], "b")
    w = builder.addInitializedInputTensor(np.zeros(1, np.float32), "w")
    o = builder.aiOnnx.add([builder.aiOnnx.add([a_, b_]), w])
    loss = builder.aiGraphcore.identityloss([o], reduction=popart.ReductionType.Sum)
    builder.saveModelProto("onnx.pb")

    df = popart.DataFlow(1, {o: popart.AnchorReturnType("ALL")})
    device = popart.DeviceManager().createCpuDevice()
    s = popart.InferenceSession("onnx.pb", deviceInfo=device, dataFeed=df)
    s.prepareDevice()
    with pytest.raises(popart.popart_exception, match="Failed to acquire device with 2 IPUs"):
        popart.DeviceManager().acquireAvailableDevice(2)
    with pytest.raises(popart.popart_exception, match="5"):
        popart.DeviceManager().acquireDeviceById(5)

    learningRate = [0.1, 0.2]
    session = popart.TrainingSession(builder.getModelProto(), popart.DataFlow(1, {o: popart.AnchorReturnType("ALL")}),
                                     loss, popart.SGD(learningRate[0]), device)
    session.prepareDevice()
    # Create buffers to receive results from the execution
    anchors = session.initAnchorArrays()

    # Generate some random input data
    data_a = np.random.rand(1).astype(np.float32)
    data_b = np.random.rand(1).astype(np.float32)

    stepio = popart.PyStepIO({'a': data_a, 'b': data_b}, anchors)
    session.weightsFromHost()
    session.optimizerFromHost()
    for step in range(2):
        session.run(stepio)
        np.testing.assert_allclose(anchors[o], data_a + data_b - sum(learningRate[:step]), rtol=1e-5)
        # Update learning rate parameter between training steps
        stepLr = learningRate[min(step + 1, 1)]
        session.updateOptimizer(popart.SGD(stepLr))
        session.optimizerFromHost()

    session.modelToHost("trained_model.onnx")
    session.modelToHost("test.onnx")
    session.run(stepio)
    session.resetHostWeights("test.onnx")
    session.weightsFromHost()
    session.run(stepio)
    np.testing.assert_allclose(anchors[o], data_a + data_b - 0.3, rtol=1e-5)
    # "Retrieving profiling reports": PopART's CPU device has no profile; the IPU model has all three.
    with pytest.raises(popart.poplar_exception, match="Profiling is disabled for current device type.$"):
        session.getSummaryReport()
    ipu = popart.TrainingSession(builder.getModelProto(), popart.DataFlow(1, {o: popart.AnchorReturnType("ALL")}),
                                 loss, popart.SGD(learningRate[0]),
                                 popart.DeviceManager().createIpuModelDevice({"tilesPerIPU": 16}))
    ipu.prepareDevice()
    ipu.weightsFromHost()
    ipu.run(popart.PyStepIO({'a': data_a, 'b': data_b}, ipu.initAnchorArrays()), "step")
    report = ipu.getSummaryReport(resetProfile=False)
    assert "Memory Usage:" in report and "step:" in report
    assert len(json.loads(ipu.getGraphReport())["memory"]["byTile"]["total"]) == 16
    assert isinstance(ipu.getGraphReport(True), bytes)
    assert json.loads(ipu.getExecutionReport())["runs"][0]["name"] == "step"
