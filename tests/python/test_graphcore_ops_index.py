"""The aiGraphcore indexing ops through the Python Builder, called as PopART scripts call them
(keywords, PopART's defaults): dynamicslice / update / add / zero, sequenceslice, scatterreduce and
groupedscatterreduce (popart.ScatterReduction), groupedgather, bucketize, sort, reducemedian and
packedDataBlock, against NumPy and PyTorch (torch.scatter_reduce, torch.bucketize, torch.sort,
torch.median); their gradients (of weights, packedDataBlock's data too) against torch.autograd;
PopART's error messages."""
import numpy as np
import pytest
import torch

from conftest import grads, run

pytestmark = pytest.mark.filterwarnings("ignore:scatter_reduce\\(\\) is in beta")


def torch_grads(fn, weights, c):
    ts = [torch.tensor(x, dtype=torch.float64, requires_grad=True) for x in weights]
    out = fn(*ts)
    (out * torch.tensor(c, dtype=torch.float64)).sum().backward()
    return out.detach().numpy(), [t.grad.numpy() for t in ts]


def slice_ref(x, axes, sizes, offsets):
    """Poplar's dynamic slice: an offset past the end of its axis reads 0; slices wrap."""
    idx = [np.arange(n) for n in x.shape]
    for a, s, o in zip(axes, sizes, offsets):
        start = o if 0 <= o < x.shape[a] else 0
        idx[a] = (start + np.arange(s)) % x.shape[a]
    return np.ix_(*idx)


X = np.random.default_rng(1).standard_normal((5, 12, 7)).astype(np.float32)


# ------------------------------------------------------------------ dynamic slices

@pytest.mark.parametrize("offsets", [[1, 3], [4, 6], [0, 12], [2, 5]])
def test_dynamic_ops_match_numpy_with_wrap_around(popart, offsets):
    axes, sizes = [0, 1], [3, 7]
    upd = np.random.default_rng(2).standard_normal((3, 7, 7)).astype(np.float32)
    off = np.array(offsets, np.uint32)
    s, u, a, z = run(popart, lambda b, i: [
        b.aiGraphcore.dynamicslice([i[0], i[1]], axes=axes, sizes=sizes, noOverlap=True),
        b.aiGraphcore.dynamicupdate([i[0], i[1], i[2]], axes=axes, sizes=sizes, noOverlap=False),
        b.aiGraphcore.dynamicadd([i[0], i[1], i[2]], axes=axes, sizes=sizes),
        b.aiGraphcore.dynamiczero([i[0], i[1]], axes=axes, sizes=sizes)], [X, off, upd])
    ix = slice_ref(X, axes, sizes, offsets)
    np.testing.assert_array_equal(s, X[ix])
    want = X.copy()
    want[ix] = upd
    np.testing.assert_array_equal(u, want)
    want = X.copy()
    want[ix] += upd
    np.testing.assert_allclose(a, want, rtol=1e-6)
    want = X.copy()
    want[ix] = 0
    np.testing.assert_array_equal(z, want)


def test_dynamicslice_gradients_of_non_overlapping_slices_match_torch(popart):
    # PopART's test_dynamicslice_training: four slices of one weight, scaled 1..4.
    data = np.random.default_rng(3).random((5, 12, 7))
    offs = [np.array([k * 3], np.uint32) for k in range(4)]

    def build(b, w, i):
        outs = [b.aiGraphcore.scale([b.aiGraphcore.dynamicslice([w[0], i[k]], axes=[1], sizes=[3], noOverlap=True)],
                                    float(1 + k)) for k in range(4)]
        return b.aiOnnx.concat(outs, axis=0)

    t, c, (g,) = grads(popart, build, [data], offs)
    want, (gw,) = torch_grads(lambda x: torch.cat([x[:, 3 * k:3 * k + 3] * (1 + k) for k in range(4)]), [data], c)
    np.testing.assert_allclose(t, want, rtol=1e-12)
    np.testing.assert_allclose(g, gw, rtol=1e-12)


def test_dynamicupdate_add_zero_gradients_match_torch(popart):
    data = np.random.default_rng(4).random((4, 3, 5))
    d0 = np.random.default_rng(5).random((2, 3, 1))
    off = np.array([1, 2], np.uint32)

    def build(b, w, i):
        up = b.aiGraphcore.dynamicupdate([w[0], i[0], w[1]], axes=[0, 2], sizes=[2, 1])
        add = b.aiGraphcore.dynamicadd([up, i[0], b.aiGraphcore.scale([w[1]], 3.0)], axes=[0, 2], sizes=[2, 1])
        return b.aiGraphcore.dynamiczero([add, i[1]], axes=[1], sizes=[1])

    def ref(x, u):
        y = x.clone()
        y[1:3, :, 2:3] = u
        y = y + torch.nn.functional.pad(u * 3, (2, 2, 0, 0, 1, 1))
        mask = torch.ones_like(y)
        mask[:, 2] = 0
        return y * mask

    t, c, g = grads(popart, build, [data, d0], [off, np.array([2], np.uint32)])
    want, gw = torch_grads(ref, [data, d0], c)
    np.testing.assert_allclose(t, want, rtol=1e-12)
    for a, e in zip(g, gw):
        np.testing.assert_allclose(a, e, rtol=1e-12)


def test_dynamic_op_errors(popart):
    b = popart.Builder()
    x = b.addInputTensor("FLOAT", [4, 6])
    o = b.addInputTensor("UINT32", [1])
    bad = b.aiGraphcore.dynamicslice([x, o], axes=[1], sizes=[7])
    b.addOutputTensor(bad)
    with pytest.raises(popart.popart_exception, match=r"sizes\[0\] = 7 is out of range for axis 1 of size 6"):
        popart.InferenceSession(b.getModelProto(), popart.DataFlow(1, [bad]),
                                popart.DeviceManager().createCpuDevice())
    with pytest.raises(TypeError, match="missing a required argument: 'sizes'"):
        b.aiGraphcore.dynamicslice([x, o], axes=[1])
    with pytest.raises(TypeError):
        b.aiGraphcore.dynamiczero([x, o], axes=[1], sizes=[2], noOverlap=1)  # dynamiczero has no noOverlap


# ------------------------------------------------------------------ sequenceslice

@pytest.mark.parametrize("zero_unused", [False, True])
def test_sequenceslice_matches_numpy(popart, zero_unused):
    src = (np.arange(36) + 10).reshape(6, 6).astype(np.float32)
    dst = np.full((4, 6), -1, np.float32)
    n, so, do = (np.array(v, np.uint32) for v in ([1, 2], [0, 3], [3, 0]))
    y = run(popart, lambda b, i: b.aiGraphcore.sequenceslice(i, zero_unused), [src, dst, n, so, do])
    want = np.zeros_like(dst) if zero_unused else dst.copy()
    for k in range(2):
        want[do[k]:do[k] + n[k]] = src[so[k]:so[k] + n[k]]
    np.testing.assert_array_equal(y, want)


# ------------------------------------------------------------------ scatterreduce

TORCH_RED = {"Sum": "sum", "Max": "amax", "Min": "amin", "Mul": "prod"}


@pytest.mark.parametrize("red", ["Sum", "Max", "Min", "Mul", "NoReduction"])
@pytest.mark.parametrize("initial", [False, True])
def test_scatterreduce_matches_torch_scatter_reduce(popart, red, initial):
    rng = np.random.default_rng(6)
    src = rng.uniform(0.5, 2.0, (6, 3, 4)).astype(np.float32)
    index = np.array([0, 1, 0, 1, 2, 1])
    full = np.broadcast_to(index.reshape(6, 1, 1), src.shape)
    if red == "NoReduction":
        index = np.array([3, 1, 0, 4, 2, 5])
        full = np.broadcast_to(index.reshape(6, 1, 1), src.shape)
    size = int(index.max()) + 1
    init = rng.uniform(0.5, 2.0, (size, 3, 4)).astype(np.float32)
    feeds = [src, index.astype(np.uint32)] + ([init] if initial else [])
    reduction = getattr(popart.ScatterReduction, red)
    y = run(popart, lambda b, i: b.aiGraphcore.scatterreduce(i, axis_size=size, axis=0, reduction=reduction), feeds)
    base = torch.tensor(init) if initial else (torch.ones if red == "Mul" else torch.zeros)(size, 3, 4)
    if red == "NoReduction":
        want = base.scatter(0, torch.tensor(full), torch.tensor(src))
    else:
        want = base.scatter_reduce(0, torch.tensor(full), torch.tensor(src), TORCH_RED[red], include_self=initial)
    np.testing.assert_allclose(y, want.numpy(), rtol=1e-6)


@pytest.mark.parametrize("red", ["Sum", "Max", "Min", "Mul", "NoReduction"])
@pytest.mark.parametrize("initial", [False, True])
def test_scatterreduce_gradients_match_torch(popart, red, initial):
    rng = np.random.default_rng(7)
    src = rng.uniform(0.5, 2.0, (4, 3))  # distinct values: no ties for Max / Min
    index = np.array([[0, 1, 2], [3, 4, 0], [1, 2, 4], [4, 0, 3]]) if red == "NoReduction" else \
        np.array([[0, 1, 2], [1, 0, 1], [0, 2, 4], [3, 2, 1]])
    init = rng.uniform(0.5, 2.0, (5, 3))
    weights = [src] + ([init] if initial else [])
    reduction = getattr(popart.ScatterReduction, red)

    def build(b, w, i):
        return b.aiGraphcore.scatterreduce(w + i, axis_size=5, axis=0, reduction=reduction) if not initial else \
            b.aiGraphcore.scatterreduce([w[0], i[0], w[1]], axis_size=5, axis=0, reduction=reduction)

    def ref(x, *rest):
        base = rest[0] if initial else (torch.ones if red == "Mul" else torch.zeros)(5, 3, dtype=torch.float64)
        idx = torch.tensor(index)
        if red == "NoReduction":
            return base.scatter(0, idx, x)
        return base.scatter_reduce(0, idx, x, TORCH_RED[red], include_self=initial)

    t, c, g = grads(popart, build, weights, [index.astype(np.uint32)])
    want, gw = torch_grads(ref, weights, c)
    np.testing.assert_allclose(t, want, rtol=1e-12)
    for a, e in zip(g, gw):
        np.testing.assert_allclose(a, e, rtol=1e-12, atol=1e-15)


def test_groupedscatterreduce_and_groupedgather(popart):
    rng = np.random.default_rng(8)
    src = rng.standard_normal((2, 8)).astype(np.float32)
    index = np.array([[0, 0, 1, 0, 2, 2, 3, 3], [1, 1, 0, 1, 3, 3, 2, 2]], np.uint32)
    data = rng.standard_normal((2, 5, 3)).astype(np.float32)
    gi = np.array([[4, 0], [2, 2]], np.int32)
    y, g = run(popart, lambda b, i: [
        b.aiGraphcore.groupedscatterreduce([i[0], i[1]], axis_size=4, axis=1, group_size=2,
                                           reduction=popart.ScatterReduction.Max),
        b.aiGraphcore.groupedgather([i[2], i[3]], axis=1, group_size=2)], [src, index, data, gi])
    for k in range(2):
        want = torch.zeros(4).scatter_reduce(0, torch.tensor(index[k].astype(np.int64)), torch.tensor(src[k]), "amax",
                                              include_self=False)
        np.testing.assert_allclose(y[k], want.numpy())
        np.testing.assert_array_equal(g[k], data[k][gi[k]])


def test_scatterreduce_errors_in_popart_words(popart):
    def fails(src_shape, idx_shape, match, **kw):
        b = popart.Builder()
        s = b.addInputTensor("FLOAT", src_shape)
        i = b.addInputTensor("UINT32", idx_shape)
        t = b.aiGraphcore.scatterreduce([s, i], **kw)
        b.addOutputTensor(t)
        with pytest.raises(popart.popart_exception, match=match):
            popart.InferenceSession(b.getModelProto(), popart.DataFlow(1, [t]),
                                    popart.DeviceManager().createCpuDevice())

    fails([2, 3, 4], [2, 3, 4], "axis = 4 is outside the acceptable range", axis=4, axis_size=5)
    fails([2, 3, 4], [2, 3, 4], "axis_size = 0 is not valid", axis_size=0)
    fails([6, 3], [6, 2], "Failed to expand 'indices' shape ", axis=0, axis_size=5)
    fails([3, 4], [3, 4, 1], "Invalid rank for indices input.", axis=0, axis_size=5)
    fails([6, 3, 5], [1, 3, 5], "Partial broadcasting of indices is not currently supported", axis=0, axis_size=5)
    b = popart.Builder()
    s = b.addInputTensor("FLOAT16", [10, 10, 64])
    i = b.addInputTensor("UINT32", [10, 10, 64])
    t = b.aiGraphcore.scatterreduce([s, i], axis=1, axis_size=5)
    assert b.getTensorShape(t) == [10, 5, 64]
    assert b.getTensorDtypeString(t) == "float16"
    with pytest.raises(popart.popart_exception, match="Invalid ScatterReduction 'Mean'"):
        b.aiGraphcore.scatterreduce([s, i], axis_size=5, reduction="Mean")


def test_scatter_reduction_enum(popart):
    assert [m.name for m in popart.ScatterReduction] == ["Sum", "Max", "Min", "Mul", "None"]
    assert popart.ScatterReduction.NoReduction is popart.ScatterReduction["None"]


# ------------------------------------------------------------------ bucketize, sort, reducemedian

@pytest.mark.parametrize("right", [False, True])
@pytest.mark.parametrize("dtype", [np.float32, np.int32])
def test_bucketize_matches_torch(popart, right, dtype):
    x = np.array([[3, 6, 9], [3, 6, 10], [-1, 0, 1], [8, 9, 140]], dtype)
    bounds = np.array([1, 3, 5, 7, 9], dtype)
    y = run(popart, lambda b, i: b.aiGraphcore.bucketize(i, right=int(right)), [x, bounds])
    want = torch.bucketize(torch.tensor(x), torch.tensor(bounds), out_int32=True, right=right)
    assert y.dtype == np.int32
    np.testing.assert_array_equal(y, want.numpy())


@pytest.mark.parametrize("descending", [False, True])
def test_sort_matches_torch_and_its_gradient(popart, descending):
    x = np.random.default_rng(10).standard_normal((3, 7))
    v, i = run(popart, lambda b, ids: b.aiGraphcore.sort(ids, axis=1, descending=int(descending), stable=1), [x])
    tv, ti = torch.sort(torch.tensor(x), dim=1, descending=descending, stable=True)
    np.testing.assert_array_equal(v, tv.numpy())
    assert i.dtype == np.int64
    np.testing.assert_array_equal(i, ti.numpy())
    t, c, (g,) = grads(popart, lambda b, w, ins: b.aiGraphcore.sort(w, axis=0, descending=int(descending))[0], [x])
    want, (gw,) = torch_grads(lambda a: torch.sort(a, dim=0, descending=descending).values, [x], c)
    np.testing.assert_allclose(g, gw, rtol=1e-12)


@pytest.mark.parametrize("axis", [0, 1, 2, 3])
@pytest.mark.parametrize("keepdims", [False, True])
def test_reducemedian_matches_torch_median(popart, axis, keepdims):
    x = np.random.default_rng(11).permutation(3 * 4 * 7 * 8).reshape(3, 4, 7, 8).astype(np.float32)
    v, i = run(popart, lambda b, ids: b.aiGraphcore.reducemedian(ids, axes=[axis], keepdims=keepdims), [x])
    want = torch.median(torch.tensor(x), dim=axis, keepdim=keepdims)
    np.testing.assert_array_equal(v, want.values.numpy())
    np.testing.assert_array_equal(i, want.indices.numpy().astype(np.int32))
    t, c, (g,) = grads(popart, lambda b, w, ins: b.aiGraphcore.reducemedian(w, axes=[axis], keepdims=keepdims)[0],
                       [x.astype(np.float64)])
    _, (gw,) = torch_grads(lambda a: torch.median(a, dim=axis, keepdim=keepdims).values, [x], c)
    np.testing.assert_array_equal(g, gw)


@pytest.mark.parametrize("axes", [None, (), (0, 2), (1, 3, 0)])
def test_reducemedian_over_several_axes_matches_numpy(popart, axes):
    x = np.random.default_rng(12).standard_normal((1, 3, 5, 7)).astype(np.float32)
    v, _ = run(popart, lambda b, ids: b.aiGraphcore.reducemedian(ids, axes=axes, keepdims=0), [x])
    np.testing.assert_array_equal(v, np.median(x, axis=axes))  # odd counts: numpy's median is an element


# ------------------------------------------------------------------ packedDataBlock

@pytest.mark.parametrize("batch", [1, 2, 3])
def test_packed_data_block(popart, batch):
    lengths = [3, 5, 7, 4, 6, 2]
    offsets = np.cumsum([0] + lengths[:-1]).astype(np.uint32)
    lens = np.array(lengths, np.uint32)
    data = np.random.default_rng(13).random((sum(lengths), 5)).astype(np.float32)
    max_len = 10

    def build(b, ids):
        sub = b.createSubgraphBuilder()
        x = sub.addUntypedInputTensor()
        sub.addOutputTensor(sub.aiOnnx.matmul([x, sub.aiOnnx.transpose([x], perm=[0, 2, 1])]))
        return b.aiGraphcore.packedDataBlock(ids, maxSequenceLengths=[max_len], resultSize=data.shape[0],
                                             callbackBatchSize=batch, callback=sub)

    y = run(popart, build, [data, offsets, lens, offsets, lens])
    want = np.zeros((data.shape[0], max_len), np.float32)
    for o, n in zip(offsets, lengths):
        seq = np.zeros((max_len, 5), np.float32)
        seq[:n] = data[o:o + n]
        want[o:o + n] = (seq @ seq.T)[:n]
    np.testing.assert_allclose(y, want, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("batch", [1, 2])
def test_packed_data_block_gradient(popart, batch):
    # PopART differentiates packedDataBlock through its lowered loops: the data's gradient against
    # torch.autograd of the same unpack / callback / pack (row 8 is in no sequence: gradient 0).
    offsets = np.array([0, 3, 4, 9], np.uint32)
    lens = np.array([3, 1, 4, 2], np.uint32)
    max_len = 4
    data = np.random.default_rng(14).standard_normal((11, 3))

    def callback(sub):
        x = sub.addUntypedInputTensor()
        sub.addOutputTensor(sub.aiOnnx.tanh([sub.aiOnnx.matmul([x, sub.aiOnnx.transpose([x], perm=[0, 2, 1])])]))
        return sub

    def build(b, w, ins):
        return b.aiGraphcore.packedDataBlock([w[0], ins[0], ins[1], ins[0], ins[1]], maxSequenceLengths=[max_len],
                                             resultSize=11, callbackBatchSize=batch,
                                             callback=callback(b.createSubgraphBuilder()))

    y, c, (g,) = grads(popart, build, [data], [offsets, lens])

    def ref(d):
        rows = [torch.zeros(max_len, dtype=torch.float64) for _ in range(11)]
        for o, n in zip(offsets.tolist(), lens.tolist()):
            seq = torch.cat([d[o:o + n], torch.zeros(max_len - n, 3, dtype=torch.float64)])
            out = torch.tanh(seq @ seq.T)
            for r in range(n):
                rows[o + r] = out[r]
        return torch.stack(rows)

    want, (want_g,) = torch_grads(ref, [data], c)
    np.testing.assert_allclose(y, want, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(g, want_g, rtol=1e-10, atol=1e-12)
    assert not g[8].any()


def test_packed_data_block_needs_a_builder(popart):
    b = popart.Builder()
    d = b.addInputTensor("FLOAT", [4, 2])
    n = b.addInputTensor("UINT32", [2])
    with pytest.raises(popart.popart_exception, match="callback must be a popart.Builder"):
        b.aiGraphcore.packedDataBlock([d, n, n, n, n], [2], 4, 1, "not a graph")


def test_onnx_nodes_of_domain_ai_graphcore_as_popart_writes_them(popart):
    # PopART's Builder writes the reduction in lower case ("none") and leaves noOverlap out.
    from onnx import TensorProto, helper
    nodes = [helper.make_node("DynamicSlice", ["x", "o"], ["s"], domain="ai.graphcore", axes=[1], sizes=[2]),
             helper.make_node("ScatterReduce", ["x", "i"], ["r"], domain="ai.graphcore", axis_size=3, axis=0,
                              reduction="none")]
    graph = helper.make_graph(
        nodes, "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [3, 4]),
         helper.make_tensor_value_info("o", TensorProto.UINT32, [1]),
         helper.make_tensor_value_info("i", TensorProto.UINT32, [3])],
        [helper.make_tensor_value_info("s", TensorProto.FLOAT, None),
         helper.make_tensor_value_info("r", TensorProto.FLOAT, None)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 11),
                                                    helper.make_opsetid("ai.graphcore", 1)])
    s = popart.InferenceSession(model.SerializeToString(), popart.DataFlow(1, ["s", "r"]),
                                popart.DeviceManager().createCpuDevice())
    s.prepareDevice()
    a = s.initAnchorArrays()
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    s.run(popart.PyStepIO({"x": x, "o": np.array([3], np.uint32), "i": np.array([2, 0, 1], np.uint32)}, a))
    np.testing.assert_array_equal(a["s"], x[:, [3, 0]])
    np.testing.assert_array_equal(a["r"], x[[1, 2, 0]])
