"""The optimizer and loss constructors come from the core's table (popart/factories.hpp): PopART's
argument names and order, positional or by keyword, enum members, strings and NumPy dtypes, and
pybind11's TypeError for a call that fits no overload. The stub's __init__ lines come from the
same table."""
import ast
import os

import numpy as np
import pytest

from conftest import rand


def test_table_lists_every_constructor_in_popart_order(popart):
    table = {f["name"]: f for f in popart._popart._factoryList()}
    assert list(table) == ["SGD", "ConstSGD", "Adam", "Adaptive", "NllLoss", "L1Loss", "IdentityLoss"]
    adam = [a["name"] for a in table["Adam"]["signatures"][0]["args"]]
    assert adam == ["values", "mode", "weight_decay_mode", "accum_type", "accl1_type", "accl2_type",
                    "clip_norm_settings", "scaled_optimizer_state", "debugContext"]
    assert len(table["SGD"]["signatures"]) == 2 and len(table["NllLoss"]["signatures"]) == 2
    # The class docstring lists the table's overloads.
    assert "SGD(learningRate: float)" in popart.SGD.__doc__
    assert "Adaptive(values: dict = {}, mode: AdaptiveMode = 'RMSProp'" in popart.Adaptive.__doc__


def one_step(popart, optimizer, loss="l1"):
    """The weights after one training step of x @ w with an L1 loss."""
    b = popart.Builder()
    x = b.addInputTensor(popart.TensorInfo("FLOAT", [2, 3]))
    w = b.addInitializedInputTensor(rand(3, 3), "w")
    y = b.aiOnnx.matmul([x, w])
    b.addOutputTensor(y)
    s = popart.TrainingSession(b.getModelProto(), popart.DataFlow(1, [loss]), losses=[popart.L1Loss(y, loss, 0.1)],
                               optimizer=optimizer, deviceInfo=popart.DeviceManager().createCpuDevice())
    s.prepareDevice()
    s.weightsFromHost()
    anchors = s.initAnchorArrays()
    s.run(popart.PyStepIO({x: rand(2, 3, seed=1)}, anchors))
    out = {"w": np.zeros((3, 3), np.float32)}
    s.weightsToHost()
    s.readWeights(popart.PyWeightsIO(out))
    return out["w"], anchors[loss]


def test_positional_and_keyword_calls_reach_the_same_object(popart):
    clip = [popart.ClipNormSettings.clipAllWeights(2.0)]
    values = {"defaultLearningRate": (0.02, False), "defaultBeta1": (0.8, True)}
    by_position = popart.Adam(values, popart.AdamMode.Lamb, "L2Regularization", popart.DataType.FLOAT,
                              np.float32, "FLOAT", clip, True)
    by_keyword = popart.Adam(values=values, scaled_optimizer_state=True, accl1_type=np.float32,
                             weight_decay_mode=popart.WeightDecayMode.L2Regularization, mode="Lamb",
                             clip_norm_settings=clip, accum_type="FLOAT")
    for o in (by_position, by_keyword):
        assert o.type_s() == "Adam"
        assert o.learningRates().getDefault().val() == pytest.approx(0.02)
        assert not o.learningRates().getDefault().isConst()
        assert o.beta1s().getDefault().isConst()
        assert len(o.getClipNormSettings()) == 1
    lamb, _ = one_step(popart, by_position)
    np.testing.assert_array_equal(lamb, one_step(popart, by_keyword)[0])
    # The mode reached the optimizer: Adam's step differs from Lamb's.
    assert np.abs(lamb - one_step(popart, popart.Adam(values))[0]).max() > 1e-4


def test_defaults_are_popart_defaults(popart):
    # Adaptive's default mode is RMSProp: the same step as naming it.
    values = {"defaultLearningRate": (0.02, False)}
    np.testing.assert_array_equal(one_step(popart, popart.Adaptive(values))[0],
                                  one_step(popart, popart.Adaptive(values, popart.AdaptiveMode.RMSProp,
                                                                   popart.WeightDecayMode.Decay))[0])
    s = popart.SGD()
    assert s.type_s() == "SGD" and len(s.getClipNormSettings()) == 0
    # The early form SGD(learningRate): a learning rate that is not const.
    early = popart.SGD(0.25)
    assert early.learningRates().getDefault().val() == pytest.approx(0.25)
    assert not early.learningRates().getDefault().isConst()
    c = popart.ConstSGD(0.5, weight_decay=0.1)
    assert isinstance(c, popart.SGD) and c.type_s() == "SGD"
    assert c.learningRates().getDefault().isConst()
    assert c.weightDecays().getDefault().val() == pytest.approx(0.1)
    assert c.getLossScalingVal() == 1.0


def test_a_call_that_fits_no_overload_is_pybind11s_type_error(popart):
    with pytest.raises(TypeError) as e:
        popart.Adam(0.01)
    msg = str(e.value)
    assert msg.startswith("Adam(): incompatible constructor arguments. The following argument types are supported:")
    assert "1. Adam(values: dict = {}, mode: AdamMode = 'Adam'" in msg
    assert msg.endswith("Invoked with: 0.01")
    with pytest.raises(TypeError, match=r"2\. SGD\(values: dict = \{\}, clip_norm_settings"):
        popart.SGD(0.1, [])
    with pytest.raises(TypeError, match="Invoked with: 't', 'l', 'o', ignoreIndex='x'"):
        popart.NllLoss("t", "l", "o", ignoreIndex="x")
    with pytest.raises(TypeError, match="incompatible constructor arguments"):
        popart.Adam({}, mdoe="Adam")  # an unknown keyword fits no overload
    with pytest.raises(TypeError, match=r"Invoked with: \{\}, \[1, 2\]"):
        popart.SGD({}, [1, 2])  # clip_norm_settings holds ClipNormSettings only


def test_the_constructors_own_errors_pass_through(popart):
    with pytest.raises(popart.popart_exception, match="Invalid AdamMode 'Adamish'"):
        popart.Adam({}, "Adamish")
    with pytest.raises(popart.popart_exception, match="Invalid SGD key, learningRate"):
        popart.SGD({"learningRate": (0.1, True)})
    with pytest.raises(popart.popart_exception, match="Negative learning rate"):
        popart.SGD(-1.0)


def test_insert_specific_is_one_method_of_every_optimizer(popart):
    assert "insertSpecific" in popart.Optimizer.__dict__
    s = popart.SGD({"defaultLearningRate": (0.1, False)})
    s.insertSpecific("w", {"learningRate": (0.5, False)})
    assert s.hasSpecific("w")
    assert s.learningRates().get("w").val() == pytest.approx(0.5)
    a = popart.Adam({})
    a.insertSpecific("w", {"beta1": (0.5, True)})
    assert a.beta1s().get("w").val() == pytest.approx(0.5)
    with pytest.raises(popart.popart_exception, match=r"Invalid key momentum in Adam::insertSpecific"):
        a.insertSpecific("w", {"momentum": (0.5, True)})


def test_losses_from_the_table(popart):
    # The pre-1.2 loss objects, every overload: NllLoss with ignoreIndex by keyword, L1Loss's lambda.
    nll = popart.NllLoss("p", "l", "loss", ignoreIndex=2, reduction=popart.ReductionType.Mean)
    assert nll.output() == "loss" and nll.getInputs() == ["p", "l"]
    assert nll.getReductionType() == popart.ReductionType.Mean
    assert popart.NllLoss("p", "l", "loss").getReductionType() == popart.ReductionType.Sum
    assert popart.L1Loss("x", "l1", 0.5, popart.ReductionType.Mean).getReductionType() == popart.ReductionType.Mean
    assert popart.IdentityLoss("x", "id").output() == "id"
    # L1Loss(input, output, lambda) trains: the loss is lambda * sum |x @ w|.
    w, loss = one_step(popart, popart.ConstSGD(0.1))
    assert loss == pytest.approx(0.1 * np.abs(rand(2, 3, seed=1) @ rand(3, 3)).sum(), rel=1e-5)
    assert np.abs(w - rand(3, 3)).max() > 0


def test_stub_inits_come_from_the_table(popart):
    path = os.path.join(os.path.dirname(popart.__file__), "__init__.pyi")
    if not os.path.exists(path):
        pytest.skip("no stubs next to this popart (built without the popart_py_stubs target)")
    classes = {n.name: n for n in ast.parse(open(path).read()).body if isinstance(n, ast.ClassDef)}
    for f in popart._popart._factoryList():
        inits = [d for d in classes[f["name"]].body if isinstance(d, ast.FunctionDef) and d.name == "__init__"]
        assert len(inits) == len(f["signatures"]), f["name"]
        for init, sig in zip(inits, f["signatures"]):
            names = [a.arg for a in init.args.args[1:]]
            assert names == [a["name"] + ("_" if a["name"] == "lambda" else "") for a in sig["args"]], f["name"]
