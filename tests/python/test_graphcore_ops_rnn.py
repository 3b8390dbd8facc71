"""PopART's aiGraphcore lstm, ctcloss and ctcbeamsearchdecoder through the Python Builder, called as
PopART scripts call them (keywords, PopART's defaults): the LSTM against torch.nn.LSTM (weights
reordered from Poplar's gates forget, input, candidate, output) and its gradients against
torch.autograd; the CTC loss against torch.nn.functional.ctc_loss (every reduction, blank,
zero_infinity), its gradient and a training step with it as the session's loss; the beam search
decoder against every label sequence's probability enumerated here, and greedy decoding on peaked
inputs; ONNX nodes of domain ai.graphcore as PopART writes them."""
import itertools

import numpy as np
import pytest
import torch


def run(popart, build, feeds):
    """Builds `build(builder, input ids)` over inputs with the values `feeds`, runs it once on the
    CPU and returns the outputs (a list)."""
    b = popart.Builder()
    ids = [b.addInputTensor(popart.TensorInfo(a)) for a in feeds]
    outs = list(build(b, ids))
    for o in outs:
        b.addOutputTensor(o)
    s = popart.InferenceSession(b.getModelProto(), popart.DataFlow(1, outs),
                                popart.DeviceManager().createCpuDevice())
    s.prepareDevice()
    a = s.initAnchorArrays()
    s.run(popart.PyStepIO(dict(zip(ids, feeds)), a))
    return [a[o] for o in outs]


def train(popart, build, weights, feeds, lr=0.0, anchors=()):
    """Weights (trainable) and inputs; `build(b, weight ids, input ids)` returns the loss. One SGD
    step with learning rate `lr`; returns (anchors, the weights after the step, their gradients)."""
    b = popart.Builder()
    w = [b.addInitializedInputTensor(x) for x in weights]
    ins = [b.addInputTensor(popart.TensorInfo(a)) for a in feeds]
    loss = build(b, w, ins)
    names = [loss] + [popart.reservedGradientPrefix() + x for x in w] + list(anchors)
    s = popart.TrainingSession(b.getModelProto(), popart.DataFlow(1, names), loss,
                               popart.SGD({"defaultLearningRate": (lr, False)}),
                               popart.DeviceManager().createCpuDevice())
    s.prepareDevice()
    s.weightsFromHost()
    a = s.initAnchorArrays()
    s.run(popart.PyStepIO(dict(zip(ins, feeds)), a))
    s.weightsToHost()
    after = {x: np.zeros_like(v) for x, v in zip(w, weights)}
    s.readWeights(popart.PyWeightsIO(after))
    return a, [after[x] for x in w], [a[popart.reservedGradientPrefix() + x] for x in w]


# ------------------------------------------------------------------ lstm

POPART_GATES = [1, 0, 2, 3]  # torch's i, f, g, o at Poplar's f, i, c, o positions


def torch_params(W, B):
    """torch.nn.LSTM's parameters from PopART's weights [4, I + H, H] and bias [4, H]."""
    I = W.shape[1] - W.shape[2]
    order = [POPART_GATES.index(g) for g in range(4)]  # Poplar's index of torch's i, f, g, o
    w_ih = torch.cat([W[k, :I, :].T for k in order], 0)
    w_hh = torch.cat([W[k, I:, :].T for k in order], 0)
    b_ih = torch.cat([B[k] for k in order], 0)
    return {"weight_ih_l0": w_ih, "weight_hh_l0": w_hh, "bias_ih_l0": b_ih,
            "bias_hh_l0": torch.zeros_like(b_ih)}


def torch_lstm(X, W, B, init):
    """torch.nn.LSTM's kernel (what the module calls with its flat weights), differentiable in the
    reordered weights."""
    p = torch_params(W, B)
    flat = [p["weight_ih_l0"], p["weight_hh_l0"], p["bias_ih_l0"], p["bias_hh_l0"]]
    out, h, c = torch._VF.lstm(X, (init[0:1], init[1:2]), flat, True, 1, 0.0, False, False, False)
    return out, h[0], c[0]


@pytest.mark.parametrize("full", [1, 0])
def test_lstm_matches_torch(popart, full):
    rng = np.random.default_rng(1)
    S, N, I, H = 5, 3, 4, 6
    X = rng.standard_normal((S, N, I)).astype(np.float32)
    W = rng.uniform(-0.5, 0.5, (4, I + H, H)).astype(np.float32)
    B = rng.uniform(-0.5, 0.5, (4, H)).astype(np.float32)
    init = rng.uniform(-1, 1, (2, N, H)).astype(np.float32)
    out, cell = run(popart, lambda b, i: b.aiGraphcore.lstm(i, outputFullSequence=full), [X, W, B, init])
    lstm = torch.nn.LSTM(I, H).double()
    with torch.no_grad():
        for k, v in torch_params(torch.tensor(W, dtype=torch.float64), torch.tensor(B, dtype=torch.float64)).items():
            getattr(lstm, k).copy_(v)
    init64 = torch.tensor(init, dtype=torch.float64)
    ref, (h, c) = lstm(torch.tensor(X, dtype=torch.float64), (init64[0:1], init64[1:2]))
    np.testing.assert_allclose(out, (ref if full else h[0]).detach().numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(cell, c[0].detach().numpy(), rtol=1e-5, atol=1e-6)


def test_lstm_default_arguments_and_shapes(popart):
    X = np.ones((2, 1, 3), np.float32)
    W = np.full((4, 5, 2), 0.1, np.float32)
    b = popart.Builder()
    x = b.addInputTensor(popart.TensorInfo(X))
    w = b.addInitializedInputTensor(W)
    y, c = b.aiGraphcore.lstm([x, w])
    assert b.getTensorShape(y) == [2, 1, 2] and b.getTensorShape(c) == [1, 2]
    assert b.getTensorDtypeString(y) == "float32"


def test_lstm_gradients_match_torch(popart):
    rng = np.random.default_rng(2)
    S, N, I, H = 4, 2, 3, 5
    X = rng.standard_normal((S, N, I))
    W = rng.uniform(-0.6, 0.6, (4, I + H, H))
    B = rng.uniform(-0.5, 0.5, (4, H))
    init = rng.uniform(-1, 1, (2, N, H))
    C0 = rng.uniform(-1, 1, (S, N, H))
    C1 = rng.uniform(-1, 1, (N, H))

    def build(b, w, i):
        y, c = b.aiGraphcore.lstm([i[0]] + w)
        c0 = b.aiOnnx.constant(C0)
        c1 = b.aiOnnx.constant(C1)
        s = b.aiOnnx.add([b.aiOnnx.reducesum([b.aiOnnx.mul([y, c0])], keepdims=0),
                          b.aiOnnx.reducesum([b.aiOnnx.mul([c, c1])], keepdims=0)])
        return b.aiGraphcore.identityloss([s], reduction=popart.ReductionType.Sum)

    _, _, g = train(popart, build, [W, B, init], [X])
    tw = [torch.tensor(a, requires_grad=True) for a in (W, B, init)]
    out, _, c = torch_lstm(torch.tensor(X), *tw)
    ((out * torch.tensor(C0)).sum() + (c * torch.tensor(C1)).sum()).backward()
    for got, t in zip(g, tw):
        np.testing.assert_allclose(got, t.grad.numpy(), rtol=1e-9, atol=1e-11)


def test_lstm_bad_weights_shape(popart):
    b = popart.Builder()
    x = b.addInputTensor("FLOAT", [4, 2, 3])
    w = b.addInputTensor("FLOAT", [4, 7, 5])
    y, _ = b.aiGraphcore.lstm([x, w])
    with pytest.raises(popart.popart_exception, match=r"Bad weights shape \[4 7 5\].*should be \[4 8 5\]"):
        popart.InferenceSession(b.getModelProto(), popart.DataFlow(1, [y]),
                                popart.DeviceManager().createCpuDevice())


# ------------------------------------------------------------------ ctcloss

T, N, C, S = 6, 3, 5, 3


def ctc_data(seed, blank=0):
    rng = np.random.default_rng(seed)
    logits = rng.standard_normal((T, N, C))
    classes = [c for c in range(C) if c != blank]
    targets = rng.choice(classes, (N, S)).astype(np.uint32)
    in_lens = np.array([6, 5, 4], np.uint32)
    tgt_lens = np.array([3, 1, 0], np.uint32)
    return logits, targets, in_lens, tgt_lens


REDUCTIONS = {"mean": "Mean", "sum": "Sum", "none": "NoReduction"}


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("blank", [0, 2])
def test_ctcloss_matches_torch(popart, reduction, blank):
    logits, targets, in_lens, tgt_lens = ctc_data(3, blank)
    lp = torch.log_softmax(torch.tensor(logits), 2)
    red = getattr(popart.ReductionType, REDUCTIONS[reduction])
    (loss,) = run(popart, lambda b, i: [b.aiGraphcore.ctcloss(i, reduction=red, blank=blank)],
                  [lp.numpy(), targets, in_lens, tgt_lens])
    ref = torch.nn.functional.ctc_loss(lp, torch.tensor(targets.astype(np.int64)), torch.tensor(in_lens.astype(np.int64)),
                                       torch.tensor(tgt_lens.astype(np.int64)), blank=blank, reduction=reduction)
    np.testing.assert_allclose(loss, ref.numpy(), rtol=1e-12)


@pytest.mark.parametrize("zero_infinity", [False, True])
def test_ctcloss_zero_infinity(popart, zero_infinity):
    lp = torch.log_softmax(torch.tensor(np.random.default_rng(4).standard_normal((2, 1, 3))), 2)
    feeds = [lp.numpy(), np.array([[1, 1]], np.uint32), np.array([2], np.uint32), np.array([2], np.uint32)]
    (loss,) = run(popart, lambda b, i: [b.aiGraphcore.ctcloss(i, reduction=popart.ReductionType.NoReduction,
                                                              zeroInfinity=zero_infinity)], feeds)
    ref = torch.nn.functional.ctc_loss(lp, torch.tensor([[1, 1]]), torch.tensor([2]), torch.tensor([2]),
                                       reduction="none", zero_infinity=zero_infinity)
    np.testing.assert_array_equal(loss, ref.numpy())


def test_ctcloss_out_data_type(popart):
    logits, targets, in_lens, tgt_lens = ctc_data(5)
    lp = torch.log_softmax(torch.tensor(logits), 2).numpy()
    (loss,) = run(popart, lambda b, i: [b.aiGraphcore.ctcloss(i, outDataType="FLOAT")],
                  [lp.astype(np.float16), targets, in_lens, tgt_lens])
    assert loss.dtype == np.float32
    ref = torch.nn.functional.ctc_loss(torch.tensor(lp.astype(np.float16).astype(np.float64)),
                                       torch.tensor(targets.astype(np.int64)), torch.tensor(in_lens.astype(np.int64)),
                                       torch.tensor(tgt_lens.astype(np.int64)))
    np.testing.assert_allclose(loss, ref.numpy(), rtol=1e-5)


@pytest.mark.parametrize("reduction", ["mean", "sum"])
def test_ctcloss_as_training_loss_matches_torch(popart, reduction):
    """The loss of a training session: the gradient of the logits (through log-softmax) and one SGD
    step against torch.autograd."""
    logits, targets, in_lens, tgt_lens = ctc_data(6)
    red = getattr(popart.ReductionType, REDUCTIONS[reduction])
    lr = 0.5

    def build(b, w, i):
        lp = b.aiOnnx.logsoftmax([w[0]], axis=2)
        return b.aiGraphcore.ctcloss([lp] + i, reduction=red)

    a, after, g = train(popart, build, [logits], [targets, in_lens, tgt_lens], lr=lr)
    t = torch.tensor(logits, requires_grad=True)
    ref = torch.nn.functional.ctc_loss(torch.log_softmax(t, 2), torch.tensor(targets.astype(np.int64)),
                                       torch.tensor(in_lens.astype(np.int64)),
                                       torch.tensor(tgt_lens.astype(np.int64)), reduction=reduction)
    ref.backward()
    np.testing.assert_allclose(g[0], t.grad.numpy(), rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(after[0], logits - lr * t.grad.numpy(), rtol=1e-9, atol=1e-12)


def test_ctcloss_gradient_of_log_probabilities_is_exact(popart):
    """d loss / d logProbs for log-probabilities that are not a log-softmax (torch's ctc_loss
    backward assumes they are): against central differences of torch's loss."""
    logits, targets, in_lens, tgt_lens = ctc_data(7)
    lp = np.log(np.random.default_rng(8).uniform(0.05, 0.5, (T, N, C)))
    _, _, g = train(popart, lambda b, w, i: b.aiGraphcore.ctcloss(w + i, reduction=popart.ReductionType.Sum),
                    [lp], [targets, in_lens, tgt_lens])

    def loss(x):
        return torch.nn.functional.ctc_loss(torch.tensor(x), torch.tensor(targets.astype(np.int64)),
                                            torch.tensor(in_lens.astype(np.int64)),
                                            torch.tensor(tgt_lens.astype(np.int64)), reduction="sum").item()

    h = 1e-6
    fd = np.zeros_like(lp)
    for k in np.ndindex(lp.shape):
        p, m = lp.copy(), lp.copy()
        p[k] += h
        m[k] -= h
        fd[k] = (loss(p) - loss(m)) / (2 * h)
    np.testing.assert_allclose(g[0], fd, rtol=1e-6, atol=1e-8)


def test_ctcloss_bad_targets_shape(popart):
    b = popart.Builder()
    lp = b.addInputTensor("FLOAT", [4, 2, 5])
    tg = b.addInputTensor("UINT32", [3, 3])
    il = b.addInputTensor("UINT32", [2])
    loss = b.aiGraphcore.ctcloss([lp, tg, il, il])
    with pytest.raises(popart.popart_exception, match="Unsupported shape for input 1"):
        popart.InferenceSession(b.getModelProto(), popart.DataFlow(1, [loss]),
                                popart.DeviceManager().createCpuDevice())


# ------------------------------------------------------------------ ctcbeamsearchdecoder

def label_sequences(lp, length, blank):
    """Every label sequence's log probability (summed over its alignments), best first."""
    probs = {}
    for path in itertools.product(range(lp.shape[1]), repeat=length):
        seq, prev = [], None
        for c in path:
            if c != blank and c != prev:
                seq.append(c)
            prev = c
        p = np.exp(sum(lp[t, c] for t, c in enumerate(path)))
        probs[tuple(seq)] = probs.get(tuple(seq), 0.0) + p
    return sorted(((np.log(p), s) for s, p in probs.items()), key=lambda x: -x[0])


@pytest.mark.parametrize("blank", [0, 3])
def test_ctcbeamsearchdecoder_wide_beam_is_exact(popart, blank):
    rng = np.random.default_rng(10)
    Tn, Nn, Cn, top = 5, 2, 4, 4
    lp = torch.log_softmax(torch.tensor(rng.standard_normal((Tn, Nn, Cn))), 2).numpy()
    lens = np.array([5, 3], np.uint32)
    # 3 labels, at most 5 long: 364 prefixes, all kept with beamWidth 400.
    probs, lengths, labels = run(
        popart, lambda b, i: b.aiGraphcore.ctcbeamsearchdecoder(i, blank=blank, beamWidth=400, topPaths=top),
        [lp, lens])
    assert lengths.dtype == np.uint32 and labels.shape == (Nn, top, Tn)
    for n in range(Nn):
        want = label_sequences(lp[:, n], int(lens[n]), blank)[:top]
        for k, (p, seq) in enumerate(want):
            np.testing.assert_allclose(probs[n, k], p, rtol=1e-10)
            assert lengths[n, k] == len(seq)
            assert list(labels[n, k, :len(seq)]) == list(seq)
            assert not labels[n, k, len(seq):].any()


def test_ctcbeamsearchdecoder_agrees_with_greedy_on_peaked_inputs(popart):
    rng = np.random.default_rng(11)
    Tn, Nn, Cn = 12, 4, 6
    best = rng.integers(0, Cn, (Tn, Nn))
    logits = rng.standard_normal((Tn, Nn, Cn)) + 12.0 * np.eye(Cn)[best]
    lp = torch.log_softmax(torch.tensor(logits), 2).numpy().astype(np.float32)
    lens = np.full(Nn, Tn, np.uint32)
    probs, lengths, labels = run(popart, lambda b, i: b.aiGraphcore.ctcbeamsearchdecoder(i), [lp, lens])
    assert probs.shape == (Nn, 1) and probs.dtype == np.float32
    for n in range(Nn):
        greedy = [int(c) for j, c in enumerate(best[:, n]) if c != 0 and (j == 0 or c != best[j - 1, n])]
        assert lengths[n, 0] == len(greedy)
        assert list(labels[n, 0, :len(greedy)]) == greedy


def test_ctcbeamsearchdecoder_bad_lengths(popart):
    b = popart.Builder()
    lp = b.addInputTensor("FLOAT", [4, 2, 5])
    dl = b.addInputTensor("UINT32", [3])
    outs = b.aiGraphcore.ctcbeamsearchdecoder([lp, dl])
    with pytest.raises(popart.popart_exception, match="'data lengths' tensor of shape \\[2\\]"):
        popart.InferenceSession(b.getModelProto(), popart.DataFlow(1, outs[:1]),
                                popart.DeviceManager().createCpuDevice())


# ------------------------------------------------------------------ import

def test_onnx_nodes_of_domain_ai_graphcore_as_popart_writes_them(popart):
    """PopART's Builder writes output_full_sequence, the reduction as a name, blank and outDataType
    (an ONNX type number), beam_width and top_paths."""
    from onnx import TensorProto, helper
    nodes = [
        helper.make_node("LSTM", ["x", "w"], ["y", "c"], domain="ai.graphcore", output_full_sequence=0),
        helper.make_node("Ctc", ["lp", "t", "il", "tl"], ["loss", "lpgrad"], domain="ai.graphcore",
                         reduction="Sum", blank=0, outDataType=0),
        helper.make_node("CtcBeamSearchDecoder", ["lp", "il"], ["p", "l", "d"], domain="ai.graphcore", blank=0,
                         beam_width=10, top_paths=2),
    ]
    graph = helper.make_graph(
        nodes, "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [3, 2, 2]),
         helper.make_tensor_value_info("w", TensorProto.FLOAT, [4, 5, 3]),
         helper.make_tensor_value_info("lp", TensorProto.FLOAT, [4, 2, 3]),
         helper.make_tensor_value_info("t", TensorProto.UINT32, [2, 2]),
         helper.make_tensor_value_info("il", TensorProto.UINT32, [2]),
         helper.make_tensor_value_info("tl", TensorProto.UINT32, [2])],
        [helper.make_tensor_value_info(n, TensorProto.FLOAT, None) for n in ("y", "c", "loss", "p")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 11),
                                                    helper.make_opsetid("ai.graphcore", 1)])
    s = popart.InferenceSession(model.SerializeToString(), popart.DataFlow(1, ["y", "c", "loss", "p", "d"]),
                                popart.DeviceManager().createCpuDevice())
    s.prepareDevice()
    a = s.initAnchorArrays()
    rng = np.random.default_rng(12)
    x = rng.standard_normal((3, 2, 2)).astype(np.float32)
    w = rng.uniform(-0.5, 0.5, (4, 5, 3)).astype(np.float32)
    lp = torch.log_softmax(torch.tensor(rng.standard_normal((4, 2, 3))), 2).numpy().astype(np.float32)
    t = np.array([[1, 2], [2, 0]], np.uint32)
    il = np.array([4, 3], np.uint32)
    tl = np.array([2, 1], np.uint32)
    s.run(popart.PyStepIO({"x": x, "w": w, "lp": lp, "t": t, "il": il, "tl": tl}, a))
    _, h, c = torch_lstm(torch.tensor(x, dtype=torch.float64), torch.tensor(w, dtype=torch.float64),
                         torch.zeros(4, 3, dtype=torch.float64), torch.zeros(2, 2, 3, dtype=torch.float64))
    np.testing.assert_allclose(a["y"], h.detach().numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(a["c"], c.detach().numpy(), rtol=1e-5, atol=1e-6)
    ref = torch.nn.functional.ctc_loss(torch.tensor(lp), torch.tensor(t.astype(np.int64)),
                                       torch.tensor(il.astype(np.int64)), torch.tensor(tl.astype(np.int64)),
                                       reduction="sum")
    np.testing.assert_allclose(a["loss"], ref.numpy(), rtol=1e-5)
    assert a["p"].shape == (2, 2) and a["d"].shape == (2, 2, 4)
