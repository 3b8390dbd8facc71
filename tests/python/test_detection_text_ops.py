"""NonMaxSuppression, MeanVarianceNormalization, integer MaxPool and TfIdfVectorizer through the
Python Builder, against independent references: torchvision.ops.nms, NumPy, torch's max_pool2d and
scikit-learn's CountVectorizer (plus a plain-Python n-gram count for skips and weights)."""
import itertools

import numpy as np
import pytest
import torch
from conftest import run
from onnx import TensorProto, helper

torchvision = pytest.importorskip("torchvision")


def random_boxes(rng, n):
    """[n, 4] boxes as (y1, x1, y2, x2), some with their corners swapped."""
    corner = rng.uniform(0, 20, (n, 2))
    size = rng.uniform(1, 8, (n, 2))
    boxes = np.concatenate([corner, corner + size], axis=1).astype(np.float32)
    swap = rng.random(n) < 0.3
    boxes[swap] = boxes[swap][:, [2, 3, 0, 1]]
    return boxes


def torch_nms(boxes, scores, max_out, iou, score_threshold=None):
    """The box indices torchvision selects (by descending score), the score threshold applied first.
    IoU does not depend on which coordinate is x, so (y1, x1, y2, x2) boxes go in as they are."""
    keep = np.arange(len(scores))
    if score_threshold is not None:
        keep = keep[scores > score_threshold]
    b = np.concatenate([np.minimum(boxes[:, :2], boxes[:, 2:]), np.maximum(boxes[:, :2], boxes[:, 2:])], axis=1)
    sel = torchvision.ops.nms(torch.tensor(b[keep]), torch.tensor(scores[keep]), iou).numpy()
    return keep[sel][:max_out]


@pytest.mark.parametrize("iou,score_threshold", [(0.5, None), (0.2, 0.4), (0.0, None), (0.7, 0.9)])
def test_nonmaxsuppression_matches_torchvision(popart, iou, score_threshold):
    rng = np.random.default_rng(int(iou * 10) + 3)
    B, C, N, max_out = 2, 3, 60, 9
    boxes = np.stack([random_boxes(rng, N) for _ in range(B)])
    scores = rng.random((B, C, N)).astype(np.float32)

    def build(b, ids):
        ai = b.aiOnnxOpset11
        args = ids + [ai.constant(np.array([max_out], np.int64)), ai.constant(np.array(iou, np.float32))]
        if score_threshold is not None:
            args.append(ai.constant(np.array([score_threshold], np.float32)))
        return ai.nonmaxsuppression(args)

    got = run(popart, build, [boxes, scores])
    want = [[bi, ci, k] for bi in range(B) for ci in range(C)
            for k in torch_nms(boxes[bi], scores[bi, ci], max_out, iou, score_threshold)]
    assert got.dtype == np.int64
    np.testing.assert_array_equal(got, np.array(want, np.int64).reshape(-1, 3))


def test_nonmaxsuppression_centre_boxes(popart):
    rng = np.random.default_rng(11)
    corners = random_boxes(rng, 30)
    lo, hi = np.minimum(corners[:, :2], corners[:, 2:]), np.maximum(corners[:, :2], corners[:, 2:])
    # [x_centre, y_centre, width, height] of the same boxes (the corners are (y, x)).
    centre = np.stack([(lo[:, 1] + hi[:, 1]) / 2, (lo[:, 0] + hi[:, 0]) / 2, hi[:, 1] - lo[:, 1], hi[:, 0] - lo[:, 0]],
                      axis=1).astype(np.float32)
    scores = rng.random((1, 1, 30)).astype(np.float32)

    def build(b, ids):
        ai = b.aiOnnxOpset11
        limits = [ai.constant(np.array(100, np.int64)), ai.constant(np.array(0.3, np.float32))]
        return ai.nonmaxsuppression(ids + limits, center_point_box=1)

    got = run(popart, build, [centre[None], scores])
    np.testing.assert_array_equal(got[:, 2], torch_nms(corners, scores[0, 0], 100, 0.3))


def mvn_numpy(x, axes):
    mean = x.mean(axis=tuple(axes), keepdims=True)
    sd = np.sqrt(((x - mean) ** 2).mean(axis=tuple(axes), keepdims=True))
    return (x - mean) / (sd + 1e-9)


@pytest.mark.parametrize("shape,axes", [((2, 3, 4, 5), None), ((3, 4, 6), [1]), ((3, 4, 6), [0, 2]),
                                        ((2, 3, 4, 5), [-1, 1])])
@pytest.mark.parametrize("dtype,tol", [(np.float32, 1e-5), (np.float64, 1e-12)])
def test_meanvariancenormalization_matches_numpy(popart, shape, axes, dtype, tol):
    x = (np.random.default_rng(5).standard_normal(shape) * 3 + 1).astype(dtype)
    kw = {} if axes is None else {"axes": axes}
    got = run(popart, lambda b, ids: b.aiOnnxOpset13.meanvariancenormalization(ids, **kw), [x])
    assert got.dtype == dtype
    np.testing.assert_allclose(got, mvn_numpy(x.astype(np.float64), axes or [0, 2, 3]), rtol=tol, atol=tol)


@pytest.mark.parametrize("dtype", [np.uint8, np.int8])
@pytest.mark.parametrize("kernel,strides,pads,dilations,ceil",
                         [((3, 3), (1, 1), (1, 1, 1, 1), (1, 1), 0), ((2, 3), (2, 2), (0, 1, 0, 1), (1, 1), 1),
                          ((2, 2), (1, 2), (0, 0, 0, 0), (2, 2), 0)])
def test_maxpool_integer_matches_torch(popart, dtype, kernel, strides, pads, dilations, ceil):
    info = np.iinfo(dtype)
    x = np.random.default_rng(9).integers(info.min, info.max + 1, (2, 3, 8, 9)).astype(dtype)

    def build(b, ids):
        return b.aiOnnxOpset12.maxpool(ids, num_outputs=2, kernel_shape=list(kernel), strides=list(strides),
                                       pads=list(pads), dilations=list(dilations), ceil_mode=ceil)

    y, idx = run(popart, build, [x])
    # torch pools float copies (exact for 8-bit values); its indices are per plane.
    t, ti = torch.nn.functional.max_pool2d(torch.tensor(x.astype(np.float32)), kernel, strides, pads[:2], dilations,
                                           ceil_mode=bool(ceil), return_indices=True)
    assert y.dtype == dtype
    np.testing.assert_array_equal(y, t.numpy().astype(dtype))
    plane = np.arange(2 * 3).reshape(2, 3, 1, 1) * 8 * 9
    np.testing.assert_array_equal(idx, ti.numpy() + plane)


@pytest.mark.parametrize("kernel,strides,pads,ceil",
                         [((3, 3), (2, 2), (0, 0, 0, 0), 1), ((3, 3), (2, 2), (1, 1, 1, 1), 0),
                          ((2, 3), (1, 1), (0, 1, 0, 1), 0), ((5, 4), (3, 2), (2, 1, 2, 1), 1),
                          ((1, 1), (2, 3), (0, 0, 0, 0), 0), ((3, 2), (1, 2), (1, 0, 1, 0), 1)])
def test_maxpool_float_matches_torch(popart, kernel, strides, pads, ceil):
    # The float fast path (kernels/pool_max.cpp: column maxima, then window maxima along the row,
    # padding read as -inf), against PyTorch: padding, strides 1 to 3, ceil_mode windows past the edge.
    x = np.random.default_rng(4).standard_normal((2, 3, 11, 13)).astype(np.float32)

    def build(b, ids):
        return b.aiOnnxOpset12.maxpool(ids, num_outputs=1, kernel_shape=list(kernel), strides=list(strides),
                                       pads=list(pads), ceil_mode=ceil)[0]

    y = run(popart, build, [x])
    t = torch.nn.functional.max_pool2d(torch.tensor(x), kernel, strides, pads[:2], ceil_mode=bool(ceil))
    np.testing.assert_array_equal(y, t.numpy())


def count_ngrams(rows, grams, min_n, max_n, max_skip):
    """Per row, how often each pool n-gram occurs (every skip 0 .. max_skip for n >= 2)."""
    out = np.zeros((len(rows), len(grams)))
    for r, row in enumerate(rows):
        for n in range(min_n, max_n + 1):
            for skip in range(max_skip + 1 if n > 1 else 1):
                step = skip + 1
                for s in range(len(row) - (n - 1) * step):
                    g = tuple(row[s + k * step] for k in range(n))
                    for i, want in enumerate(grams):
                        out[r, i] += g == want
    return out


def tfidf_model(popart, x, **attrs):
    return run(popart, lambda b, ids: b.aiOnnxOpset9.tfidfvectorizer(ids, **attrs), [x])


def test_tfidfvectorizer_counts_match_sklearn(popart):
    sklearn_text = pytest.importorskip("sklearn.feature_extraction.text")
    words = "the cat sat on the mat and the cat ate the rat on the mat".split()
    vocab = sorted(set(words))
    unigrams = ["the", "cat", "mat", "dog"]
    bigrams = ["the cat", "on the", "the mat", "cat ate", "mat the"]
    cv = sklearn_text.CountVectorizer(vocabulary=unigrams + bigrams, ngram_range=(1, 2), token_pattern=r"\S+")
    want = cv.transform([" ".join(words)]).toarray()[0].astype(np.float32)
    ids = {w: i for i, w in enumerate(vocab + ["dog"])}
    pool = [ids[w] for w in unigrams] + [ids[w] for g in bigrams for w in g.split()]
    x = np.array([ids[w] for w in words], np.int64)
    attrs = dict(max_gram_length=2, max_skip_count=0, min_gram_length=1, mode="TF", ngram_counts=[0, 4],
                 ngram_indexes=list(range(9)), pool_int64s=pool)
    np.testing.assert_array_equal(tfidf_model(popart, x, **attrs), want)
    np.testing.assert_array_equal(tfidf_model(popart, x.astype(np.int32), **attrs), want)
    # The same words as a STRING constant with pool_strings (folded at import); the Python Builder
    # makes no STRING constants, so the model comes from onnx.helper.
    del attrs["pool_int64s"]
    words_t = helper.make_tensor("words", TensorProto.STRING, [len(words)], [w.encode() for w in words])
    pool_words = unigrams + [w for gram in bigrams for w in gram.split()]
    g = helper.make_graph(
        [helper.make_node("Constant", [], ["x"], value=words_t),
         helper.make_node("TfIdfVectorizer", ["x"], ["y"], pool_strings=pool_words, **attrs)],
        "g", [], [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)])
    model = helper.make_model(g, opset_imports=[helper.make_opsetid("", 9)]).SerializeToString()
    s = popart.InferenceSession(model, popart.DataFlow(1, ["y"]), popart.DeviceManager().createCpuDevice())
    s.prepareDevice()
    a = s.initAnchorArrays()
    s.run(popart.PyStepIO({}, a))
    np.testing.assert_array_equal(a["y"], want)


@pytest.mark.parametrize("mode,min_n,max_n,skip",
                         list(itertools.product(["TF", "IDF", "TFIDF"], [1, 2], [2, 3], [0, 2])))
def test_tfidfvectorizer_matches_python_counts(popart, mode, min_n, max_n, skip):
    rng = np.random.default_rng(21)
    x = rng.integers(0, 4, (3, 20)).astype(np.int64)
    grams = [(0,), (3,), (1,), (0, 1), (2, 2), (3, 0), (1, 1), (0, 1, 2), (2, 2, 2)]
    counts = [0, 3, 11]
    index = [4, 0, 7, 1, 8, 2, 3, 6, 5]
    weights = rng.uniform(0.5, 2, len(grams)).astype(np.float32)
    got = tfidf_model(popart, x, max_gram_length=max_n, max_skip_count=skip, min_gram_length=min_n, mode=mode,
                      ngram_counts=counts, ngram_indexes=index, pool_int64s=[t for g in grams for t in g],
                      weights=weights.tolist())
    c = count_ngrams(x.tolist(), grams, min_n, max_n, skip)
    v = {"TF": c, "IDF": (c > 0) * weights, "TFIDF": c * weights}[mode]
    want = np.zeros((3, 9))
    want[:, index] = v
    assert got.dtype == np.float32 and got.shape == (3, 9)
    np.testing.assert_allclose(got, want, rtol=1e-6)
